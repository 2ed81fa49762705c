#!/usr/bin/env bash
# Compares railkit's tcp all_reduce with anchors built from Debian packages,
# all run in the same 2-node network-namespace setup the tests use (eth0 on
# a control bridge, net1 on a data bridge; tests/bench/netns/netns_lib.sh):
#   railkit   railkit bench all_reduce, env bootstrap, --data-if =net1
#   rk_ucx    the same with --backend ucx (UCX_TLS=tcp; when built with UCX)
#   gloo      Gloo's AllreduceRing over its TCP transport on net1 (libgloo-dev)
#   mpi       OpenMPI MPI_Allreduce, pml ob1, btl self,tcp on net1, mpirun
#             started in node 1 with an rsh agent entering the namespaces
#   ceiling   both nodes sending and receiving at once on plain TCP streams
#             (the traffic of a 2-rank ring): per-direction GB/s
#   ucx       ucx_perftest tag_bw, UCX_TLS=tcp on net1 (one-way, for reference)
# Same sizes for all, median of RUNS runs each. Prints busbw (GB/s) per size
# and the ratios railkit/gloo, railkit/mpi, railkit/ceiling.
# Needs root (namespaces). Installs the packages it needs (idempotent).
# Usage: benchmarks/compare.sh [RAILKIT_BINARY]
#   env: SIZES="64M 128M 256M" RUNS=3 ITERS=5 CONNS=4 (railkit --connections)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
rk=${1:-$repo/build/railkit}
SIZES=${SIZES:-"64M 128M 256M"}
RUNS=${RUNS:-3}
ITERS=${ITERS:-5}
CONNS=${CONNS:-4}
[[ -x "$rk" ]] || { echo "railkit binary not found at $rk (pass its path)" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "compare.sh needs root (network namespaces)" >&2; exit 2; }

need=()
dpkg -s libgloo-dev >/dev/null 2>&1 || need+=(libgloo-dev)
command -v mpicc >/dev/null || need+=(libopenmpi-dev)
command -v mpirun >/dev/null || need+=(openmpi-bin)
command -v ucx_perftest >/dev/null || need+=(ucx-utils)
command -v g++ >/dev/null || need+=(g++)
if ((${#need[@]})); then
  echo "# installing ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}" >/dev/null
fi

bytes_of() {
  local s=$1
  case $s in
    *G) echo $(( ${s%G} << 30 )) ;; *M) echo $(( ${s%M} << 20 )) ;; *K) echo $(( ${s%K} << 10 )) ;; *) echo "$s" ;;
  esac
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

source "$repo/tests/bench/netns/netns_lib.sh"
rk_netns_setup 2
W=$RK_WORK
echo "# building anchors in $W"
g++ -O2 -std=c++17 "$here/anchors/gloo_allreduce.cc" -o "$W/gloo_allreduce" -lgloo -lpthread
mpicc -O2 "$here/anchors/mpi_allreduce.c" -o "$W/mpi_allreduce"
gcc -O2 "$here/anchors/tcp_ceiling.c" -o "$W/tcp_ceiling" -lpthread

read -r -a sizes <<<"$SIZES"
minb=$(bytes_of "${sizes[0]}")
maxb=$(bytes_of "${sizes[-1]}")
ip1=$(rk_data_ip 1) ip2=$(rk_data_ip 2)
port=29800

# Each runner appends "bytes busbw" lines to $W/<name>.
run_railkit() {
  local out0 out1
  port=$((port + 1))
  local args=(bench all_reduce --data-if =net1 --ctrl-if =eth0 -b "$minb" -e "$maxb" -f 2 -n "$ITERS" -w 1 -c 0
              --connections "$CONNS" --stall-timeout 60)
  MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=$port WORLD_SIZE=2 RANK=1 \
    rk_exec 2 "$rk" "${args[@]}" >"$W/rk1.out" 2>&1 &
  local p1=$!
  MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=$port WORLD_SIZE=2 RANK=0 \
    rk_exec 1 "$rk" "${args[@]}" >"$W/rk0.out" 2>&1
  wait "$p1"
  # in-place busbw (column 12), as Gloo runs in place
  awk '/^ +[0-9]+ +[0-9]+ +float/ { print $1, $12 }' "$W/rk0.out" >>"$W/railkit"
}
run_rk_ucx() {
  port=$((port + 1))
  local args=(bench all_reduce --backend ucx --data-if =net1 --ctrl-if =eth0 -b "$minb" -e "$maxb" -f 2 -n "$ITERS"
              -w 1 -c 0 --stall-timeout 60)
  UCX_TLS=tcp MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=$port WORLD_SIZE=2 RANK=1 \
    rk_exec 2 "$rk" "${args[@]}" >"$W/ru1.out" 2>&1 &
  local p1=$!
  UCX_TLS=tcp MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=$port WORLD_SIZE=2 RANK=0 \
    rk_exec 1 "$rk" "${args[@]}" >"$W/ru0.out" 2>&1 || true
  wait "$p1" || true
  awk '/^ +[0-9]+ +[0-9]+ +float/ { print $1, $12 }' "$W/ru0.out" >>"$W/rk_ucx"
}
run_gloo() {
  local store="$W/gloo.$RANDOM"
  mkdir -p "$store"
  rk_exec 2 "$W/gloo_allreduce" 1 2 "$store" "$ip2" "$minb" "$maxb" "$ITERS" >/dev/null &
  local p1=$!
  rk_exec 1 "$W/gloo_allreduce" 0 2 "$store" "$ip1" "$minb" "$maxb" "$ITERS" | awk '{ print $1, $3 }' >>"$W/gloo"
  wait "$p1"
}
run_mpi() {
  export RK_NETNS_HOSTMAP="$W/hostmap"
  printf '%s %s\n%s %s\n' "$(rk_ctrl_ip 1)" "$(rk_node 1)" "$(rk_ctrl_ip 2)" "$(rk_node 2)" >"$RK_NETNS_HOSTMAP"
  printf '%s slots=1\n%s slots=1\n' "$(rk_ctrl_ip 1)" "$(rk_ctrl_ip 2)" >"$W/hostfile"
  rk_exec 1 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 --hostfile "$W/hostfile" \
    --mca plm_rsh_agent "$repo/tests/bench/netns/mpirun_rsh_agent.sh" --mca oob_tcp_if_include eth0 \
    --mca pml ob1 --mca btl self,tcp --mca btl_tcp_if_include net1 --mca osc '^ucx' \
    "$W/mpi_allreduce" "$minb" "$maxb" "$ITERS" 2>/dev/null | awk '{ print $1, $3 }' >>"$W/mpi"
}
run_ceiling() {
  local b s=$CONNS
  for sz in "${sizes[@]}"; do
    b=$(bytes_of "$sz")
    port=$((port + 1))
    # each direction moves what a 2-rank ring all_reduce of b bytes moves: b
    rk_exec 2 "$W/tcp_ceiling" server "$ip2" "$port" "$s" $((b / s)) >/dev/null &
    local p1=$!
    rk_exec 1 "$W/tcp_ceiling" client "$ip2" "$port" "$s" $((b / s)) "$ip1" | awk -v b="$b" '{ print b, $1 }' >>"$W/ceiling"
    wait "$p1"
  done
}
run_ucx() {
  local b
  for sz in "${sizes[@]}"; do
    b=$(bytes_of "$sz")
    port=$((port + 1))
    UCX_TLS=tcp UCX_NET_DEVICES=net1 rk_exec 2 ucx_perftest -p "$port" >/dev/null 2>&1 &
    local p1=$!
    sleep 0.5
    UCX_TLS=tcp UCX_NET_DEVICES=net1 rk_exec 1 ucx_perftest "$ip2" -p "$port" -t tag_bw -s "$b" -n "$ITERS" -w 1 -f \
      2>/dev/null | awk -v b="$b" 'NF == 8 && $1 ~ /^[0-9]+$/ { printf "%s %.3f\n", b, $6 * 1048576 / 1e9 }' >>"$W/ucx"
    wait "$p1" || true
  done
}

names=(railkit gloo mpi ceiling ucx)
"$rk" bench all_reduce --backend ucx --local 1 -b 8 -e 8 >/dev/null 2>&1 && names+=(rk_ucx)
for name in "${names[@]}"; do : >"$W/$name"; done
for ((r = 1; r <= RUNS; r++)); do
  for name in "${names[@]}"; do
    echo "# run $r/$RUNS: $name" >&2
    "run_$name"
  done
done

printf '\n# 2 ranks (netns nodes, data on net1), all_reduce float sum, busbw GB/s, median of %d runs\n' "$RUNS"
printf '%12s %9s %9s %9s %9s %11s %8s %8s %10s %8s\n' bytes railkit gloo mpi ceiling ucx_1way rk/gloo rk/mpi rk/ceiling rk_ucx
for sz in "${sizes[@]}"; do
  b=$(bytes_of "$sz")
  declare -A m=()
  for name in railkit gloo mpi ceiling ucx rk_ucx; do
    [[ -f $W/$name ]] || { m[$name]=-; continue; }
    m[$name]=$(awk -v b="$b" '$1 == b { print $2 }' "$W/$name" | median)
  done
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "nan" }'; }
  printf '%12s %9s %9s %9s %9s %11s %8s %8s %10s %8s\n' "$b" "${m[railkit]}" "${m[gloo]}" "${m[mpi]}" "${m[ceiling]}" \
    "${m[ucx]}" "$(ratio "${m[railkit]}" "${m[gloo]}")" "$(ratio "${m[railkit]}" "${m[mpi]}")" \
    "$(ratio "${m[railkit]}" "${m[ceiling]}")" "${m[rk_ucx]}"
done
