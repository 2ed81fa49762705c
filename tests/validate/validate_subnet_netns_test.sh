#!/usr/bin/env bash
# validate's subnet plan (phase 2) end to end: 4 netns nodes, each with eth0
# on the control bridge and two rails, net1 and net2, on the data bridge
# (tests/bench/netns/netns_lib.sh), each rank with its own --root tree of two
# RoCE NICs whose netdevs are named net1 and net2 (railkit_node_root --nics 2
# --netdev), run with --live-net: the rails' addresses are the ones the netns
# node really has, read the way a live node's are. The two plans of seed 003
# (Spiderpool's RDMA guide), rail r's range 198.18.(31+r).0/24:
#   shared     every node's rail-r address in that one /24: PASS, each rail
#              "shared subnet 198.18.(31+r).0/24 (4 nodes)";
#   exclusive  node i has its own /27 of each rail's range (198.18.32.0/27,
#              .32/27, ...), and the data bridge routes between the blocks as
#              the leaf switches would (its address in each block is the
#              block's gateway, pr_leaf_router's idea in tests/k8s/podrun):
#              PASS, "exclusive /27 blocks within 198.18.(31+r).0/25", and
#              phases 3-4 ran over net1 across the blocks;
#   outlier    the exclusive layout, but node4's net2 address comes from its
#              net1 block (an IPAM pool mix-up): FAIL, node4 named as the
#              outlier of "net2 IPv4 address", "in net1's range ...", and
#              (phase 1, from the namespace's real routes) its two rails in
#              one /27 without policy routing.
# Ranks use tiny phase 3-4 sizes: a run takes a few seconds.
# Usage: validate_subnet_netns_test.sh RAILKIT NODE_ROOT_TOOL PLAN
set -euo pipefail
source "$(dirname "$0")/../bench/netns/netns_lib.sh"
rk=$1 node_root=$2 plan=$3 n=4
[[ $plan == shared || $plan == exclusive || $plan == outlier ]] || { echo "unknown plan $plan" >&2; exit 2; }
command -v python3 >/dev/null || rk_skip "python3 not found"
command -v unshare >/dev/null || rk_skip "unshare (util-linux) not found"

rail_net() { echo "198.18.$((31 + $1))"; }  # rail_net R: rail R's /24
# addr I R: node I's rail-R address; gateway I R: its block's gateway (the leaf).
addr() {
  if [[ $plan == shared ]]; then echo "$(rail_net "$2").$((10 + $1))/24"; return; fi
  if [[ $plan == outlier && $1 -eq 4 && $2 -eq 2 ]]; then echo "$(rail_net 1).$((32 * 3 + 4))/27"; return; fi
  echo "$(rail_net "$2").$((32 * ($1 - 1) + 2))/27"
}
# The block's first address, as render's spiderpool-rail-routes.sh and
# Spiderpool's setNicAddr.sh (IPV4_GATEWAY) take the leaf's.
gateway() { echo "$(rail_net "$2").$((32 * ($1 - 1) + 1))"; }

rk_netns_begin
for ((i = 1; i <= n; i++)); do
  rk_netns_add_node "$i" "eth0=$(rk_ctrl_ip "$i")/24" "net1=$(addr "$i" 1)" "net2=$(addr "$i" 2)"
  # Both rails share one bridge: only the interface that owns an address
  # answers ARP for it (as Spiderpool's coordinator sets it).
  for r in 1 2; do
    rk_exec "$i" sysctl -qw "net.ipv4.conf.net$r.arp_ignore=1" "net.ipv4.conf.net$r.arp_announce=2"
  done
  "$node_root" "$RK_WORK/root$i" --roce --nics 2 --gpus 2 --netdev ens0f0np0=net1 --netdev ens1f0np0=net2 \
    --env NCCL_IB_HCA==mlx5_0,mlx5_1 || { echo "FAIL: railkit_node_root node$i" >&2; exit 1; }
done
if [[ $plan != shared ]]; then
  # The leaf: the bridge namespace holds each block's gateway and forwards
  # between the blocks; each node routes its rail's range through it.
  ip netns exec "${RK_PREFIX}br" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.send_redirects=0 \
    net.ipv4.conf.databr.send_redirects=0
  for ((i = 1; i <= n; i++)); do
    for r in 1 2; do
      ip -n "${RK_PREFIX}br" addr add "$(gateway "$i" "$r")/27" dev databr
      [[ $plan == outlier && $i -eq 4 && $r -eq 2 ]] && continue  # its address has no rail-2 route
      ip -n "$(rk_node "$i")" route add "$(rail_net "$r").0/24" via "$(gateway "$i" "$r")" dev "net$r"
    done
  done
fi

export MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=29500 WORLD_SIZE=$n
started=$SECONDS
rk_validate_start "$n" 60 "$rk" --live-net --data-if =net1 --ctrl-if =eth0 \
  --expect-nics 2 --expect-gpus 2 -b 64K -e 256K -n 3 -w 1 --pairs-bytes 1M --pairs-iters 3 \
  --slow-fraction 0.07 --bootstrap-timeout 30 --stall-timeout 10
rk_wait_all
rcs=("${RK_RCS[@]}")
cat "$RK_WORK/out1"
echo "# all ranks ended after $((SECONDS - started)) s"
want=0
[[ $plan == outlier ]] && want=1
if [[ ${rcs[0]} -ne $want ]]; then
  for ((i = 2; i <= n; i++)); do echo "--- node$i"; cat "$RK_WORK/out$i"; done
  echo "FAIL: rank 0 exited ${rcs[0]}, expected $want ($plan)" >&2
  exit 1
fi
for ((i = 1; i < n; i++)); do
  [[ ${rcs[$i]} -eq 0 ]] || { cat "$RK_WORK/out$((i + 1))"; echo "FAIL: rank $i exited ${rcs[$i]}" >&2; exit 1; }
done

# The plan lines rank 0 prints, then the JSON.
if [[ $plan == shared ]]; then
  lines=("#   subnet plan net1: shared subnet 198.18.32.0/24 (4 nodes)"
    "#   subnet plan net2: shared subnet 198.18.33.0/24 (4 nodes)")
else
  lines=("#   subnet plan net1: exclusive /27 blocks within 198.18.32.0/25 (4 nodes)"
    "#   subnet plan net2: exclusive /27 blocks within 198.18.33.0/25 (4 nodes)")
fi
for line in "${lines[@]}"; do
  grep -qxF "$line" "$RK_WORK/out1" || { echo "FAIL: rank 0 did not print '$line'" >&2; exit 1; }
done
python3 - "$RK_WORK/validate.json" "$plan" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
plan = sys.argv[2]
assert [x["host"] for x in doc["nodes"]] == ["node1", "node2", "node3", "node4"], doc["nodes"]
plans = {p["rail"]: p for p in doc["phases"]["consistency"]["subnet_plans"]}
want_plan = "shared" if plan == "shared" else "exclusive"
want_range = {"net1": "198.18.32.0/", "net2": "198.18.33.0/"}
for rail in ("net1", "net2"):
    p = plans[rail]
    assert p["plan"] == want_plan and p["nodes"] == 4, p
    assert p["range"] == want_range[rail] + ("24" if plan == "shared" else "25"), p
    assert p["block_prefix"] == (24 if plan == "shared" else 27), p
verdicts = {x["host"]: x["verdict"] for x in doc["nodes"]}
if plan != "outlier":
    assert doc["verdict"] == "pass", (doc["verdict"], doc.get("failures"), doc["outliers"])
    assert doc["outliers"] == [], doc["outliers"]
    assert set(verdicts.values()) == {"pass"}, verdicts
    # Phases 3 and 4 ran over net1, across the blocks in the exclusive plan.
    links = [float(g) for row in doc["pairs"]["link_rows"] for g in row.split()]
    assert len(links) == 6 and min(links) > 0, doc["pairs"]["link_rows"]
    (ar,) = doc["collectives"]
    assert ar["op"] == "all_reduce" and ar["wrong"] == 0, ar
    print(f"ok: {plan} plan on both rails, PASS, 6 links over net1, all_reduce #wrong 0")
else:
    assert doc["verdict"] == "fail", doc["verdict"]
    (o,) = doc["outliers"]
    assert o["attribute"] == "net2 IPv4 address" and o["host"] == "node4", o
    assert o["value"] == "198.18.32.100/27 (in net1's range 198.18.32.0/25)", o
    assert o["majority_value"] == "exclusive /27 blocks within 198.18.33.0/25" and o["majority_count"] == 3, o
    assert verdicts == {"node1": "pass", "node2": "pass", "node3": "pass", "node4": "fail"}, verdicts
    # --live-net gave phase 1 node4's real routing too: its two rails now
    # share one /27 without policy routing, which doctor's rule names.
    (node4,) = [x for x in doc["nodes"] if x["host"] == "node4"]
    errors = {(f["id"], f["subject"]) for f in node4["findings"] if f["severity"] == "error"}
    assert errors == {("roce-multirail-no-policy-routing", "net1"), ("roce-multirail-no-policy-routing", "net2")}, errors
    print("ok: FAIL, node4's net2 address named as the outlier, in net1's range")
PY
if [[ $plan == outlier ]]; then
  grep -q "^VERDICT: FAIL" "$RK_WORK/out1" || { echo "FAIL: no FAIL verdict" >&2; exit 1; }
  grep -qF "node4 net2 IPv4 address 198.18.32.100/27 (in net1's range 198.18.32.0/25)" "$RK_WORK/out1" ||
    { echo "FAIL: rank 0's output does not name node4's net2 address" >&2; exit 1; }
fi
