#!/usr/bin/env bash
# Env bootstrap across N netns nodes: every op over the data plane (net1),
# bootstrap on eth0; #wrong must be 0 and eth0 must carry < 1% of net1's bytes.
# Usage: env_all_ops_test.sh RAILKIT N BACKEND
set -euo pipefail
source "$(dirname "$0")/netns_lib.sh"
rk=$1 n=$2 backend=${3:-tcp}
rk_netns_setup "$n"
export MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=29500 WORLD_SIZE=$n UCX_TLS=tcp
pids=()
for ((i = 1; i <= n; i++)); do
  RANK=$((i - 1)) rk_exec "$i" "$rk" bench all --backend "$backend" --data-if =net1 --ctrl-if =eth0 \
    -b 1000 -e 4M -f 4 -n 3 -w 1 --bootstrap-timeout 20 --stall-timeout 20 \
    >"$RK_WORK/out$i" 2>&1 &
  pids+=($!)
done
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
cat "$RK_WORK/out1"
[[ $fail -eq 0 ]] || { for ((i = 2; i <= n; i++)); do cat "$RK_WORK/out$i"; done; echo "FAIL: a rank exited non-zero" >&2; exit 1; }
for ((i = 1; i <= n; i++)); do
  c=$(rk_iface_bytes "$i" eth0); d=$(rk_iface_bytes "$i" net1)
  echo "node$i eth0=$c net1=$d bytes"
  (( c * 100 < d )) || { echo "FAIL: node$i eth0 carried >= 1% of net1's bytes" >&2; exit 1; }
done
