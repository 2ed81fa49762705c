#!/usr/bin/env bash
# run_fuzzer.sh FUZZER SECONDS WORK_CORPUS [SEED_DIR...]
# Runs one libFuzzer target for a bounded time; seed dirs that do not exist
# (../shared absent) are left out, and the run says so.
set -euo pipefail
fuzzer=$1 seconds=$2 work=$3
shift 3
mkdir -p "$work"
# Targets that reach a library without frame pointers (RAILKIT_FUZZ_SLOW_UNWIND,
# set by railkit_add_fuzzer SLOW_UNWIND) unwind allocations slowly, so leak
# stacks name that library's functions (tests/bench/lsan.supp).
if [ -n "${RAILKIT_FUZZ_SLOW_UNWIND:-}" ]; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
fi
seeds=()
for d in "$@"; do
  if [ -d "$d" ]; then seeds+=("$d"); else echo "run_fuzzer: seed dir $d absent, fuzzing without it"; fi
done
exec "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
  -print_final_stats=1 "$work" "${seeds[@]}"
