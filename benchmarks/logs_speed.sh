#!/usr/bin/env bash
# benchmarks/logs_speed.sh [SIZE_MIB] [RAILKIT]
# Generates a synthetic NCCL job log of SIZE_MIB (default 1024: 1 GiB; many
# ranks, every line kind, an nccl-tests table at the end) in a temporary
# directory, then times `railkit logs FILE --json` against
# `grep -c 'NCCL INFO' FILE` on the same file: warm page cache, median of 3
# runs each. Prints MB/s (10^6 bytes/s) for both and the time ratio.
# Targets: railkit >= 500 MB/s and at most 2x grep's time. Not a test: it
# asserts nothing and its numbers depend on the machine and its load.
set -euo pipefail
size_mib=${1:-1024}
here=$(cd "$(dirname "$0")" && pwd)
railkit=${2:-${RAILKIT:-$here/../build/railkit}}
[ -x "$railkit" ] || { echo "logs_speed: railkit binary not found at $railkit (pass it as the 2nd argument)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=$tmp/job.log
python3 "$here/logs_gen.py" "$log" "$size_mib"
bytes=$(stat -c %s "$log")
cat "$log" > /dev/null  # warm the page cache

# time_cmd CMD...: seconds of one run. Output goes to a file, not /dev/null:
# GNU grep stops at the first match when its output is /dev/null.
time_cmd() {
  local start end
  start=$(date +%s.%N)
  "$@" > "$tmp/out" || true
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }' 
}
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }

r=() g=()
for _ in 1 2 3; do
  r+=("$(time_cmd "$railkit" logs "$log" --json)")
  g+=("$(time_cmd grep -c 'NCCL INFO' "$log")")
done
rt=$(median3 "${r[@]}")
gt=$(median3 "${g[@]}")
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
mb=$(calc "$bytes / 1000000")
printf 'file: %.1f MB (%s lines)\n' "$mb" "$(wc -l < "$log")"
printf 'railkit logs --json : median %.3f s  %7.0f MB/s   (runs: %s)\n' "$rt" "$(calc "$mb / $rt")" "${r[*]}"
printf "grep -c 'NCCL INFO' : median %.3f s  %7.0f MB/s   (runs: %s)\n" "$gt" "$(calc "$mb / $gt")" "${g[*]}"
printf 'ratio railkit/grep  : %.2fx  (targets: >= 500 MB/s, <= 2x)\n' "$(calc "$rt / $gt")"
