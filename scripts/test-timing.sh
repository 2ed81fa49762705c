#!/usr/bin/env bash
# The timing summary make test ends with, so that a slower suite shows in
# the CI log: each pass's wall time, then the slowest tests of each pass.
#   scripts/test-timing.sh [-n COUNT] NAME=SECONDS:[CTEST_LOG]...
# CTEST_LOG (empty for a step without tests, such as a build) is what `ctest -O FILE` wrote; SECONDS the pass's wall time
# (its build included where the caller says so in NAME). A missing log is
# reported, not fatal: the summary must never hide the suite's own result.
set -uo pipefail

count=10
if [[ ${1:-} == -n ]]; then
  count=$2
  shift 2
fi
(($# > 0)) || { echo "usage: scripts/test-timing.sh [-n COUNT] NAME=SECONDS:CTEST_LOG..." >&2; exit 2; }

echo "== timing summary ($(nproc) cores; $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1); load $(cut -d' ' -f1-3 /proc/loadavg))"
for pass in "$@"; do
  name=${pass%%=*} rest=${pass#*=}
  seconds=${rest%%:*} log=${rest#*:}
  printf '%-28s %5d s (%d min %02d s)\n' "$name" "$seconds" $((seconds / 60)) $((seconds % 60))
done
for pass in "$@"; do
  name=${pass%%=*} log=${pass#*:}
  [[ -n $log ]] || continue  # a step with no tests of its own (a build)
  if [[ ! -f $log ]]; then
    echo "$name: no ctest log at $log"
    continue
  fi
  # ctest's result lines: "  12/1415 Test  #45: NAME ....   Passed    1.23 sec".
  echo "-- $name: the $count slowest tests"
  sed -n 's/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .*[^0-9.]\([0-9][0-9.]*\) sec$/\2 \1/p' "$log" |
    sort -rn | head -n "$count" | awk '{ printf "%9.2f s  %s\n", $1, $2 }'
done
