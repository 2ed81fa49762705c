#!/usr/bin/env bash
# The RoCE multi-rail rules against real kernel state. A network namespace
# gets two veth interfaces (their peers stay in it too) in one IPv4 subnet; a --root fixture makes them
# the netdevs of two RoCE devices (rxe0, rxe1). `railkit doctor --root
# FIXTURE --live-net`, run inside the namespace, reads the namespace's own
# addresses, `ip rule`/routes (netlink) and /proc/sys/net/ipv4/conf sysctls:
#   1. no policy routing, rp_filter=1, arp_ignore/arp_announce=0: the three
#      roce-multirail-* findings for both rails;
#   2. a live snapshot taken in the namespace carries that state in
#      railkit/live.json, and `doctor --root SNAPSHOT` outside the namespace
#      reproduces the findings;
#   3. after `ip rule` + per-rail tables, rp_filter=2, arp_ignore=1 and
#      arp_announce=2 on each rail (conf/all/rp_filter left at 1): none of them.
# Usage: roce_multirail_netns_test.sh RAILKIT
set -u
RK=$1
SKIP=77
NS="rkmr$$"
WORK=""

skip() { echo "SKIP: $*" >&2; exit "$SKIP"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
cleanup() {
  ip netns del "$NS" 2>/dev/null
  [[ -n "$WORK" ]] && rm -rf "$WORK"
  return 0
}

[[ $(id -u) -eq 0 ]] || skip "needs root for network namespaces (running as uid $(id -u))"
command -v ip >/dev/null || skip "iproute2 'ip' not found"
trap cleanup EXIT
trap 'exit 130' INT TERM
ip netns add "$NS" 2>/dev/null || skip "cannot create network namespaces here"
for i in 0 1; do
  ip -n "$NS" link add "rkmr$i" type veth peer name "rkmr${i}p" 2>/dev/null || skip "no veth interfaces here"
  ip -n "$NS" addr add "10.77.0.$((i + 1))/24" dev "rkmr$i" || fail "cannot address rkmr$i"
  ip -n "$NS" link set "rkmr${i}p" up && ip -n "$NS" link set "rkmr$i" up || fail "cannot bring rkmr$i up"
done
ip -n "$NS" link set lo up
WORK=$(mktemp -d /tmp/rkmr.XXXXXX)
ROOT=$WORK/root

# The fixture: two RoCE devices whose port 1 GIDs belong to rkmr0/rkmr1.
for i in 0 1; do
  p=$ROOT/sys/class/infiniband/rxe$i/ports/1
  mkdir -p "$p/gids" "$p/gid_attrs/ndevs" "$p/gid_attrs/types" "$ROOT/sys/class/net/rkmr$i"
  echo "4: ACTIVE" >"$p/state"
  echo "5: LinkUp" >"$p/phys_state"
  echo "Ethernet" >"$p/link_layer"
  echo "0000:0000:0000:0000:0000:ffff:0a4d:000$((i + 1))" >"$p/gids/0"
  echo "RoCE v2" >"$p/gid_attrs/types/0"
  echo "rkmr$i" >"$p/gid_attrs/ndevs/0"
  printf '1\n' >"$ROOT/sys/class/net/rkmr$i/type"
  printf 'up\n' >"$ROOT/sys/class/net/rkmr$i/operstate"
  printf '9000\n' >"$ROOT/sys/class/net/rkmr$i/mtu"
done

conf() {  # conf IFACE NAME VALUE: an IPv4 sysctl inside the namespace
  ip netns exec "$NS" sh -c "echo $3 > /proc/sys/net/ipv4/conf/$1/$2" || fail "cannot set $1/$2=$3 in $NS"
}
count() {  # count ID FILE: findings with that id
  grep -o "\"id\": \"$1\"" "$2" | wc -l
}
expect() {  # expect ID N FILE WHAT
  local n
  n=$(count "$1" "$3")
  [[ $n -eq $2 ]] || { cat "$3" >&2; fail "$4: $n $1 finding(s), expected $2"; }
}

# 1. Broken: no policy routing, strict rp_filter, default ARP sysctls.
for c in all rkmr0 rkmr1; do
  conf "$c" rp_filter 1
  conf "$c" arp_ignore 0
  conf "$c" arp_announce 0
done
ip netns exec "$NS" "$RK" doctor --root "$ROOT" --live-net --json >"$WORK/before.json"
rc=$?
[[ $rc -eq 1 ]] || { cat "$WORK/before.json" >&2; fail "doctor exit $rc before the fix, expected 1 (errors)"; }
for id in roce-multirail-no-policy-routing roce-multirail-rp-filter roce-multirail-arp; do
  expect "$id" 2 "$WORK/before.json" "before the fix"
done
grep -q '/proc/sys/net/ipv4/conf/rkmr1/rp_filter' "$WORK/before.json" || fail "no rp_filter evidence for rkmr1"
# Outside the namespace the same fixture has no addresses for rkmr*: nothing to judge.
"$RK" doctor --root "$ROOT" --live-net --json >"$WORK/outside.json"
expect roce-multirail-no-policy-routing 0 "$WORK/outside.json" "outside the namespace"

# 2. A live snapshot in the namespace captures the routing state; doctor on
# it (outside the namespace, no --live-net) reproduces the findings once the
# fixture's RDMA devices are added to it.
ip netns exec "$NS" "$RK" snapshot --output "$WORK/snap" >/dev/null 2>"$WORK/snap.err" ||
  { cat "$WORK/snap.err" >&2; fail "snapshot in $NS failed"; }
grep -q '"10.77.0.1/24"' "$WORK/snap/railkit/live.json" || fail "snapshot has no rkmr0 address"
grep -q '"rp_filter": 1' "$WORK/snap/railkit/live.json" || fail "snapshot has no rp_filter"
rm -rf "$WORK/snap/sys/class/infiniband"
mkdir -p "$WORK/snap/sys/class"
cp -r "$ROOT/sys/class/infiniband" "$WORK/snap/sys/class/"
"$RK" doctor --root "$WORK/snap" --json >"$WORK/snap.json"
for id in roce-multirail-no-policy-routing roce-multirail-rp-filter roce-multirail-arp; do
  expect "$id" 2 "$WORK/snap.json" "doctor --root SNAPSHOT"
done

# 3. Fixed: one table per rail selected by source address, loose rp_filter,
# arp_ignore=1 / arp_announce=2.
for i in 0 1; do
  t=$((101 + i))
  ip -n "$NS" route add 10.77.0.0/24 dev "rkmr$i" src "10.77.0.$((i + 1))" table "$t" || fail "route table $t"
  ip -n "$NS" rule add from "10.77.0.$((i + 1))/32" table "$t" priority "$t" || fail "rule $t"
done
# Only the rails: conf/all/rp_filter stays 1, the kernel (and railkit) use max(all, rail) = 2.
for c in rkmr0 rkmr1; do
  conf "$c" rp_filter 2
  conf "$c" arp_ignore 1
  conf "$c" arp_announce 2
done
ip netns exec "$NS" "$RK" doctor --root "$ROOT" --live-net --json >"$WORK/after.json"
for id in roce-multirail-no-policy-routing roce-multirail-rp-filter roce-multirail-arp; do
  expect "$id" 0 "$WORK/after.json" "after the fix"
done
echo "PASS: roce-multirail findings with one subnet and no policy routing, none after the fix"
