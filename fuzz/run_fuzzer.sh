#!/usr/bin/env bash
# run_fuzzer.sh FUZZER WORK_CORPUS REGRESSIONS [SEED_DIR...]
# Under ctest (RAILKIT_FUZZ_SECONDS unset or 0) the target replays its inputs
# once (-runs=0): the seed dirs and REGRESSIONS, the inputs of every crash
# found so far. `make fuzz` sets RAILKIT_FUZZ_SECONDS to fuzz for that long;
# a crash is then written into REGRESSIONS, so ctest replays it from then on.
# Seed dirs that do not exist (../shared absent) are left out, and it says so.
set -euo pipefail
fuzzer=$1 work=$2 regressions=$3
shift 3
seconds=${RAILKIT_FUZZ_SECONDS:-0}
mkdir -p "$work"
inputs=()
for d in "$@" "$regressions"; do
  if [ -d "$d" ]; then inputs+=("$d"); else echo "run_fuzzer: input dir $d absent, going on without it"; fi
done
# libFuzzer exits 77 on a crash by default, which reads as "skipped" to a
# harness that uses 77 for that: a finding must read as a failure.
common=(-rss_limit_mb=2048 -max_len=65536 -timeout=10 -error_exitcode=1 -timeout_exitcode=1
  -print_final_stats=1)
if [ "$seconds" = 0 ]; then
  # The work dir comes first so that libFuzzer never writes into a seed dir.
  exec "$fuzzer" -runs=0 "${common[@]}" "$work" "${inputs[@]}"
fi
mkdir -p "$regressions"
exec "$fuzzer" -max_total_time="$seconds" -artifact_prefix="$regressions/" "${common[@]}" \
  "$work" "${inputs[@]}"
