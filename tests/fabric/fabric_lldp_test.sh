#!/usr/bin/env bash
# railkit fabric --lldp on a RoCE fabric made of network namespaces: 4 nodes
# with two rail interfaces each (eth0, eth1) cabled by veth pairs to two leaf
# namespaces (leaf-r0, leaf-r1), every one running Debian's lldpd in a UTS
# namespace of its own, so that each announces its own name. The leaves send
# their port names as port ids, as switches do. What `lldpctl -f json`
# prints on each node is what railkit reads:
#   1. as cabled: no finding, one block of two leaves;
#   2. node003's rail-1 cable moved to leaf-r0's spare port swp9: that cable
#      is named, with the leaf and port it is on and the leaf it belongs to.
# Needs root; skips (77) without it or lldpd.
# Usage: fabric_lldp_test.sh RAILKIT
set -uo pipefail
railkit=$(realpath "$1")

skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || skip "needs root (network namespaces)"
for tool in lldpd lldpcli lldpctl unshare jq ip; do
  command -v "$tool" >/dev/null || skip "$tool not installed (scripts/install-deps.sh installs lldpd and jq)"
done

prefix=rk-lldp-$$
nodes=4
work=$(mktemp -d /tmp/railkit-lldp.XXXXXX)
# lldpd drops to its own user (_lldpd) once started: its sockets and pid files are in here.
chmod 755 "$work"
RK_LLDPD_DIR=$work
source "$(dirname "$0")/../support/lldpd_lib.sh"
namespaces=()
cleanup() {
  rk_netns_delete "${namespaces[@]}"
  rm -rf "$work"
}
trap cleanup EXIT

addns() { ip netns add "$1" || fail "ip netns add $1"; namespaces+=("$1"); ip -n "$1" link set lo up; }
node_ns() { printf '%s-n%d' "$prefix" "$1"; }
leaf_ns() { printf '%s-l%d' "$prefix" "$1"; }
# cable NODE RAIL LEAF PORT: the node's eth<RAIL> to the leaf's swp<PORT>.
cable() {
  ip link add "eth$2" netns "$(node_ns "$1")" type veth peer name "swp$4" netns "$(leaf_ns "$3")" ||
    fail "veth node$1 eth$2 - leaf-r$3 swp$4"
  ip -n "$(node_ns "$1")" link set "eth$2" up
  ip -n "$(leaf_ns "$3")" link set "swp$4" up
}

for l in 0 1; do addns "$(leaf_ns $l)"; done
for n in $(seq 1 $nodes); do
  addns "$(node_ns "$n")"
  for r in 0 1; do cable "$n" "$r" "$r" "$n"; done
done
for l in 0 1; do rk_lldpd_start "$(leaf_ns $l)" "leaf-r$l" 'swp*'; done
for n in $(seq 1 $nodes); do rk_lldpd_start "$(node_ns "$n")" "$(printf 'node%03d' "$n")" 'eth0,eth1'; done
# Every second instead of every 30 s; the leaves name their ports.
for l in 0 1; do
  for setting in "tx-interval 1" "portidsubtype ifname"; do
    # shellcheck disable=SC2086
    rk_lldpcli "$(leaf_ns $l)" "leaf-r$l" configure lldp $setting >/dev/null || fail "lldpcli configure $setting"
  done
done
for n in $(seq 1 $nodes); do
  rk_lldpcli "$(node_ns "$n")" "$(printf 'node%03d' "$n")" configure lldp tx-interval 1 >/dev/null
done

# wait_neighbours NODE IFACE LEAF PORT: until NODE's lldpd hears LEAF's PORT
# on IFACE and nothing else there (30 s at most; about 2 s here, 5 s after a
# cable moved), then keeps the capture.
wait_neighbours() {
  local name i
  name=$(printf 'node%03d' "$1")
  for ((i = 0; i < 300; i++)); do
    rk_lldpcli "$(node_ns "$1")" "$name" -f json show neighbors >"$work/$name.json" 2>/dev/null
    # Exactly that neighbour on the interface: after a cable moved, the old
    # one stays until its TTL (4 s at tx-interval 1) runs out.
    if jq -e --arg i "$2" --arg l "$3" --arg p "$4" '
        [.lldp.interface | if type == "array" then .[] else . end | to_entries[] |
         select(.key == $i) | .value] | length == 1 and .[0].chassis[$l] != null and .[0].port.id.value == $p' \
        "$work/$name.json" >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.1
  done
  cat "$work/$name.json" >&2
  fail "$name did not hear $3 $4 on $2 within 30 s"
}
captures() {
  local n
  for n in $(seq 1 $nodes); do printf -- '--lldp %s/node%03d.json ' "$work" "$n"; done
}

for n in $(seq 1 $nodes); do
  wait_neighbours "$n" eth0 leaf-r0 "swp$n"
  wait_neighbours "$n" eth1 leaf-r1 "swp$n"
done
# shellcheck disable=SC2046
"$railkit" fabric --json --data-if eth0,eth1 $(captures) >"$work/healthy.json"
rc=$?
[[ $rc -eq 0 ]] || fail "as cabled: expected exit 0, found $rc: $(jq -c '.findings' "$work/healthy.json")"
shape=$(jq -c '[.fabric.leaves, .fabric.hosts, .fabric.hca_ports, .fabric.rails, (.findings | length),
  (.tiers[0].groups | length)]' "$work/healthy.json")
[[ $shape == '[2,4,8,2,0,1]' ]] || fail "as cabled: leaves, hosts, ports, rails, findings, blocks: $shape"

# Move node003's rail-1 cable to leaf-r0's spare port.
ip -n "$(node_ns 3)" link del eth1 || fail "unplug node003 eth1"
cable 3 1 0 9
wait_neighbours 3 eth1 leaf-r0 swp9
# shellcheck disable=SC2046
"$railkit" fabric --json --data-if eth0,eth1 $(captures) >"$work/moved.json"
rc=$?
[[ $rc -eq 1 ]] || fail "a moved cable: expected exit 1, found $rc"
ports=$(jq '.fabric.hca_ports' "$work/moved.json")
[[ $ports -eq 8 ]] || fail "a moved cable: expected 8 ports, found $ports"
found=$(jq -r '.findings[] | "\(.id) \(.subject): \(.message)"' "$work/moved.json")
expected="rail-miscabled node003 eth1: node003 eth1 (rail 1) is on leaf-r0 port swp9; leaf-r0 holds rail 0 (4 of its HCAs are eth0); the 3 other nodes' rail 1 are on leaf-r1"
[[ $found == "$expected" ]] || fail "a moved cable: expected exactly
  $expected
found
  $found"
"$railkit" fabric --data-if eth0,eth1 $(captures) || true
echo "ok: lldpd in 6 namespaces; as cabled no finding, node003's moved rail-1 cable named with leaf-r0 port swp9"
