#!/usr/bin/env bash
# Compares railkit's tcp all_reduce with anchors built from Debian packages,
# all run in the netns setup the tests use (eth0 on a control bridge, net1 on
# a data bridge; tests/bench/netns/netns_lib.sh), for 2 and 3 ranks:
#   railkit   railkit bench all_reduce (tcp), env bootstrap, --data-if =net1
#   rk_ucx    the same with --backend ucx, UCX_TLS=tcp (when built with UCX)
#   gloo      gloo::allreduce, RING algorithm (the call PyTorch's
#             ProcessGroupGloo makes) over Gloo's TCP transport on net1
#   mpi       OpenMPI MPI_Allreduce, pml ob1, btl self,tcp on net1, mpirun
#             started in node 1 with an rsh agent entering the namespaces
#   ceiling   every node sending to the next and receiving from the previous
#             at once on plain TCP streams (a ring with nothing else in it):
#             per-direction GB/s, the best busbw a ring all_reduce can reach
# and, for 2 ranks, latency: railkit p2p's 2-byte one-way latency and 8-byte
# all_reduce time against a raw poll()/recv() ping-pong (anchors/pingpong.c).
#
# Measurement rules, the same for railkit and every anchor (the anchors'
# sources say how each follows them): float sum, in place (railkit's in-place
# column); per size one buffer, allocated and written before anything is
# timed and reused by every run (so no page fault or registration is timed;
# the ceiling reuses 1 MiB buffers at every size, to stay an upper bound);
# WARMUP untimed runs; a barrier; ITERS timed runs back to back; rank 0's
# mean time (railkit -a 0); busbw = bytes / time * 2(n-1)/n. Latency: p2p's
# LAT_ITERS timed round trips after its 2-byte bandwidth pass (LAT_ITERS/50
# messages), the ping-pong's LAT_ITERS after LAT_ITERS/50 untimed ones.
# Both ends of every latency run, railkit's and the ping-pong's alike, are
# pinned to the CPUs of LAT_CPUS (default "0 0": the same CPU): on the VMs
# these runs use, waking a thread on another, idle vCPU costs 35-40 us, ten
# times the whole one-way time, and whether the two ends shared a CPU was
# chance (a bimodal 3 us / 25 us spread, in the anchor as much as in
# railkit). LAT_CPUS="" leaves placement to the scheduler.
#
# Each run measures every anchor once; odd runs go in the order above, even
# runs in reverse, so each anchor has an independent re-run with the order
# swapped (Debian ships no Gloo benchmark binary to check against). Reported
# per anchor and size: the median of RUNS runs with min-max and spread. A
# result is flagged, and not turned into a ratio, when its spread is over
# 20%, when its forward and reversed runs disagree by over 20%, or when it
# is more than 3x off the previous compare.sh run (medians kept in
# $STATE_DIR/last). Ratios: median [min-max] of the per-run ratios.
# Needs root (namespaces). Installs the packages it needs (idempotent).
# Usage: benchmarks/compare.sh [RAILKIT_BINARY]
#   env: MIN=16M MAX=256M FACTOR=4 RANKS="2 3" RUNS=5 ITERS=5 WARMUP=1
#        CONNS=4 (railkit --connections and ceiling streams) LAT_ITERS=1000
#        LAT_CPUS="0 0" (CPU of rank 0 / the ping-pong client, of rank 1 / the server)
#        STATE_DIR (default ${XDG_STATE_HOME:-/tmp}/railkit-compare)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
rk=${1:-$repo/build/railkit}
MIN=${MIN:-16M} MAX=${MAX:-256M} FACTOR=${FACTOR:-4}
RANKS=${RANKS:-"2 3"} RUNS=${RUNS:-5} ITERS=${ITERS:-5} WARMUP=${WARMUP:-1} CONNS=${CONNS:-4}
LAT_ITERS=${LAT_ITERS:-1000}
LAT_CPUS=${LAT_CPUS-0 0}
read -r lat_cpu1 lat_cpu2 <<<"$LAT_CPUS"
[[ -z "$LAT_CPUS" || -n "${lat_cpu2:-}" ]] || { echo "LAT_CPUS: expected two CPU numbers or empty, found '$LAT_CPUS'" >&2; exit 2; }
STATE_DIR=${STATE_DIR:-${XDG_STATE_HOME:-/tmp}/railkit-compare}
[[ -x "$rk" ]] || { echo "railkit binary not found at $rk (pass its path)" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "compare.sh needs root (network namespaces)" >&2; exit 2; }
((RUNS >= 5)) || echo "# warning: RUNS=$RUNS; medians of fewer than 5 runs say little" >&2

need=()
dpkg -s libgloo-dev >/dev/null 2>&1 || need+=(libgloo-dev)
command -v mpicc >/dev/null || need+=(libopenmpi-dev)
command -v mpirun >/dev/null || need+=(openmpi-bin)
command -v g++ >/dev/null || need+=(g++)
command -v python3 >/dev/null || need+=(python3)
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
minb=$(bytes_of "$MIN") maxb=$(bytes_of "$MAX")
sizes=()
for ((b = minb; b <= maxb; b *= FACTOR)); do sizes+=("$b"); done
read -r -a rank_counts <<<"$RANKS"
maxn=0
for n in "${rank_counts[@]}"; do ((n > maxn)) && maxn=$n; done

source "$repo/tests/bench/netns/netns_lib.sh"
rk_netns_setup "$maxn"
W=$RK_WORK
echo "# building anchors in $W"
g++ -O2 -std=c++17 "$here/anchors/gloo_allreduce.cc" -o "$W/gloo_allreduce" -lgloo -lpthread
mpicc -O2 "$here/anchors/mpi_allreduce.c" -o "$W/mpi_allreduce"
gcc -O2 "$here/anchors/tcp_ceiling.c" -o "$W/tcp_ceiling" -lpthread
gcc -O2 "$here/anchors/pingpong.c" -o "$W/pingpong"
mkdir -p "$STATE_DIR"
: >"$W/results"
port=29800
n=2 run=1 order=f

# pin I: the taskset words that put node I's end of a latency run on its
# LAT_CPUS CPU (nothing outside latency runs or with LAT_CPUS empty).
pin() {
  [[ -n "${PINNED:-}" && -n "$LAT_CPUS" ]] || return 0
  if (($1 == 1)); then echo taskset -c "$lat_cpu1"; else echo taskset -c "$lat_cpu2"; fi
}
# rec NAME: reads "bytes value" lines and appends them to the results.
rec() { awk -v n="$n" -v name="$1" -v r="$run" -v o="$order" 'NF >= 2 { print n, name, r, o, $1, $2 }' >>"$W/results"; }
data_ips() { local i; for ((i = 1; i <= n; i++)); do rk_data_ip "$i"; done; }
# on_ranks CMD...: runs CMD in nodes n..2 in the background and in node 1 in
# the foreground, with RANK set; prints node 1's output.
# With PINNED set, each node's process runs on its LAT_CPUS CPU.
on_ranks() {
  local i pids=()
  for ((i = n; i >= 2; i--)); do
    # shellcheck disable=SC2046
    RANK=$((i - 1)) rk_exec "$i" $(pin "$i") "$@" >"$W/node$i.out" 2>&1 &
    pids+=($!)
  done
  # shellcheck disable=SC2046
  RANK=0 rk_exec 1 $(pin 1) "$@" 2>"$W/node1.err" || true
  for p in "${pids[@]}"; do wait "$p" || true; done
}
rk_args() {
  echo bench all_reduce --data-if =net1 --ctrl-if =eth0 -b "$minb" -e "$maxb" -f "$FACTOR" -n "$ITERS" -w "$WARMUP" \
    -c 0 -a 0 --stall-timeout 60
}
# in-place busbw is column 12 of the nccl-tests table
inplace_busbw() { awk '/^ +[0-9]+ +[0-9]+ +float/ { print $1, $12 }'; }

run_railkit() {
  port=$((port + 1))
  # shellcheck disable=SC2046
  MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=$port WORLD_SIZE=$n on_ranks "$rk" $(rk_args) --connections "$CONNS" |
    inplace_busbw | rec railkit
}
run_rk_ucx() {
  port=$((port + 1))
  # shellcheck disable=SC2046
  UCX_TLS=tcp MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=$port WORLD_SIZE=$n on_ranks "$rk" $(rk_args) --backend ucx |
    inplace_busbw | rec rk_ucx
}
run_gloo() {
  local store="$W/gloo.$run.$n.$RANDOM" i pids=()
  mkdir -p "$store"
  for ((i = n; i >= 2; i--)); do
    rk_exec "$i" "$W/gloo_allreduce" $((i - 1)) "$n" "$store" "$(rk_data_ip "$i")" "$minb" "$maxb" "$FACTOR" \
      "$ITERS" "$WARMUP" >/dev/null 2>&1 &
    pids+=($!)
  done
  rk_exec 1 "$W/gloo_allreduce" 0 "$n" "$store" "$(rk_data_ip 1)" "$minb" "$maxb" "$FACTOR" "$ITERS" "$WARMUP" |
    awk '{ print $1, $3 }' | rec gloo
  for p in "${pids[@]}"; do wait "$p" || true; done
}
run_mpi() {
  local i
  export RK_NETNS_HOSTMAP="$W/hostmap"
  : >"$RK_NETNS_HOSTMAP"
  : >"$W/hostfile"
  for ((i = 1; i <= n; i++)); do
    printf '%s %s\n' "$(rk_ctrl_ip "$i")" "$(rk_node "$i")" >>"$RK_NETNS_HOSTMAP"
    printf '%s slots=1\n' "$(rk_ctrl_ip "$i")" >>"$W/hostfile"
  done
  rk_exec 1 mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" --hostfile "$W/hostfile" \
    --mca plm_rsh_agent "$repo/tests/bench/netns/mpirun_rsh_agent.sh" --mca oob_tcp_if_include eth0 \
    --mca pml ob1 --mca btl self,tcp --mca btl_tcp_if_include net1 --mca osc '^ucx' \
    "$W/mpi_allreduce" "$minb" "$maxb" "$FACTOR" "$ITERS" "$WARMUP" 2>/dev/null | awk '{ print $1, $3 }' | rec mpi
}
run_ceiling() {
  local b i pids
  for b in "${sizes[@]}"; do
    port=$((port + 1))
    pids=()
    for ((i = n; i >= 2; i--)); do
      # shellcheck disable=SC2046
      rk_exec "$i" "$W/tcp_ceiling" $((i - 1)) "$port" "$CONNS" "$b" "$ITERS" "$WARMUP" $(data_ips) >/dev/null &
      pids+=($!)
    done
    # shellcheck disable=SC2046
    rk_exec 1 "$W/tcp_ceiling" 0 "$port" "$CONNS" "$b" "$ITERS" "$WARMUP" $(data_ips) | awk '{ print $1, $3 }' |
      rec ceiling
    for p in "${pids[@]}"; do wait "$p" || true; done
  done
}
# Latency, 2 ranks only: railkit p2p (typical one-way, column 5 of its
# latency line) and 8-byte all_reduce (in-place time, column 10), then the
# raw ping-pong with 2 bytes (one-way median) and 8 bytes (mean round trip).
run_latency() {
  ((n == 2)) || return 0
  local pp PINNED=1
  port=$((port + 1))
  MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=$port WORLD_SIZE=2 on_ranks "$rk" bench p2p --data-if =net1 \
    --ctrl-if =eth0 -e 2 -n $((LAT_ITERS / 50)) --stall-timeout 60 | awk '$1 == 2 && NF >= 9 { print 2, $5 }' |
    rec rk_p2p_2B
  port=$((port + 1))
  MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=$port WORLD_SIZE=2 on_ranks "$rk" bench all_reduce --data-if =net1 \
    --ctrl-if =eth0 -b 8 -e 8 -n "$LAT_ITERS" -w $((LAT_ITERS / 50)) -c 0 -a 0 --stall-timeout 60 |
    awk '/^ +8 +2 +float/ { print 8, $10 }' | rec rk_ar_8B
  for pp in 2 8; do
    port=$((port + 1))
    # shellcheck disable=SC2046
    rk_exec 2 $(pin 2) "$W/pingpong" server "$(rk_data_ip 2)" "$port" "$pp" "$LAT_ITERS" $((LAT_ITERS / 50)) &
    local p=$!
    # shellcheck disable=SC2046
    rk_exec 1 $(pin 1) "$W/pingpong" client "$(rk_data_ip 2)" "$port" "$pp" "$LAT_ITERS" $((LAT_ITERS / 50)) >"$W/pp.out"
    wait "$p" || true
    if ((pp == 2)); then awk '{ print $1, $2 }' "$W/pp.out" | rec pp_2B; else awk '{ print $1, $3 }' "$W/pp.out" | rec pp_rtt_8B; fi
  done
}

names=(railkit gloo mpi ceiling)
"$rk" bench all_reduce --backend ucx --local 1 -b 8 -e 8 >/dev/null 2>&1 && names=(railkit rk_ucx gloo mpi ceiling)
names+=(latency)
for n in "${rank_counts[@]}"; do
  for ((run = 1; run <= RUNS; run++)); do
    order=f list=("${names[@]}")
    if ((run % 2 == 0)); then
      order=r list=()
      for ((i = ${#names[@]} - 1; i >= 0; i--)); do list+=("${names[i]}"); done
    fi
    for name in "${list[@]}"; do
      echo "# $n ranks, run $run/$RUNS ($order): $name" >&2
      # One anchor failing (OpenMPI starved of CPU on a loaded 2-core
      # machine has) costs its results of this run, not the whole benchmark:
      # the report flags whatever has fewer results than runs.
      "run_$name" || echo "# $n ranks, run $run/$RUNS: $name failed (exit status $?); its results of this run are missing" >&2
    done
  done
done
cp "$W/results" "$STATE_DIR/results.raw"
echo "# $(date -u +%FT%TZ) $(uptime | sed 's/.*load/load/'); raw results: $STATE_DIR/results.raw"
echo "# latency runs pinned to CPUs: ${LAT_CPUS:-none (LAT_CPUS empty)}"
python3 "$here/compare_report.py" "$W/results" "$STATE_DIR/last"
