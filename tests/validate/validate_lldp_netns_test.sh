#!/usr/bin/env bash
# validate's Ethernet fabric check (phase 1, LLDP) end to end: 4 netns nodes
# whose two rails, net1 and net2, are veth pairs to two leaf namespaces,
# leaf-r0 and leaf-r1, that bridge their swp ports (net1 traffic between
# nodes flows through leaf-r0 as through a switch; a bridge does not forward
# LLDP, so each node hears only its leaf). Debian's lldpd runs in every leaf
# and node, each in a UTS namespace of its own; the leaves send their port
# names (portidsubtype ifname) every second. Each rank has its own --root
# (two RoCE NICs: mlx5_0 is net1, mlx5_1 is net2) and asks its own node's
# lldpd through --lldpctl 'lldpctl -u DIR/$(hostname).sock -f json':
#   1. as cabled: PASS, a fabric section of 4 nodes with LLDP, no finding;
#   2. node3's net2 moved to leaf-r0's spare port swp5: FAIL, with exactly
#      one fabric finding, rail-miscabled, naming node3 mlx5_1 on leaf-r0
#      port swp5.
# Tiny phase 3-4 sizes: a run takes a few seconds. Needs root, lldpd and jq;
# skips (77) without them.
# Usage: validate_lldp_netns_test.sh RAILKIT NODE_ROOT_TOOL
set -euo pipefail
source "$(dirname "$0")/../bench/netns/netns_lib.sh"
rk=$1 node_root=$2 n=4
for tool in lldpd lldpcli lldpctl unshare jq python3; do
  command -v "$tool" >/dev/null || rk_skip "$tool not installed (scripts/install-deps.sh installs lldpd and jq)"
done

fail() { echo "FAIL: $*" >&2; exit 1; }
leaf_ns() { echo "${RK_PREFIX}l$1"; }
leaves=()
cleanup_all() {
  local ns pids
  for ns in "${leaves[@]}"; do
    pids=$(ip netns pids "$ns" 2>/dev/null) || true
    [[ -n $pids ]] && kill -KILL $pids 2>/dev/null
    ip netns del "$ns" 2>/dev/null || true
  done
  rk_cleanup
}

rk_netns_begin
trap cleanup_all EXIT
# lldpd drops to its own user (_lldpd) once started: its sockets are in here.
chmod 755 "$RK_WORK"
RK_LLDPD_DIR=$RK_WORK
source "$(dirname "$0")/../support/lldpd_lib.sh"
for l in 0 1; do
  ip netns add "$(leaf_ns $l)" || fail "ip netns add leaf-r$l"
  leaves+=("$(leaf_ns $l)")
  ip -n "$(leaf_ns $l)" link set lo up
  ip -n "$(leaf_ns $l)" link add br0 type bridge
  ip -n "$(leaf_ns $l)" link set br0 up
done
# cable NODE RAIL LEAF PORT: node's net<RAIL> to leaf-r<LEAF>'s swp<PORT>,
# a port of its bridge; the rail's address is 198.18.(31+RAIL).(10+NODE)/24.
cable() {
  local node leaf
  node=$(rk_node "$1") leaf=$(leaf_ns "$3")
  ip link add "net$2" netns "$node" type veth peer name "swp$4" netns "$leaf" || fail "veth node$1 net$2"
  ip -n "$leaf" link set "swp$4" master br0 up
  ip -n "$node" addr add "198.18.$((31 + $2)).$((10 + $1))/24" dev "net$2"
  ip -n "$node" link set "net$2" up
}
# wait_neighbour NODE IFACE LEAF PORT: until node's lldpd hears exactly
# LEAF's PORT on IFACE (30 s at most; after a cable moved, the old neighbour
# stays until its TTL, 4 s at tx-interval 1, runs out).
wait_neighbour() {
  local i
  for ((i = 0; i < 300; i++)); do
    rk_lldpcli "$(rk_node "$1")" "node$1" -f json show neighbors >"$RK_WORK/heard$1.json" 2>/dev/null || true
    if jq -e --arg i "$2" --arg l "$3" --arg p "$4" '
        [.lldp.interface | if type == "array" then .[] else . end | to_entries[] |
         select(.key == $i) | .value] | length == 1 and .[0].chassis[$l] != null and .[0].port.id.value == $p' \
        "$RK_WORK/heard$1.json" >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.1
  done
  cat "$RK_WORK/heard$1.json" >&2
  fail "node$1 did not hear $3 $4 on $2 within 30 s"
}

for ((i = 1; i <= n; i++)); do
  rk_netns_add_node "$i" "eth0=$(rk_ctrl_ip "$i")/24"
  for r in 1 2; do
    cable "$i" "$r" "$((r - 1))" "$i"
    # As a multi-rail RoCE node is set (doctor checks it): only the
    # interface that owns an address answers ARP for it.
    rk_exec "$i" sysctl -qw "net.ipv4.conf.net$r.arp_ignore=1" "net.ipv4.conf.net$r.arp_announce=2"
  done
  "$node_root" "$RK_WORK/root$i" --roce --nics 2 --gpus 2 --netdev ens0f0np0=net1 --netdev ens1f0np0=net2 \
    --env NCCL_IB_HCA==mlx5_0,mlx5_1 || fail "railkit_node_root node$i"
done
for l in 0 1; do
  rk_lldpd_start "$(leaf_ns $l)" "leaf-r$l" 'swp*'
  for setting in "tx-interval 1" "portidsubtype ifname"; do
    # shellcheck disable=SC2086
    rk_lldpcli "$(leaf_ns $l)" "leaf-r$l" configure lldp $setting >/dev/null || fail "configure $setting"
  done
done
for ((i = 1; i <= n; i++)); do
  rk_lldpd_start "$(rk_node "$i")" "node$i" 'net1,net2'
  rk_lldpcli "$(rk_node "$i")" "node$i" configure lldp tx-interval 1 >/dev/null || fail "configure node$i"
done

export MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=29500 WORLD_SIZE=$n
# run_validate WANT: every rank once; rank 0 must exit WANT, the others 0.
run_validate() {
  local i
  MASTER_PORT=$((MASTER_PORT + 1))
  # Single-quoted: each rank's shell expands its own host name.
  rk_validate_start "$n" 60 "$rk" --live-net --data-if =net1 --ctrl-if =eth0 \
    --lldpctl "lldpctl -u $RK_WORK/"'$(hostname).sock -f json' \
    --expect-nics 2 --expect-gpus 2 -b 64K -e 256K -n 3 -w 1 --pairs-bytes 1M --pairs-iters 3 \
    --slow-fraction 0.07 --bootstrap-timeout 30 --stall-timeout 10
  rk_wait_all
  cat "$RK_WORK/out1"
  if [[ ${RK_RCS[0]} -ne $1 ]]; then
    for ((i = 2; i <= n; i++)); do echo "--- node$i"; cat "$RK_WORK/out$i"; done
    fail "rank 0 exited ${RK_RCS[0]}, expected $1"
  fi
  for ((i = 1; i < n; i++)); do
    [[ ${RK_RCS[$i]} -eq 0 ]] || { cat "$RK_WORK/out$((i + 1))"; fail "rank $i exited ${RK_RCS[$i]}"; }
  done
}

for ((i = 1; i <= n; i++)); do
  wait_neighbour "$i" net1 leaf-r0 "swp$i"
  wait_neighbour "$i" net2 leaf-r1 "swp$i"
done
run_validate 0
python3 - "$RK_WORK/validate.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["verdict"] == "pass", (doc["verdict"], doc["failures"])
f = doc["fabric"]
assert f["source"] == "lldp" and f["nodes_with_lldp"] == ["node1", "node2", "node3", "node4"], f
assert f["nodes_without_lldp"] == [] and f["findings"] == [], f
assert [f["fabric"][k] for k in ("leaves", "hosts", "hca_ports", "rails")] == [2, 4, 8, 2], f["fabric"]
rails = [(r["device"], [(c["leaf"], c["hcas"]) for c in r["leaves"]]) for r in f["rails"]]
assert rails == [("mlx5_0", [("leaf-r0", 4)]), ("mlx5_1", [("leaf-r1", 4)])], rails
heard = doc["nodes"][2]["lldp"]["neighbors"]
assert sorted((x["interface"], x["device"], x["chassis_name"], x["port_name"]) for x in heard) == [
    ("net1", "mlx5_0", "leaf-r0", "swp3"), ("net2", "mlx5_1", "leaf-r1", "swp3")], heard
print("ok: as cabled, PASS, 4 nodes with LLDP, rails mlx5_0 on leaf-r0 and mlx5_1 on leaf-r1, no finding")
PY

# Move node3's net2 to leaf-r0's spare port.
ip -n "$(rk_node 3)" link del net2 || fail "unplug node3 net2"
cable 3 2 0 5
wait_neighbour 3 net2 leaf-r0 swp5
run_validate 1
python3 - "$RK_WORK/validate.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["verdict"] == "fail", doc["verdict"]
found = [f"{x['id']} {x['subject']}: {x['message']}" for x in doc["fabric"]["findings"]]
want = ("rail-miscabled node3 mlx5_1: node3 mlx5_1 (rail 1) is on leaf-r0 port swp5; leaf-r0 holds rail 0 "
        "(4 of its HCAs are mlx5_0); the 3 other nodes' rail 1 are on leaf-r1")
assert found == [want], found
fabric_failures = [x for x in doc["failures"] if x.startswith("fabric: ")]
assert fabric_failures == ["fabric: [" + want.replace(" node3 mlx5_1:", "] node3 mlx5_1:", 1)], doc["failures"]
print("ok: node3's moved cable, FAIL, one finding: " + want)
PY
grep -q "^VERDICT: FAIL" "$RK_WORK/out1" || fail "no FAIL verdict in rank 0's output"
grep -qF "  [rail-miscabled] node3 mlx5_1: node3 mlx5_1 (rail 1) is on leaf-r0 port swp5" "$RK_WORK/out1" ||
  fail "rank 0's output does not name node3's moved cable"
echo "ok: validate read LLDP from 4 netns nodes; as cabled PASS, node3's moved rail-1 cable failed the run"
