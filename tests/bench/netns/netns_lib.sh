#!/usr/bin/env bash
# Multi-node fixture for railkit bench tests: N network namespaces act as
# "nodes", each with eth0 on a control bridge and net1 on a data bridge.
# The bridges live in their own namespace, so the host's interfaces, routes
# and DNS are never touched. Subnets come from the 198.18.0.0/15 benchmark
# range and are checked against the host's routes before use.
# Usage: source this file, call rk_netns_setup N, use rk_node I (name of
# node I, 1-based), rk_ctrl_ip I / rk_data_ip I; cleanup runs from a trap.
# Nodes with other interfaces (the pod runner, tests/k8s/podrun): call
# rk_netns_begin, then rk_netns_add_node I IFACE=ADDR/PREFIX... per node
# (eth0 goes on the control bridge, every other interface on the data bridge).
# RK_WORK_BASE (default /tmp) is where the scratch directory goes.

RK_SKIP=77
RK_PREFIX="rk$$"
RK_NODES=0
RK_CTRL_NET="198.18.10"
RK_DATA_NET="198.18.20"
RK_WORK=""
RK_WORK_BASE=${RK_WORK_BASE:-/tmp}

rk_skip() { echo "SKIP: $*" >&2; exit "$RK_SKIP"; }

# rk_ucx_ranks_skip_leak_check: call before starting ranks that load UCX
# (--backend ucx, or Open MPI's ranks under mpirun). In the sanitizer pass,
# clang 14's LeakSanitizer crashed now and then in its own stop-the-world
# tracer at such a rank's exit ("Tracer caught signal 11", "LeakSanitizer has
# encountered a fatal error", exit 134; google/sanitizers#1353): 2 of about 10
# UCX ranks in one clean-clone make test with make fuzz beside them, none of
# 12 runs on an idle machine. Leak checking is off for these ranks only; ASan
# and UBSan still check them, and bench_ucx_e2e_tests' --local ranks run the
# same UCX code with leak checking on.
rk_ucx_ranks_skip_leak_check() {
  if [[ -n "${ASAN_OPTIONS:-}" ]]; then export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"; fi
}

rk_node() { echo "${RK_PREFIX}n$1"; }
rk_ctrl_ip() { echo "${RK_CTRL_NET}.$(( $1 + 10 ))"; }
rk_data_ip() { echo "${RK_DATA_NET}.$(( $1 + 10 ))"; }
rk_exec() { local i=$1; shift; ip netns exec "$(rk_node "$i")" "$@"; }
# rk_throttle I RATE [LATENCY]: node I's net1 limited to RATE (tc tbf, e.g.
# 100mbit) with a queue of LATENCY (100ms unless given); skips the test where
# tc or the tbf qdisc is missing.
# The throttled node's net1 neighbours are pinned both ways (permanent ARP
# entries): the tbf queue that TCP keeps full also drops ARP probes and
# replies, and a neighbour entry gone FAILED stalls every stream to that peer
# past --stall-timeout (seen once in a full run: phase 4 of
# validate_netns_degraded, "lost rank 0: Connection timed out" after ~30 s
# without traffic between the two). Call it once the nodes exist.
rk_throttle() {
  local i=$1 j ip_i mac_i ip_j mac_j
  command -v tc >/dev/null || rk_skip "tc (iproute2) not found"
  rk_exec "$i" tc qdisc add dev net1 root tbf rate "$2" burst 64kb latency "${3:-100ms}" \
    || rk_skip "cannot add a tbf qdisc here"
  ip_i=$(rk_net1_ipv4 "$i") mac_i=$(rk_exec "$i" cat /sys/class/net/net1/address)
  for ((j = 1; j <= RK_NODES; j++)); do
    [[ $j -eq $i ]] && continue
    ip_j=$(rk_net1_ipv4 "$j") mac_j=$(rk_exec "$j" cat /sys/class/net/net1/address)
    [[ -n $ip_j && -n $ip_i ]] || continue
    rk_exec "$i" ip neigh replace "$ip_j" lladdr "$mac_j" dev net1 nud permanent
    rk_exec "$j" ip neigh replace "$ip_i" lladdr "$mac_i" dev net1 nud permanent
  done
}

# rk_net1_ipv4 I: node I's first IPv4 address on net1 (empty when none).
rk_net1_ipv4() {
  rk_exec "$1" ip -4 -o addr show dev net1 | awk '{sub(/\/.*/, "", $4); print $4; exit}'
}

rk_cleanup() {
  local i pids
  # Processes left in a node (a pod that did not end) would keep its
  # namespace alive after the name is gone: they are ours, end them.
  for ((i = 1; i <= RK_NODES; i++)); do
    pids=$(ip netns pids "$(rk_node "$i")" 2>/dev/null) || true
    [[ -n "$pids" ]] && kill -KILL $pids 2>/dev/null
    ip netns del "$(rk_node "$i")" 2>/dev/null || true
  done
  ip netns del "${RK_PREFIX}br" 2>/dev/null || true
  [[ -n "$RK_WORK" ]] && rm -rf "$RK_WORK"
  return 0
}

rk_check_prereqs() {
  [[ $(id -u) -eq 0 ]] || rk_skip "netns tests need root (running as uid $(id -u))"
  command -v ip >/dev/null || rk_skip "iproute2 'ip' not found"
  ip netns add "${RK_PREFIX}probe" 2>/dev/null || rk_skip "cannot create network namespaces here"
  ip netns del "${RK_PREFIX}probe"
  # The chosen subnets must not overlap anything the host routes.
  if ip route show | grep -Eq '^(198\.1[89]\.|default.*198\.1[89]\.)'; then
    rk_skip "host already routes 198.18.0.0/15; refusing to shadow it"
  fi
}

# rk_netns_begin: checks, the trap, the scratch directory and the bridge
# namespace (ctrlbr and databr).
rk_netns_begin() {
  local br="${RK_PREFIX}br"
  rk_check_prereqs
  trap rk_cleanup EXIT
  trap 'exit 130' INT TERM
  RK_WORK=$(mktemp -d "${RK_WORK_BASE}/${RK_PREFIX}.XXXXXX")
  ip netns add "$br"
  ip -n "$br" link set lo up
  ip -n "$br" link add ctrlbr type bridge
  ip -n "$br" link add databr type bridge
  ip -n "$br" link set ctrlbr up
  ip -n "$br" link set databr up
  : >"$RK_WORK/hosts"
}

# rk_netns_add_node I IFACE=ADDR/PREFIX...: node I with one veth per
# interface, eth0 on the control bridge, the others on the data bridge.
rk_netns_add_node() {
  local i=$1 node br="${RK_PREFIX}br" spec name addr k=0 bridge
  shift
  node=$(rk_node "$i")
  ip netns add "$node"
  (( i > RK_NODES )) && RK_NODES=$i
  ip -n "$node" link set lo up
  for spec in "$@"; do
    name=${spec%%=*} addr=${spec#*=} k=$((k + 1))
    bridge=databr
    [[ $name == eth0 ]] && bridge=ctrlbr
    ip link add "${RK_PREFIX}v$i.$k" netns "$node" type veth peer name "v$i.$k" netns "$br"
    ip -n "$node" link set "${RK_PREFIX}v$i.$k" name "$name"
    ip -n "$br" link set "v$i.$k" master "$bridge" up
    ip -n "$node" addr add "$addr" dev "$name"
    ip -n "$node" link set "$name" up
  done
}

# rk_netns_setup N: create bridge namespace + N nodes; install the trap.
rk_netns_setup() {
  local n=$1 i
  rk_netns_begin
  for ((i = 1; i <= n; i++)); do
    rk_netns_add_node "$i" "eth0=$(rk_ctrl_ip "$i")/24" "net1=$(rk_data_ip "$i")/24"
    echo "$(rk_ctrl_ip "$i") node$i" >>"$RK_WORK/hosts"
  done
}

# Starts `railkit validate` (binary $3) as ranks 0..N-1 on nodes 1..N ($1),
# each its own host (a UTS namespace with hostname nodeI), under `timeout $2`,
# with --root $RK_WORK/rootI and the arguments after $3; rank 0 also writes
# $RK_WORK/validate.json. Output goes to $RK_WORK/outI; the pids to RK_PIDS.
# The caller exports MASTER_ADDR, MASTER_PORT and WORLD_SIZE.
rk_validate_start() {
  local n=$1 seconds=$2 rk=$3 i
  shift 3
  RK_PIDS=()
  for ((i = 1; i <= n; i++)); do
    local extra=()
    [[ $i -eq 1 ]] && extra=(--json-out "$RK_WORK/validate.json")
    RANK=$((i - 1)) rk_exec "$i" unshare --uts sh -c 'hostname "$0" && exec "$@"' "node$i" \
      timeout "$seconds" "$rk" validate --root "$RK_WORK/root$i" "$@" "${extra[@]}" >"$RK_WORK/out$i" 2>&1 &
    RK_PIDS+=($!)
  done
}

# Waits for every pid in RK_PIDS; their exit statuses go to RK_RCS, in order.
rk_wait_all() {
  local p rc
  RK_RCS=()
  for p in "${RK_PIDS[@]}"; do
    rc=0
    wait "$p" || rc=$?
    RK_RCS+=("$rc")
  done
}

# rk_iface_bytes I IFACE: rx+tx bytes of IFACE inside node I.
rk_iface_bytes() {
  local s="/sys/class/net/$2/statistics"
  rk_exec "$1" sh -c "echo \$(( \$(cat $s/rx_bytes) + \$(cat $s/tx_bytes) ))"
}

# rk_tcp_probe I J ctrl|data: node I connects to node J's address on that
# plane; fails when unreachable within 3 s.
rk_tcp_probe() {
  local ip
  if [[ $3 == ctrl ]]; then ip=$(rk_ctrl_ip "$2"); else ip=$(rk_data_ip "$2"); fi
  rk_exec "$2" python3 -c "
import socket; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('$ip', 7777)); s.listen(1); s.settimeout(5)
c,_=s.accept(); c.close()" &
  local srv=$! ok=1 t
  for t in 1 2 3 4 5 6; do
    if rk_exec "$1" timeout 1 bash -c "exec 3<>/dev/tcp/$ip/7777" 2>/dev/null; then ok=0; break; fi
    sleep 0.5
  done
  wait "$srv" || ok=1
  [[ $ok -eq 0 ]] || { echo "FAIL: node$1 cannot reach node$2 on $3 ($ip)" >&2; return 1; }
}
