#!/usr/bin/env bash
# Fault: a peer that never arrives (env bootstrap, tcp).
#   (default) N=2, rank 1 never starts: rank 0 exits 3 within the bootstrap
#             timeout (plus slack), naming rank 1 and the control interface.
#   master    N=2, rank 0 never starts: rank 1 exits 3, naming rank 0, its
#             address and the control interface.
#   three     N=3, rank 2 never starts: ranks 0 and 1 both exit 3 in time;
#             rank 0 names rank 2, rank 1 names rank 0; both name eth0.
# Usage: fault_missing_peer_test.sh RAILKIT [master|three]
set -euo pipefail
source "$(dirname "$0")/netns_lib.sh"
rk=$1 mode=${2:-default}
timeout_s=5
case $mode in
  default) n=2 present=(0) ;;
  master) n=2 present=(1) ;;
  three) n=3 present=(0 1) ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
rk_netns_setup "$n"
export MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=29500 WORLD_SIZE=$n
start=$SECONDS
pids=()
for r in "${present[@]}"; do
  RANK=$r timeout 30 ip netns exec "$(rk_node $((r + 1)))" "$rk" bench all_reduce --data-if =net1 --ctrl-if =eth0 \
    -b 1K -e 1K --bootstrap-timeout "$timeout_s" >"$RK_WORK/out$r" 2>&1 &
  pids+=($!)
done
fail=0
for i in "${!present[@]}"; do
  r=${present[i]} rc=0
  wait "${pids[i]}" || rc=$?
  elapsed=$((SECONDS - start))
  echo "--- rank $r exit $rc after ${elapsed}s"
  cat "$RK_WORK/out$r"
  [[ $rc -eq 3 ]] || { echo "FAIL: rank $r exited $rc, want 3" >&2; fail=1; }
  (( elapsed <= timeout_s + 10 )) || { echo "FAIL: rank $r took ${elapsed}s for a ${timeout_s}s timeout" >&2; fail=1; }
  grep -q "interface eth0" "$RK_WORK/out$r" || { echo "FAIL: rank $r does not name the interface" >&2; fail=1; }
  case "$mode/$r" in
    default/0) want="rank\(s\) 1 " ;;
    three/0) want="rank\(s\) 2 " ;;
    */1) want="rank 0 \(host $MASTER_ADDR:$MASTER_PORT" ;;
  esac
  grep -Eq "$want" "$RK_WORK/out$r" || { echo "FAIL: rank $r message does not match /$want/" >&2; fail=1; }
done
(( fail == 0 )) || exit 1
echo "ok: $mode: every present rank exited 3 naming the missing peer"
