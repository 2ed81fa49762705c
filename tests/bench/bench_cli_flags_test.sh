#!/usr/bin/env bash
# railkit bench as a user runs it: bad flags and launcher variables are one
# line on stderr and exit 2 before any rank runs (with --local: one line in
# all, not one per forked rank); the job token works end to end on lo, and a
# rank with the wrong token is refused with a line that says so.
# Usage: bench_cli_flags_test.sh RAILKIT
set -uo pipefail
rk=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# expect_usage DESCRIPTION WANT-SUBSTRING COMMAND...
expect_usage() {
  local what=$1 want=$2
  shift 2
  local rc=0
  timeout 60 "$@" >"$work/out" 2>"$work/err" || rc=$?
  local lines
  lines=$(wc -l <"$work/err")
  if [[ $rc -ne 2 || $lines -ne 1 ]] || ! grep -qF -- "$want" "$work/err"; then
    echo "FAIL: $what: exit $rc, $lines stderr line(s), want exit 2 and one line with '$want':" >&2
    head -5 "$work/err" >&2
    fail=1
  else
    echo "ok: $what: $(cat "$work/err")"
  fi
}

# A clean launcher environment, then the variables of each case.
env_for=(env -u RANK -u WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE
         -u LOCAL_WORLD_SIZE -u RAILKIT_JOB_TOKEN -u RAILKIT_JOB_ID)

expect_usage "-e 16T" "-e 16T" "${env_for[@]}" "$rk" bench all_reduce --local 2 -e 16T
expect_usage "unknown op with --local" "unknown op 'bogus'" "${env_for[@]}" "$rk" bench bogus --local 4
expect_usage "-r >= ranks" "-r/--root" "${env_for[@]}" "$rk" bench broadcast --local 2 -r 2
expect_usage "-r negative" "--root: expected a whole number from 0 to 65535, found '-1'" "${env_for[@]}" "$rk" bench broadcast --local 2 -r -1
expect_usage "--stall-timeout nan" "--stall-timeout" "${env_for[@]}" "$rk" bench all_reduce --local 2 --stall-timeout nan
expect_usage "--stall-timeout 0" "--stall-timeout" "${env_for[@]}" "$rk" bench all_reduce --local 2 --stall-timeout 0
expect_usage "--bootstrap-timeout -1" "--bootstrap-timeout" "${env_for[@]}" "$rk" bench all_reduce --local 2 --bootstrap-timeout -1
expect_usage "-n 0" "--iters: expected 1 to 1000000 timed iterations, found '0'" "${env_for[@]}" "$rk" bench all_reduce --local 2 -n 0
expect_usage "-a 9" "--average: expected 0 (rank 0), 1 (mean), 2 (min) or 3 (max), found '9'" "${env_for[@]}" "$rk" bench all_reduce --local 2 -a 9
expect_usage "-n 1.5" "--iters: expected 1 to 1000000 timed iterations, found '1.5'" "${env_for[@]}" "$rk" bench all_reduce --local 2 -n 1.5
expect_usage "-w -1" "--warmup_iters: expected 0 to 1000000 warm-up iterations, found '-1'" "${env_for[@]}" "$rk" bench all_reduce --local 2 -w -1
expect_usage "-c 2" "--check: expected 0 or 1, found '2'" "${env_for[@]}" "$rk" bench all_reduce --local 2 -c 2
expect_usage "--connections -1" "--connections" "${env_for[@]}" "$rk" bench all_reduce --local 2 --connections -1
expect_usage "--expect-busbw -1" "--expect-busbw" "${env_for[@]}" "$rk" bench all_reduce --local 2 --expect-busbw -1
expect_usage "--data-if with --local" "--data-if" "${env_for[@]}" "$rk" bench all_reduce --local 2 --data-if lo
expect_usage "short job token" "too short" "${env_for[@]}" "$rk" bench all_reduce --local 2 --job-token abc
expect_usage "MASTER_PORT=70000" "MASTER_PORT='70000'" \
  "${env_for[@]}" RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=70000 "$rk" bench all_reduce
expect_usage "MASTER_PORT=abc" "MASTER_PORT='abc'" \
  "${env_for[@]}" RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=abc "$rk" bench all_reduce
expect_usage "WORLD_SIZE=1000000" "WORLD_SIZE='1000000'" \
  "${env_for[@]}" RANK=0 WORLD_SIZE=1000000 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 "$rk" bench all_reduce
expect_usage "RANK=garbage" "RANK='x'" "${env_for[@]}" RANK=x WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 "$rk" bench all_reduce
expect_usage "RANK >= WORLD_SIZE" "RANK=2 is not below WORLD_SIZE=2" \
  "${env_for[@]}" RANK=2 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 "$rk" bench all_reduce

# A free port on lo for the env rendezvous (the kernel picks it).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
common=(bench all_reduce -b 1K -e 64K -f 8 --ctrl-if =lo --data-if =lo --stall-timeout 30)
echo "shared-job-token-for-this-test-0123" >"$work/token"
run_pair() {  # TOKEN0 TOKEN1-FILE-OR-VALUE: rank 0 token via env, rank 1 via a file or the env
  "${env_for[@]}" RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port RAILKIT_JOB_TOKEN="$1" \
    timeout 120 "$rk" "${common[@]}" "${@:3}" >"$work/out0" 2>"$work/err0" &
  local p0=$!
  "${env_for[@]}" RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
    timeout 120 "$rk" "${common[@]}" "${@:3}" --job-token-file "$2" >"$work/out1" 2>"$work/err1"
  rc1=$?
  wait "$p0"
  rc0=$?
}
run_pair "shared-job-token-for-this-test-0123" "$work/token" --bootstrap-timeout 60
if [[ $rc0 -ne 0 || $rc1 -ne 0 ]]; then
  echo "FAIL: ranks with the same token exited $rc0/$rc1, want 0/0" >&2
  cat "$work/err0" "$work/err1" >&2
  fail=1
else
  echo "ok: same token on both ranks: run completed"
fi
echo "another-job-token-of-this-test-4567" >"$work/other"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run_pair "shared-job-token-for-this-test-0123" "$work/other" --bootstrap-timeout 5
if [[ $rc1 -ne 2 || $rc0 -ne 3 ]] || ! grep -q "wrong job token" "$work/err1" || ! grep -q "wrong job token" "$work/err0"; then
  echo "FAIL: wrong token: exits $rc0/$rc1, want 3 (rank 0 times out) / 2 (rank 1 refused), both naming the token" >&2
  cat "$work/err0" "$work/err1" >&2
  fail=1
else
  echo "ok: wrong token: rank 1 refused ($(head -1 "$work/err1"))"
fi
exit $fail
