#!/usr/bin/env bash
# bench all_reduce across 4 netns nodes where node 4's net1 is throttled to
# 100 Mbit/s with tc tbf (about 1/30 of the others, issue 30's degraded node):
# the collective must complete (every rank exit 0), every size 1M..4M must
# have a row on rank 0, and #wrong must be 0 on every row. No rate asserted.
# Usage: degraded_collective_test.sh RAILKIT
set -euo pipefail
source "$(dirname "$0")/netns_lib.sh"
rk=$1 n=4 bad=4
rk_netns_setup "$n"
rk_throttle "$bad" 100mbit
export MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=29500 WORLD_SIZE=$n
pids=()
for ((i = 1; i <= n; i++)); do
  RANK=$((i - 1)) rk_exec "$i" "$rk" bench all_reduce --data-if =net1 --ctrl-if =eth0 -b 1M -e 4M \
    -n 3 -w 1 --bootstrap-timeout 30 --stall-timeout 60 >"$RK_WORK/out$i" 2>&1 &
  pids+=($!)
done
rcs=()
for p in "${pids[@]}"; do rc=0; wait "$p" || rc=$?; rcs+=("$rc"); done
cat "$RK_WORK/out1"
for ((i = 0; i < n; i++)); do
  [[ ${rcs[$i]} -eq 0 ]] || { cat "$RK_WORK/out$((i + 1))"; echo "FAIL: rank $i exited ${rcs[$i]}, want 0" >&2; exit 1; }
done
sizes=$(grep -E '^ +[0-9]+ +[0-9]+ +float' "$RK_WORK/out1" | awk '{print $1}' | tr '\n' ' ')
[[ $sizes == "1048576 2097152 4194304 " ]] || { echo "FAIL: rows for sizes '$sizes', want 1M 2M 4M" >&2; exit 1; }
bad_rows=$(grep -E '^ +[0-9]+ +[0-9]+ +float' "$RK_WORK/out1" | awk '$9 != 0 || $NF != 0' | wc -l)
(( bad_rows == 0 )) || { echo "FAIL: $bad_rows rows with wrong results" >&2; exit 1; }
echo "ok: all_reduce 1M..4M completed over a node throttled to 100 Mbit/s, #wrong 0"
