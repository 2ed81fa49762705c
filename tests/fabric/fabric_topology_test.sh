#!/usr/bin/env bash
# railkit fabric --topology-out on a 3-tier rail-optimized fabric (64 nodes x
# 8 rails in 4 groups of 16, 2 pods with 4 spines each, 2 cores; written by
# make_rail_fabric.py as ibnetdiscover prints it): the tiers, every node's
# labels, the kubectl script run against a kubectl that records what it is
# asked, and what the Volcano, Kueue and Slurm files hold.
# Usage: fabric_topology_test.sh RAILKIT MAKE_RAIL_FABRIC
set -uo pipefail
railkit=$(realpath "$1") generate=$(realpath "$2")

skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in python3 jq; do
  command -v "$tool" >/dev/null || skip "$tool not installed (scripts/install-deps.sh installs it)"
done

work=$(mktemp -d /tmp/railkit-topology.XXXXXX)
trap 'rm -rf "$work"' EXIT

python3 "$generate" --format ibnetdiscover --nodes 64 --rails 8 --group 16 --pods 2 --spines 4 --cores 2 \
  >"$work/fabric.txt" || fail "make_rail_fabric.py failed"
"$railkit" fabric --json --topology-out "$work/out" "$work/fabric.txt" >"$work/fabric.json"
rc=$?
[[ $rc -eq 0 ]] || fail "a healthy 3-tier fabric: expected exit 0, found $rc"

tiers=$(jq -c '[.tiers[] | [.name, (.groups | length), (.groups[0].switches | length), .groups[0].hosts]]' \
  "$work/fabric.json")
[[ $tiers == '[["block",4,8,16],["spine",2,4,32],["datacenter",1,2,64]]' ]] ||
  fail "tiers [name, groups, switches and hosts of the first]: found $tiers"
files=$(jq -r '.topology_files | map(sub(".*/"; "")) | join(" ")' "$work/fabric.json")
[[ $files == "node-labels.json label-nodes.sh volcano-hypernodes.yaml kueue-topology.yaml topology.conf" ]] ||
  fail "files written: $files"

# Labels: node017 is in pod 1's second group.
labels=$(jq -c '.nodes.node017' "$work/out/node-labels.json")
[[ $labels == '{"network.topology.nvidia.com/block":"leaf-g2-r0","network.topology.nvidia.com/datacenter":"core1","network.topology.nvidia.com/spine":"spine-p1-1"}' ]] ||
  fail "node017's labels: $labels"
[[ $(jq '.nodes | length' "$work/out/node-labels.json") -eq 64 ]] || fail "not 64 nodes labelled"

# The script, run as written, asks kubectl for one label command per node.
cat >"$work/kubectl" <<'EOF'
#!/bin/sh
printf '%s\n' "$*" >>"$KUBECTL_LOG"
EOF
chmod +x "$work/kubectl"
[[ -x $work/out/label-nodes.sh ]] || fail "label-nodes.sh is not executable"
KUBECTL="$work/kubectl" KUBECTL_LOG="$work/kubectl.log" "$work/out/label-nodes.sh" ||
  fail "label-nodes.sh failed"
[[ $(wc -l <"$work/kubectl.log") -eq 64 ]] || fail "kubectl was called $(wc -l <"$work/kubectl.log") times, not 64"
grep -qx 'label node --overwrite node017 network.topology.nvidia.com/block=leaf-g2-r0 network.topology.nvidia.com/spine=spine-p1-1 network.topology.nvidia.com/datacenter=core1' \
  "$work/kubectl.log" || fail "no kubectl call for node017 with its labels: $(grep node017 "$work/kubectl.log")"
# What the script sets is what node-labels.json says, for every node.
jq -r '.labels as $keys | .nodes | to_entries[] |
  "label node --overwrite \(.key) " + ([$keys[] as $k | "\($k)=\(.value[$k])"] | join(" "))' \
  "$work/out/node-labels.json" | sort >"$work/expected.log"
sort "$work/kubectl.log" >"$work/called.log"
diff "$work/expected.log" "$work/called.log" >&2 || fail "label-nodes.sh and node-labels.json differ"

# Volcano: 4 blocks, 2 spine groups and 1 datacenter HyperNode; Kueue's levels top first.
[[ $(grep -c '^kind: "HyperNode"' "$work/out/volcano-hypernodes.yaml") -eq 7 ]] ||
  fail "expected 7 HyperNodes: $(grep -c HyperNode "$work/out/volcano-hypernodes.yaml")"
grep -o 'nodeLabel: "[^"]*"' "$work/out/kueue-topology.yaml" | cut -d' ' -f2 | tr '\n' ' ' >"$work/levels"
[[ $(cat "$work/levels") == '"network.topology.nvidia.com/datacenter" "network.topology.nvidia.com/spine" "network.topology.nvidia.com/block" "kubernetes.io/hostname" ' ]] ||
  fail "Kueue levels: $(cat "$work/levels")"
# Slurm: one switch per group.
grep -qx 'SwitchName=leaf-g2-r0 Nodes=node\[017-032\]' "$work/out/topology.conf" || fail "topology.conf: no leaf-g2-r0 block"
grep -qx 'SwitchName=spine-p1-1 Switches=leaf-g1-r0,leaf-g2-r0' "$work/out/topology.conf" || fail "topology.conf: no spine-p1-1"
grep -qx 'SwitchName=core1 Switches=spine-p1-1,spine-p2-1' "$work/out/topology.conf" || fail "topology.conf: no core1"

# No named host: nothing to place, one line and exit 2.
printf 'Switch\t4 "S-1"\t\t# "leaf" enhanced port 0 lid 1 lmc 0\n[1]\t"H-2"[1]\t\t# "MT4129 ConnectX7   Mellanox Technologies" lid 2 4xNDR\n\nCa\t1 "H-2"\t\t# "MT4129 ConnectX7   Mellanox Technologies"\n[1]\t"S-1"[1]\t\t# "leaf" lid 1 4xNDR\n' \
  >"$work/unnamed.txt"
"$railkit" fabric --topology-out "$work/none" "$work/unnamed.txt" >"$work/none.out" 2>"$work/none.err"
rc=$?
[[ $rc -eq 2 && $(wc -l <"$work/none.err") -eq 1 ]] || fail "no named host: exit $rc, stderr: $(cat "$work/none.err")"
grep -q "no host HCA named '<host> <device>'" "$work/none.err" || fail "no named host: $(cat "$work/none.err")"
echo "ok: a 3-tier fabric's blocks, spine groups and core as labels, a kubectl script, HyperNodes, a Kueue Topology and topology.conf"
