#!/usr/bin/env bash
# mpirun across N netns nodes, started inside node 1, exactly as the MPI
# seed separates the planes: the rsh agent enters each node's namespace,
# the hostfile lists control addresses, ORTE's out-of-band channel and MPI's
# own traffic stay on eth0 (oob/btl_tcp_if_include eth0, ob1/tcp so MPI does
# not pick UCX for itself), and railkit's data plane uses --data-if net1.
# Under mpirun railkit takes rank and size from the launcher and exchanges
# addresses with MPI_Allgather. #wrong must be 0 for every op and eth0 must
# carry < 1% of net1's bytes.
# Usage: mpirun_test.sh RAILKIT N BACKEND
set -euo pipefail
source "$(dirname "$0")/netns_lib.sh"
source "$(dirname "$0")/ucx_mpi_lib.sh"
rk=$1 n=$2 backend=$3
command -v mpirun >/dev/null || rk_skip "mpirun not found (openmpi-bin)"
rk_netns_setup "$n"
agent="$(cd "$(dirname "$0")" && pwd)/mpirun_rsh_agent.sh"
export RK_NETNS_HOSTMAP="$RK_WORK/hostmap"
: >"$RK_WORK/hostfile"
for ((i = 1; i <= n; i++)); do
  echo "$(rk_ctrl_ip "$i") $(rk_node "$i")" >>"$RK_NETNS_HOSTMAP"
  echo "$(rk_ctrl_ip "$i") slots=1" >>"$RK_WORK/hostfile"
done
# Nothing from the caller's launcher may leak into the ranks.
unset RANK WORLD_SIZE MASTER_ADDR MASTER_PORT UCX_NET_DEVICES
export UCX_TLS=tcp
# Components of OpenMPI and of its PMIx stay loaded at exit, so
# LeakSanitizer can name their allocations (tests/bench/lsan.supp).
export OMPI_MCA_mca_base_component_disable_dlclose=1 PMIX_MCA_mca_base_component_disable_dlclose=1
# ...and the slow unwinder walks through libmpi (built without frame
# pointers) so the suppressions can match it.
# Several orted share one machine here; their topology sharing (rtc/hwloc
# mapping hwloc's tree at a guessed hole of the address space) has crashed
# orted in CI, and it only saves memory, so it is off.
export OMPI_MCA_rtc_hwloc_vmhole=none
# ORTE's session directories (/tmp/ompi.<host>.<uid>/jf.<family>) are named
# from the host name and pids: every "node" here has the same host name, and a
# family left over by an earlier run made orted fail with 'File exists'. Each
# run gets its own base, removed with the fixture, and within it each node its
# own (RK_NETNS_OMPI_TMP/NODE, set for the orteds by the rsh agent): orteds of
# two nodes sharing one base raced on the same jf.<family> ('File exists').
export RK_NETNS_OMPI_TMP="$RK_WORK/ompi-tmp"
mkdir -p "$RK_NETNS_OMPI_TMP/$(rk_node 1)"
export OMPI_MCA_orte_tmpdir_base="$RK_NETNS_OMPI_TMP/$(rk_node 1)" TMPDIR="$RK_NETNS_OMPI_TMP/$(rk_node 1)"
# Sanitizer pass: the slow unwinder walks through libmpi (no frame pointers).
[[ -n "${ASAN_OPTIONS:-}" ]] && export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0"
rk_ucx_ranks_skip_leak_check
rk_um_snapshot "$n"
spec=${RK_UM_SPECS[$((n % ${#RK_UM_SPECS[@]}))]}
rc=0
# shellcheck disable=SC2086
rk_exec 1 timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" \
  --hostfile "$RK_WORK/hostfile" --mca plm_rsh_agent "$agent" \
  --mca oob_tcp_if_include eth0 --mca btl_tcp_if_include eth0 --mca pml ob1 --mca btl tcp,self --mca osc '^ucx' \
  "$rk" bench all --backend "$backend" --data-if =net1 -b 7 -e "$(rk_um_max)" -f 13 -n 2 -w 1 $spec \
  --stall-timeout 20 --json-out "$RK_WORK/out.json" >"$RK_WORK/out" 2>&1 || rc=$?
cat "$RK_WORK/out"
[[ $rc -eq 0 ]] || { echo "FAIL: mpirun exited $rc" >&2; exit 1; }
rk_um_check_output "$RK_WORK/out" "mpirun $backend $n ranks $spec"
grep -q "$backend net1" "$RK_WORK/out" || { echo "FAIL: rank lines do not show $backend on net1" >&2; exit 1; }
hosts=$(grep -c "^#  Rank" "$RK_WORK/out")
[[ $hosts -eq $n ]] || { echo "FAIL: $hosts rank lines, want $n" >&2; exit 1; }
grep -q '"bootstrap": "mpi"' "$RK_WORK/out.json" || { echo "FAIL: JSON does not say the mpi bootstrap ran" >&2; exit 1; }
rk_um_check_separation "$n"
