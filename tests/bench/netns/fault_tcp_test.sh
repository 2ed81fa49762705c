#!/usr/bin/env bash
# Faults under the tcp backend with the env bootstrap, N nodes, mid-run:
#   kill      the last rank is killed with SIGKILL (its sockets close);
#   linkdown  the last node's net1 is set down (no FIN, no RST: only
#             TCP_USER_TIMEOUT and railkit's own deadlines notice).
# Every surviving railkit process must exit 3 within the stall timeout (plus
# slack), its message naming a peer rank and the data interface; at least one
# must name the faulty rank. Nothing may hang (ctest has its own timeout too).
# Usage: fault_tcp_test.sh RAILKIT N kill|linkdown
set -euo pipefail
source "$(dirname "$0")/netns_lib.sh"
rk=$1 n=$2 mode=$3
stall=5
rk_netns_setup "$n"
export MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=29610 WORLD_SIZE=$n
# One size, a huge iteration count: the fault always lands inside the data path.
args=(bench all_reduce --data-if =net1 --ctrl-if =eth0 -b 4M -e 4M -n 1000000 -w 1
      --bootstrap-timeout 20 --stall-timeout "$stall")
pids=()
for ((i = 1; i <= n; i++)); do
  RANK=$((i - 1)) timeout 60 ip netns exec "$(rk_node "$i")" "$rk" "${args[@]}" >"$RK_WORK/out$i" 2>&1 &
  pids+=($!)
done
# Wait until the run moves data on the faulty node's net1.
for _ in $(seq 1 150); do
  (( $(rk_iface_bytes "$n" net1) > 40000000 )) && break
  sleep 0.1
done
(( $(rk_iface_bytes "$n" net1) > 40000000 )) || { cat "$RK_WORK"/out*; echo "FAIL: no data moved" >&2; exit 1; }
victim=$((n - 1))
start=$SECONDS
case $mode in
  kill)
    # The processes inside the victim's namespace are its railkit rank.
    for p in $(ip netns pids "$(rk_node "$n")"); do kill -9 "$p" 2>/dev/null || true; done
    survivors=$((n - 1))
    ;;
  linkdown)
    ip -n "$(rk_node "$n")" link set net1 down
    survivors=$n  # the cut-off rank is alive and must give up too
    ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
fail=0 named=0
for ((i = 1; i <= survivors; i++)); do
  rc=0
  wait "${pids[i - 1]}" || rc=$?
  elapsed=$((SECONDS - start))
  echo "--- rank $((i - 1)) (node$i) exit $rc after ${elapsed}s"
  cat "$RK_WORK/out$i"
  [[ $rc -eq 3 ]] || { echo "FAIL: rank $((i - 1)) exited $rc, want 3" >&2; fail=1; }
  (( elapsed <= stall + 10 )) || { echo "FAIL: rank $((i - 1)) took ${elapsed}s for a ${stall}s stall timeout" >&2; fail=1; }
  grep -Eq "rank [0-9]+ \(host [^,]+, interface net1" "$RK_WORK/out$i" ||
    { echo "FAIL: rank $((i - 1)) does not name a peer rank, host and interface net1" >&2; fail=1; }
  if (( i != n )) && grep -q "rank $victim (host" "$RK_WORK/out$i"; then named=1; fi
done
(( named )) || { echo "FAIL: no survivor names the faulty rank $victim" >&2; fail=1; }
wait 2>/dev/null || true
(( fail == 0 )) || exit 1
echo "ok: $mode with $n ranks: survivors exited 3 naming the peer"
