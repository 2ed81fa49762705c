#!/usr/bin/env bash
# Foreign clients at the rendezvous port (env bootstrap, 2 nodes, tcp): while
# rank 0 waits, strangers connect from node 2: one sends binary garbage, one
# a well-formed hello with the wrong job id, one a hello of an unknown and one
# of the previous protocol version, one connects and says nothing. Then the real rank 1 arrives: the
# run must complete normally (exit 0) with #wrong 0 on every row.
# Usage: fault_foreign_client_test.sh RAILKIT
set -euo pipefail
source "$(dirname "$0")/netns_lib.sh"
rk=$1
rk_netns_setup 2
export MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=29620 WORLD_SIZE=2
args=(bench all_reduce --data-if =net1 --ctrl-if =eth0 -b 1K -e 1M -f 8 --job-id realjob
      --bootstrap-timeout 30 --stall-timeout 10)
RANK=0 timeout 60 ip netns exec "$(rk_node 1)" "$rk" "${args[@]}" >"$RK_WORK/out0" 2>&1 &
r0=$!
# Wait for the rendezvous port.
for _ in $(seq 1 50); do
  rk_exec 2 timeout 1 bash -c "exec 3<>/dev/tcp/$MASTER_ADDR/$MASTER_PORT" 2>/dev/null && break
  sleep 0.2
done
rk_exec 2 python3 - "$MASTER_ADDR" "$MASTER_PORT" <<'PY'
import os, socket, sys, time
addr = (sys.argv[1], int(sys.argv[2]))
def client(payload, hold=0.5):
    s = socket.create_connection(addr, timeout=5)
    if payload:
        s.sendall(payload)
    time.sleep(hold)
    s.close()
client(os.urandom(4096) + b"\n")
client(b"RAILKIT-RDV 3 wrongjob 1 2 " + b"41" * 8 + b" -\n")
client(b"RAILKIT-RDV 999 realjob 1 2 - -\n")
client(b"RAILKIT-RDV 1 realjob 1 2 -\n")
client(b"GET / HTTP/1.0\r\n\r\n")
client(b"", hold=1.0)
PY
RANK=1 timeout 60 ip netns exec "$(rk_node 2)" "$rk" "${args[@]}" >"$RK_WORK/out1" 2>&1 &
r1=$!
rc0=0 rc1=0
wait "$r0" || rc0=$?
wait "$r1" || rc1=$?
cat "$RK_WORK/out0" "$RK_WORK/out1"
[[ $rc0 -eq 0 && $rc1 -eq 0 ]] || { echo "FAIL: exits $rc0/$rc1, want 0/0" >&2; exit 1; }
rows=$(grep -cE '^ +[0-9]+ +[0-9]+ +float' "$RK_WORK/out0" || true)
(( rows >= 3 )) || { echo "FAIL: expected at least 3 rows, got $rows" >&2; exit 1; }
# #wrong is the last column of both placements: every row shows 0 twice.
bad=$(grep -E '^ +[0-9]+ +[0-9]+ +float' "$RK_WORK/out0" | awk '$9 != 0 || $NF != 0' | wc -l)
(( bad == 0 )) || { echo "FAIL: $bad rows with wrong results" >&2; exit 1; }
grep -q "rendezvous: dropped" "$RK_WORK/out0" || { echo "FAIL: rank 0 did not report the dropped strangers" >&2; exit 1; }
echo "ok: foreign clients dropped and reported, run completed with #wrong 0"
