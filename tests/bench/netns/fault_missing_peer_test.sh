#!/usr/bin/env bash
# Fault: a peer that never arrives. Rank 0 alone must exit 3 within the
# bootstrap timeout (plus slack), naming the missing peer.
set -euo pipefail
source "$(dirname "$0")/netns_lib.sh"
rk=$1
rk_netns_setup 2
start=$SECONDS rc=0
MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=29500 WORLD_SIZE=2 RANK=0 timeout 30 \
  ip netns exec "$(rk_node 1)" "$rk" bench all_reduce --data-if =net1 --ctrl-if =eth0 \
  -b 1K -e 1K --bootstrap-timeout 5 >"$RK_WORK/out" 2>&1 || rc=$?
cat "$RK_WORK/out"
elapsed=$((SECONDS - start))
[[ $rc -eq 3 ]] || { echo "FAIL: exit $rc, want 3" >&2; exit 1; }
(( elapsed <= 15 )) || { echo "FAIL: took ${elapsed}s for a 5 s timeout" >&2; exit 1; }
grep -Eqi "rank(\(s\))? 1" "$RK_WORK/out" || { echo "FAIL: message does not name rank 1" >&2; exit 1; }
echo "ok: exit 3 after ${elapsed}s"
