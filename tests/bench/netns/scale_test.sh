#!/usr/bin/env bash
# bench pairs with many ranks per netns node: 48 ranks over 8 nodes (6 share
# each node's IPs, every listener on its own ephemeral port), env bootstrap,
# 2 tcp streams per peer, each rank started with a soft open-file limit of
# 64 (a job this size needs about 48 x 3 + 64 = 208: railkit raises the soft
# limit to it). Every rank must finish (exit 0, or 1 when noise on a loaded
# machine makes a link slow) and rank 0's JSON must hold all 48 x 47 / 2
# links. The timing is benchmarks/validate_scale.sh's business, not this test's.
# Usage: scale_test.sh RAILKIT
set -euo pipefail
source "$(dirname "$0")/netns_lib.sh"
rk=$1 nodes=8 ranks=48
hard=$(ulimit -H -n)
[[ $hard == unlimited || $hard -ge 256 ]] || rk_skip "hard open-file limit $hard is below 256"
command -v python3 >/dev/null || rk_skip "python3 not found"
rk_netns_setup "$nodes"
export MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=29500 WORLD_SIZE=$ranks
pids=()
for ((r = 0; r < ranks; r++)); do
  extra=()
  [[ $r -eq 0 ]] && extra=(--json-out "$RK_WORK/pairs.json")
  RANK=$r rk_exec $((r % nodes + 1)) sh -c 'ulimit -S -n 64 && exec "$@"' sh \
    "$rk" bench pairs --data-if =net1 --ctrl-if =eth0 -b 4K -e 4K -n 1 -w 0 --connections 2 \
    --bootstrap-timeout 60 --stall-timeout 60 "${extra[@]}" >"$RK_WORK/out$r" 2>&1 &
  pids+=($!)
done
rcs=()
for p in "${pids[@]}"; do rc=0; wait "$p" || rc=$?; rcs+=("$rc"); done
for ((r = 0; r < ranks; r++)); do
  [[ ${rcs[$r]} -le 1 ]] || { tail -n 5 "$RK_WORK/out$r"; echo "FAIL: rank $r exited ${rcs[$r]}" >&2; exit 1; }
done
python3 - "$RK_WORK/pairs.json" "$ranks" <<'PY'
import json, sys
doc, n = json.load(open(sys.argv[1]))["pairs"], int(sys.argv[2])
links = {(l["a"], l["b"]) for l in doc["links"]}
assert links == {(a, b) for a in range(n) for b in range(a + 1, n)}, f"{len(links)} links"
assert len(doc["rounds"]) == n - 1, len(doc["rounds"])
print(f"ok: {n} ranks on 8 nodes, {len(links)} links, open-file limit raised from 64")
PY
