#!/usr/bin/env bash
# benchmarks/logs_speed.sh [SIZE_MIB] [RAILKIT] [RUNS]
# Times `railkit logs FILE --json` against `grep -c 'NCCL INFO' FILE` on two
# inputs of SIZE_MIB (default 1024: 1 GiB) each, in a temporary directory:
#   real      benchmarks/logs_real_gen.py: real lines from
#             ../shared/data/nccl-logs with new host:pid:tid headers, many
#             jobs of many ranks, mostly INFO, some WARN, nccl-tests tables
#   logs_gen  benchmarks/logs_gen.py: synthetic lines of every kind
# Warm page cache; RUNS (default 5, at least 5) runs per input, railkit and
# grep interleaved (r g r g ...) so both see the same machine load, and the
# ratio is taken run by run. Prints per input the medians with [min-max]
# spread of: railkit and grep seconds, railkit GB/s (10^9 B/s), the ratio
# railkit time / grep time, the same for CPU time (user+sys: what counts
# when other work holds the cores), and peak RSS (/usr/bin/time %M, MB).
# Targets: railkit >= 1 GB/s and at most 1.5x grep's time, memory flat in the
# file size. Not a test: it asserts nothing and its numbers depend on the
# machine and its load (printed).
set -euo pipefail
size_mib=${1:-1024}
here=$(cd "$(dirname "$0")" && pwd)
railkit=${2:-${RAILKIT:-$here/../build/railkit}}
runs=${3:-5}
[ "$runs" -ge 5 ] || runs=5
[ -x "$railkit" ] || { echo "logs_speed: railkit binary not found at $railkit (pass it as the 2nd argument)" >&2; exit 2; }
if [ ! -x /usr/bin/time ]; then
  echo "logs_speed: installing GNU time for peak RSS" >&2
  apt-get install -y time > /dev/null 2>&1 || { echo "logs_speed: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_once OUT CMD...: prints "seconds peak_rss_kb cpu_seconds" (cpu: user +
# sys of all threads). Output goes to a file,
# not /dev/null: GNU grep stops at the first match when its output is
# /dev/null.
run_once() {
  local out=$1 start end
  shift
  start=$(date +%s.%N)
  /usr/bin/time -f '%M %U %S' -o "$tmp/rss" "$@" > "$out" || true
  end=$(date +%s.%N)
  tail -1 "$tmp/rss" | awk -v a="$start" -v b="$end" '{ printf "%.4f %d %.2f\n", b - a, $1, $2 + $3 }'
}
# stats V...: "median [min-max]" of the values (median of an even count:
# the mean of the middle two).
stats() {
  printf '%s\n' "$@" | sort -g | awk -v f="${FMT:-%.3f}" '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf f " [" f "-" f "]", m, v[1], v[NR] }'
}

bench() {
  local name=$1 log=$2 bytes i rt rr rc gt gr gc
  bytes=$(stat -c %s "$log")
  cat "$log" > /dev/null  # warm the page cache
  local r=() g=() gbs=() ratio=() rss=() grss=() cpu=()
  for ((i = 0; i < runs; i++)); do
    read -r rt rr rc < <(run_once "$tmp/railkit.out" "$railkit" logs "$log" --json)
    read -r gt gr gc < <(run_once "$tmp/grep.out" grep -c 'NCCL INFO' "$log")
    cpu+=("$(awk -v a="$rc" -v b="$gc" 'BEGIN { print (b > 0 ? a / b : 0) }')")
    r+=("$rt") g+=("$gt") rss+=("$(awk -v k="$rr" 'BEGIN { print k / 1000 }')")
    grss+=("$(awk -v k="$gr" 'BEGIN { print k / 1000 }')")
    gbs+=("$(awk -v b="$bytes" -v t="$rt" 'BEGIN { print b / t / 1e9 }')")
    ratio+=("$(awk -v a="$rt" -v b="$gt" 'BEGIN { print a / b }')")
  done
  printf '%s: %.1f MB, %s lines, median line %s bytes\n' "$name" "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" \
    "$(wc -l < "$log")" "$(awk '{ print length($0) + 1 }' "$log" | head -200000 | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
  printf '  railkit logs --json  %s s   %s GB/s   peak RSS %s MB\n' "$(stats "${r[@]}")" "$(FMT=%.2f stats "${gbs[@]}")" "$(FMT=%.1f stats "${rss[@]}")"
  printf "  grep -c 'NCCL INFO'  %s s   peak RSS %s MB\n" "$(stats "${g[@]}")" "$(FMT=%.1f stats "${grss[@]}")"
  printf '  ratio railkit/grep   %s   (%d runs each, interleaved; median [min-max])\n' "$(FMT=%.2fx stats "${ratio[@]}")" "$runs"
  printf '  cpu time ratio       %s   (user+sys, all threads; 10 ms resolution)\n' "$(FMT=%.2fx stats "${cpu[@]}")"
}

python3 "$here/logs_real_gen.py" "$tmp/real.log" "$size_mib"
python3 "$here/logs_gen.py" "$tmp/gen.log" "$size_mib"
# The new files' pages are still dirty: the kernel writing 2 GiB back would
# take CPU from whichever program runs meanwhile.
sync
printf 'logs_speed: %s, %s, load average %s\n' "$("$railkit" --version 2>/dev/null | head -1 || echo railkit)" \
  "$(nproc) cores" "$(cut -d' ' -f1-3 /proc/loadavg)"
bench "real lines (logs_real_gen.py)" "$tmp/real.log"
bench "synthetic (logs_gen.py)" "$tmp/gen.log"
printf 'load average after: %s   (targets: >= 1 GB/s, <= 1.5x grep, RSS flat in file size)\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
