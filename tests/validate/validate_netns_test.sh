#!/usr/bin/env bash
# railkit validate across netns nodes (tests/bench/netns/netns_lib.sh: eth0 on
# a control bridge, net1 on a data bridge), each node in its own UTS
# namespace (hostname nodeI) with its own --root tree from railkit_node_root,
# env bootstrap as an Indexed Job or torchrun starts it.
#   healthy N  every node passes, exit 0, the JSON lists N nodes, the pairs
#              matrix has N(N-1)/2 links and all_reduce ran with #wrong 0;
#   broken     4 nodes: node2 has 7 of 8 active ports (rdma-nic-count names
#              mlx5_3), node3 has another mlx5_2 firmware (an outlier), node4's
#              net1 is rate-limited with tc (the suspect node of the pairs);
#              exit 1 and each named where it belongs;
#   fault      3 nodes; node3's rank is killed during the links phase: rank 0
#              exits 3 naming rank 2, and its JSON says "incomplete" with the
#              phase 1-2 results kept.
#   degraded   4 healthy node trees, node4's net1 rate-limited with tc, at
#              validate's DEFAULT phase-4 sweep (1M-64M, -n 10 -w 2, 60 s
#              budget): exit 1, "fail" naming node4 (r3) as the suspect node,
#              phase 4 ran (1M only, capped from the slow link's rate,
#              #wrong 0) and all ranks ended within 200 s (about 80 s idle).
#              node4's pairs (4M x 4 at 10 Mbit/s, ~13 s) outlast
#              --stall-timeout 10 and the last round pairs r2 with r3: before
#              phase 3 ended with every rank waiting for the others, r0 and r1
#              started phase 4 early, r0 waited on r3, r1 on r0, and r1's
#              stall timer ended the run "incomplete" (issue 30 point 1).
# Margins of 10x both ways: the slowest healthy link seen on a loaded 2-core
# machine ran at 0.72 x the median, so healthy runs call a link slow below
# 0.07 x. The tbf limit (10 Mbit/s) is ~400x below the veths' median on an
# idle machine (4 Gb/s) and stays >= 100x below while that median is above
# 1 Gb/s, so the broken run calls slow below 0.1 x and asserts the throttled
# links are among the slow ones (a healthy link there has 7x margin and, if
# ever slow, makes no other node the suspect).
# The degraded run asserts no rate: 10 Mbit/s makes 4M (>= 130 s estimated)
# miss the 60 s budget at any rate the throttle allows, so 1M alone is kept
# (with fewer iterations if a loaded machine measures below ~5 Mbit/s).
# Usage: validate_netns_test.sh RAILKIT NODE_ROOT_TOOL MODE [N]
set -euo pipefail
source "$(dirname "$0")/../bench/netns/netns_lib.sh"
rk=$1 node_root=$2 mode=$3 n=${4:-4}
command -v python3 >/dev/null || rk_skip "python3 not found"
command -v unshare >/dev/null || rk_skip "unshare (util-linux) not found"
[[ $mode == broken || $mode == degraded ]] && n=4
[[ $mode == fault ]] && n=3
rk_netns_setup "$n"

for ((i = 1; i <= n; i++)); do
  flags=()
  if [[ $mode == broken ]]; then
    [[ $i -eq 2 ]] && flags=(--down mlx5_3)
    [[ $i -eq 3 ]] && flags=(--fw mlx5_2=28.36.1010)
  fi
  "$node_root" "$RK_WORK/root$i" "${flags[@]}" || { echo "FAIL: railkit_node_root node$i" >&2; exit 1; }
done
if [[ $mode == broken || $mode == degraded ]]; then
  # A queue of 1 s (1.25 MB at 10 Mbit/s) instead of 100 ms: with the
  # shorter one, phase 4's ring streams overflowed it on a loaded machine,
  # TCP backed off past --stall-timeout 10 and rank 3 lost rank 0
  # ("Connection timed out", one clean-clone make test beside the sanitizer
  # build). The rate is the same; the pairs and the budget see the same link.
  rk_throttle 4 10mbit 1s
fi

export MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=29500 WORLD_SIZE=$n
pairs_bytes=1M pairs_iters=3 slow_fraction=0.07
[[ $mode == broken || $mode == degraded ]] && slow_fraction=0.1
[[ $mode == fault ]] && pairs_bytes=64M pairs_iters=200
[[ $mode == degraded ]] && pairs_bytes=4M pairs_iters=3
# Phase 4's sweep: small here, validate's defaults in the degraded run.
sweep=(-b 64K -e 256K -n 3 -w 1) rank_timeout=150
[[ $mode == degraded ]] && sweep=() rank_timeout=300
started=$SECONDS
rk_validate_start "$n" "$rank_timeout" "$rk" --data-if =net1 --ctrl-if =eth0 \
  --expect-nics 8 --expect-gpus 8 "${sweep[@]}" --pairs-bytes "$pairs_bytes" \
  --pairs-iters "$pairs_iters" --slow-fraction "$slow_fraction" --bootstrap-timeout 60 --stall-timeout 10

if [[ $mode == fault ]]; then
  # Kill node3's rank once rank 0 is in the links phase.
  for ((t = 0; t < 600; t++)); do
    grep -q "phase 3/4" "$RK_WORK/out1" && break
    sleep 0.1
  done
  grep -q "phase 3/4" "$RK_WORK/out1" || { cat "$RK_WORK/out1"; echo "FAIL: rank 0 never reached phase 3" >&2; exit 1; }
  # ... and once the pairs move data on node3's net1 (its 64 MiB messages;
  # the phase starts with the connections): 15 s is more than ten times it.
  for ((t = 0; t < 150; t++)); do
    (($(rk_iface_bytes 3 net1) > 16000000)) && break
    sleep 0.1
  done
  (($(rk_iface_bytes 3 net1) > 16000000)) || { cat "$RK_WORK/out1"; echo "FAIL: no pairs data on node3's net1" >&2; exit 1; }
  kill -KILL $(ip netns pids "$(rk_node 3)") 2>/dev/null || true
fi

rk_wait_all
rcs=("${RK_RCS[@]}")
elapsed=$((SECONDS - started))
cat "$RK_WORK/out1"
echo "# all ranks ended after ${elapsed} s"
want=0
[[ $mode == broken || $mode == degraded ]] && want=1
[[ $mode == fault ]] && want=3
if [[ ${rcs[0]} -ne $want ]]; then
  for ((i = 2; i <= n; i++)); do echo "--- node$i"; cat "$RK_WORK/out$i"; done
  echo "FAIL: rank 0 exited ${rcs[0]}, expected $want ($mode)" >&2
  exit 1
fi
if [[ $mode != fault ]]; then
  for ((i = 1; i < n; i++)); do
    [[ ${rcs[$i]} -eq 0 ]] || { cat "$RK_WORK/out$((i + 1))"; echo "FAIL: rank $i exited ${rcs[$i]}" >&2; exit 1; }
  done
fi

python3 - "$RK_WORK/validate.json" "$mode" "$n" "$elapsed" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
mode, n, elapsed = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
assert doc["kind"] == "railkit.validate/v1", doc.get("kind")
nodes = doc["nodes"]
assert [x["rank"] for x in nodes] == list(range(n)), nodes
assert [x["host"] for x in nodes] == [f"node{i + 1}" for i in range(n)], [x["host"] for x in nodes]
for x in nodes:
    assert x["inventory"]["rdma_devices"], f"{x['host']}: no inventory"
    assert x["counts"]["nics_expected"] == 8 and x["counts"]["gpus_expected"] == 8, x["counts"]

def ids(x):
    return [f["id"] for f in x["findings"] if f["severity"] == "error"]

if mode == "healthy":
    assert doc["verdict"] == "pass", doc["failures"]
    for x in nodes:
        assert x["verdict"] == "pass" and not ids(x), (x["host"], ids(x))
        assert x["counts"]["nics_active"] == 8 and x["counts"]["gpus"] == 8, x["counts"]
    assert doc["outliers"] == [], doc["outliers"]
    # Links as rows (core/pair_links.h): row a lists a-(a+1) .. a-(n-1).
    links = [float(g) for row in doc["pairs"]["link_rows"] for g in row.split()]
    assert len(links) == n * (n - 1) // 2 and min(links) > 0, doc["pairs"]["link_rows"]
    assert doc["pairs"]["slow_links"] == [] and doc["pairs"]["suspect_nodes"] == [], doc["pairs"]
    (ar,) = doc["collectives"]
    assert ar["op"] == "all_reduce" and ar["wrong"] == 0 and len(ar["rows"]) == 2, ar
    print(f"ok: {n} nodes pass, {len(links)} links, all_reduce #wrong 0")
elif mode == "broken":
    assert doc["verdict"] == "fail", doc["verdict"]
    byhost = {x["host"]: x for x in nodes}
    nic = [f for f in byhost["node2"]["findings"] if f["id"] == "rdma-nic-count"]
    assert nic and "mlx5_3" in nic[0]["message"] and "7 of 8" in nic[0]["message"], byhost["node2"]["findings"]
    assert byhost["node2"]["counts"]["nics_active"] == 7, byhost["node2"]["counts"]
    for h in ("node1", "node3", "node4"):
        assert "rdma-nic-count" not in ids(byhost[h]), (h, ids(byhost[h]))
    fw = [o for o in doc["outliers"] if o["attribute"] == "mlx5_2 firmware"]
    assert len(fw) == 1 and fw[0]["host"] == "node3" and fw[0]["value"] == "28.36.1010", doc["outliers"]
    assert fw[0]["majority_count"] == 3, fw
    suspects = [s["rank"] for s in doc["pairs"]["suspect_nodes"]]
    assert suspects == [3], doc["pairs"]["suspect_nodes"]
    slow = {(l["a"], l["b"]) for l in doc["pairs"]["slow_links"]}
    assert slow >= {(0, 3), (1, 3), (2, 3)}, slow
    verdicts = {x["host"]: x["verdict"] for x in nodes}
    assert verdicts == {"node1": "pass", "node2": "fail", "node3": "fail", "node4": "fail"}, verdicts
    print("ok: node2 rdma-nic-count, node3 firmware outlier, node4 suspect in pairs; node1 passes")
elif mode == "degraded":
    assert doc["verdict"] == "fail", (doc["verdict"], doc.get("incomplete"))
    assert "incomplete" not in doc, doc["incomplete"]
    suspects = doc["pairs"]["suspect_nodes"]
    assert [s["rank"] for s in suspects] == [3] and suspects[0]["host"] == "node4", suspects
    assert any(f.startswith("suspect node r3 (node4 net1") for f in doc["failures"]), doc["failures"]
    verdicts = {x["host"]: x["verdict"] for x in nodes}
    assert verdicts == {"node1": "pass", "node2": "pass", "node3": "pass", "node4": "fail"}, verdicts
    sizing = doc["phases"]["collectives"]["sizing"]
    assert sizing["capped"] and sizing["budget_seconds"] == 60, sizing
    assert 3 in (sizing["slowest_link"]["a"], sizing["slowest_link"]["b"]), sizing
    assert sizing["sizes"] == [1 << 20], sizing
    assert any(x.startswith("phase 4 sizes capped at 1M (asked 1M-64M)") for x in doc["notes"]), doc["notes"]
    (ar,) = doc["collectives"]
    assert ar["op"] == "all_reduce" and ar["wrong"] == 0 and len(ar["rows"]) == 1, ar
    # Phase 3 (~40 s at 10 Mbit/s) and phase 4 (the 60 s budget at most, as
    # estimated; 34 s measured on an idle machine) take about 80 s; 200 s is
    # the generous bound, below the ranks' own timeout of 300 s.
    assert elapsed < 200, elapsed
    print(f"ok: fail naming node4 (r3), phase 4 capped at 1M and ran, all ranks ended after {elapsed} s")
else:
    assert doc["verdict"] == "incomplete", doc["verdict"]
    assert "rank 2" in doc["incomplete"] and "phase 3" in doc["incomplete"], doc["incomplete"]
    assert len(nodes) == 3 and all(x["inventory"]["rdma_devices"] for x in nodes), "phase 1 lost"
    print("ok: incomplete, naming rank 2 in phase 3:", doc["incomplete"])
PY
if [[ $mode == degraded ]]; then
  grep -q "^# phase 4/4 collectives: sizes capped at 1M (asked 1M-64M)" "$RK_WORK/out1" ||
    { echo "FAIL: rank 0's output does not say phase 4 was capped" >&2; exit 1; }
  grep -q "^VERDICT: FAIL" "$RK_WORK/out1" || { echo "FAIL: no FAIL verdict" >&2; exit 1; }
fi
if [[ $mode == fault ]]; then
  grep -q "rank 2" "$RK_WORK/out1" || { echo "FAIL: rank 0's output does not name rank 2" >&2; exit 1; }
fi
