#!/usr/bin/env bash
# --expect-line-rate across 2 netns nodes (env bootstrap, data on net1, both
# net1 limited to 200 Mbit/s with tc tbf): graded against --nic-gbps 10 the
# run misses (exit 1, message names the busbw and the expectation); at
# F=0.001 (0.00125 GB/s, over 10x below what 200 Mbit/s carries even under
# ASan on a loaded machine, which measured 0.013) it passes; without --nic-gbps the rate comes from net1's sysfs speed
# (an up veth reports 10000 Mb/s) and the JSON names that file.
# Usage: pairs_line_rate_test.sh RAILKIT
set -euo pipefail
source "$(dirname "$0")/netns_lib.sh"
rk=$1 n=2
rk_netns_setup "$n"
for ((i = 1; i <= n; i++)); do
  rk_throttle "$i" 200mbit
done
export MASTER_ADDR=$(rk_ctrl_ip 1) WORLD_SIZE=$n
port=29600
# run_case NAME EXPECTED_RC ARGS...: runs both ranks, checks rank 0's exit status.
run_case() {
  local name=$1 want=$2 pids=() i rc
  shift 2
  port=$((port + 1))
  for ((i = 1; i <= n; i++)); do
    MASTER_PORT=$port RANK=$((i - 1)) rk_exec "$i" "$rk" bench all_reduce --data-if =net1 --ctrl-if =eth0 \
      -b 1M -e 1M -n 3 -w 1 --bootstrap-timeout 20 --stall-timeout 20 "$@" >"$RK_WORK/$name$i" 2>&1 &
    pids+=($!)
  done
  rc=0; wait "${pids[0]}" || rc=$?
  wait "${pids[1]}" || true
  cat "$RK_WORK/${name}1"
  [[ $rc -eq $want ]] || { echo "FAIL: $name: rank 0 exited $rc, expected $want" >&2; exit 1; }
}
run_case miss 1 --expect-line-rate --nic-gbps 10
grep -q "railkit: all_reduce: busbw .* GB/s at 1048576 bytes is below the expected 1.00 GB/s" "$RK_WORK/miss1" \
  || { echo "FAIL: no 'below the expected 1.00 GB/s' line (2 nodes x 10 Gb/s x 0.8)" >&2; exit 1; }
run_case pass 0 --expect-line-rate=0.001 --nic-gbps 10
run_case discovered 1 --expect-line-rate --json-out "$RK_WORK/rate.json"
python3 - "$RK_WORK/rate.json" <<'PY'
import json, sys
rate = json.load(open(sys.argv[1]))["line_rate"]
assert rate["nic_gbps"] == 10 and rate["fraction"] == 0.8, rate
assert rate["source"] == '/sys/class/net/net1/speed "10000" Mb/s', rate
print("line rate from", rate["source"])
PY
echo "ok"
