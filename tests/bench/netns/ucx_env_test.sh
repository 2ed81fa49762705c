#!/usr/bin/env bash
# Env bootstrap across N netns nodes with --backend ucx: every op, several
# data types, reductions and roots, sizes not divisible by the rank count.
# Namespaces share a kernel, so UCX would use shared memory between them:
# UCX_TLS=tcp makes it use the network, and railkit sets UCX_NET_DEVICES to
# net1 from --data-if. #wrong must be 0 and eth0 < 1% of net1's bytes.
# Usage: ucx_env_test.sh RAILKIT N
set -euo pipefail
source "$(dirname "$0")/netns_lib.sh"
source "$(dirname "$0")/ucx_mpi_lib.sh"
rk=$1 n=$2
rk_netns_setup "$n"
export MASTER_ADDR=$(rk_ctrl_ip 1) WORLD_SIZE=$n UCX_TLS=tcp
unset UCX_NET_DEVICES
rk_ucx_ranks_skip_leak_check
rk_um_snapshot "$n"
port=29600
for spec in "${RK_UM_SPECS[@]}"; do
  port=$((port + 1))
  pids=()
  for ((i = 1; i <= n; i++)); do
    # shellcheck disable=SC2086
    MASTER_PORT=$port RANK=$((i - 1)) rk_exec "$i" "$rk" bench all --backend ucx --data-if =net1 --ctrl-if =eth0 \
      -b 7 -e "$(rk_um_max)" -f 13 -n 2 -w 1 $spec --bootstrap-timeout 20 --stall-timeout 20 \
      >"$RK_WORK/out$i" 2>&1 &
    pids+=($!)
  done
  fail=0
  for p in "${pids[@]}"; do wait "$p" || fail=1; done
  if [[ $fail -ne 0 ]]; then
    for ((i = 1; i <= n; i++)); do echo "--- rank $((i - 1))"; cat "$RK_WORK/out$i"; done
    echo "FAIL: a rank exited non-zero ($spec)" >&2
    exit 1
  fi
  rk_um_check_output "$RK_WORK/out1" "ucx $n ranks $spec"
  grep -q "ucx net1" "$RK_WORK/out1" || { echo "FAIL: rank lines do not show ucx on net1" >&2; exit 1; }
done
rk_um_check_separation "$n"
