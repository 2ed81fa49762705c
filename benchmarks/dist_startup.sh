#!/usr/bin/env bash
# benchmarks/dist_startup.sh [TARBALL] [BASELINE]
# The release tarball's two goals (docs/install.md): its size (at most 15 MB)
# and the start-up of its binary, no slower than BASELINE by more than 10%.
# Times `railkit --version` and `railkit doctor --root examples/dgx-h100-8gpu`
# for the unpacked tarball's bin/railkit and for BASELINE (default
# build/railkit; give a dynamically linked railkit, e.g. one built from a
# commit before the portable build, to compare static against dynamic),
# RUNS times each, the two binaries alternating, and prints the medians and
# their ratio. Quotes the CPU model and the load. Not a test: it asserts nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^project(railkit VERSION \([0-9.]*\).*/\1/p' "$here/CMakeLists.txt")
tarball=${1:-$here/dist/railkit-$version-linux-x86_64.tar.gz}
baseline=${2:-${BASELINE:-$here/build/railkit}}
runs=${RUNS:-41}
[ -r "$tarball" ] || { echo "dist_startup: no tarball at $tarball (make dist)" >&2; exit 2; }
[ -x "$baseline" ] || { echo "dist_startup: no baseline binary at $baseline" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
tar -xzf "$tarball" -C "$scratch"
portable=$(echo "$scratch"/railkit-*/bin/railkit)

echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
size=$(stat -c %s "$tarball")
awk -v s="$size" 'BEGIN { printf "tarball: %.2f MB (goal <= 15 MB)\n", s / 1e6 }'
echo "portable: $(env -i "$portable" --version) ($(stat -c %s "$portable") bytes)"
echo "baseline: $("$baseline" --version) ($(stat -c %s "$baseline") bytes, $baseline)"
python3 - "$portable" "$baseline" "$here/examples/dgx-h100-8gpu" "$runs" <<'PY'
import statistics, subprocess, sys, time
portable, baseline, example, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
cases = {"--version": ["--version"], "doctor --root example": ["doctor", "--root", example]}
for label, args in cases.items():
    times = {portable: [], baseline: []}
    for i in range(runs):
        order = (portable, baseline) if i % 2 == 0 else (baseline, portable)
        for binary in order:
            start = time.perf_counter()
            subprocess.run([binary] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[binary].append(time.perf_counter() - start)
    p, b = statistics.median(times[portable]), statistics.median(times[baseline])
    print(f"{label:22s} portable {p*1e3:7.2f} ms  baseline {b*1e3:7.2f} ms  "
          f"portable/baseline {p/b:5.2f} (goal <= 1.10; {runs} runs each, medians)")
PY
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
