# The frame the exporter's end-to-end scripts share. A script sources it,
# then sets WORK (its scratch folder), E2E_LOGS (files in WORK whose last
# lines a failure prints, each prefixed with its name) and E2E_PIDS (the
# names of the variables that hold the processes it started, read when it
# ends). skip exits 77, fail exits 1 after printing those logs, and the EXIT
# trap stops the processes and removes WORK, on success and failure alike.
WORK=""
E2E_LOGS=()
E2E_PIDS=()

skip() {
  echo "SKIP: $*" >&2
  exit 77
}
fail() {
  echo "FAIL: $*" >&2
  local log
  for log in "${E2E_LOGS[@]}"; do
    [[ -n "$WORK" && -f "$WORK/$log" ]] && tail -n 40 "$WORK/$log" | sed "s/^/${log%.log}: /" >&2
  done
  exit 1
}
e2e_cleanup() {
  local name pid
  for name in "${E2E_PIDS[@]}"; do
    pid=${!name:-}
    if [[ -n "$pid" ]]; then
      kill "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
    fi
  done
  [[ -n "$WORK" ]] && rm -rf "$WORK"
  return 0
}
trap e2e_cleanup EXIT
