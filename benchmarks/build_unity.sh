#!/usr/bin/env bash
# benchmarks/build_unity.sh [release|sanitizer]
# What the unity build (src/CMakeLists.txt, railkit_unity_build) saves: the
# whole tree, tests included, built from scratch twice in the same run, first
# with -DRAILKIT_UNITY_BUILD=OFF (the anchor: every file compiled alone), then
# with it ON, each with `cmake --build -j$(nproc)` in a fresh scratch
# directory. release: the Release build of `make build`; sanitizer: the clang
# ASan+UBSan build of `make asan-build`. Prints the CPU model, the load before
# each build, wall and CPU seconds of each and the ratio. Not a test: it
# asserts nothing. Takes 10-15 minutes on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:-release}
case $kind in
  release) config=(-DCMAKE_BUILD_TYPE=Release) compiler=c++ ;;
  sanitizer) config=(-DCMAKE_BUILD_TYPE=Debug -DRAILKIT_SANITIZE=ON -DRAILKIT_FUZZ=ON) compiler=clang++ ;;
  *) echo "build_unity: expected release or sanitizer, found '$kind'" >&2; exit 2 ;;
esac
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $kind build of $(git -C "$here" rev-parse --short HEAD)"
declare -A wall cpu
for unity in OFF ON; do
  dir=$scratch/$unity
  CXX=$compiler cmake -S "$here" -B "$dir" "${config[@]}" -DRAILKIT_UNITY_BUILD=$unity >/dev/null
  echo "# RAILKIT_UNITY_BUILD=$unity: load before $(cut -d' ' -f1-3 /proc/loadavg)"
  # CPU time of the children (compilers, linkers): /proc/self/stat's cutime+cstime
  # of a shell that waited for them.
  read -r w c < <(bash -c '
    start=$(date +%s.%N)
    cmake --build "$1" -j "$(nproc)" >"$1/build.log" 2>&1 || { tail -n 30 "$1/build.log" >&2; exit 1; }
    end=$(date +%s.%N)
    ticks=$(awk "{print \$16 + \$17}" /proc/$$/stat)
    echo "$(echo "$end - $start" | bc) $(echo "$ticks / $(getconf CLK_TCK)" | bc -l)"' _ "$dir")
  wall[$unity]=$w cpu[$unity]=$c
  printf 'unity %-3s  wall %6.1f s  cpu %7.1f s\n' "$unity" "$w" "$c"
  rm -rf "$dir"
done
awk -v a="${wall[OFF]}" -v b="${wall[ON]}" -v c="${cpu[OFF]}" -v d="${cpu[ON]}" \
  'BEGIN { printf "ratio ON/OFF: wall %.2f, cpu %.2f\n", b / a, d / c }'
