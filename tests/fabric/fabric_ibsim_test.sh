#!/usr/bin/env bash
# railkit fabric against a real subnet manager and real diagnostics on a
# simulated fabric: ibsim (ibsim-utils) runs a rail-optimized fabric written
# by make_rail_fabric.py, the unmodified OpenSM sweeps it and ibnetdiscover
# (infiniband-diags) prints it, both through ibsim's LD_PRELOAD; railkit
# reads what ibnetdiscover printed.
#   healthy: 32 nodes x 8 rails, 8 leaves, 4 spines: no finding, exit 0,
#            from ibnetdiscover's output and with railkit running it itself.
#   faults:  the same fabric with four faults, each named exactly, exit 1:
#            node017's rail-3 cable moved to leaf-r5 (ibsim console: Unlink,
#            then Link into a spare port), node009's rail-1 cable unplugged
#            (Unlink), node005's rail-2 cable trained at 1x and node006's
#            rail-4 cable at SDR (the net file limits the HCA port); with
#            iblinkinfo's output, the two switch ports the moved and the
#            unplugged cable left Down are named too.
#   sm:      the subnet manager as sminfo (infiniband-diags) sees it: with
#            none running (after `opensm -o` ended), with OpenSM running in
#            the background, and with a second fabric's OpenSM (another ibsim
#            in another namespace, other GUIDs) also answering as master,
#            as two halves of a split fabric do.
#   counters: perfquery (infiniband-diags) reads every cabled switch port
#            twice; error counters raised between the reads through ibsim's
#            console (PerformanceSet) are named exactly.
#   large:   the largest 8-rail fabric ibsim holds (MaxNetNodes 2048): 240
#            nodes in 8 groups of 30, 64 leaves, 8 spines, 1992 nodes in all;
#            one cable moved to another rail's leaf of its own group is named.
# ibsim binds a fixed control socket, so it runs in a network namespace of
# its own (named after this shell's pid), removed on exit with everything
# started in it. Needs root; skips (77) without it or the packages.
# Usage: fabric_ibsim_test.sh RAILKIT MAKE_RAIL_FABRIC MODE
set -uo pipefail
railkit=$(realpath "$1") generate=$(realpath "$2") mode=$3

skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || skip "needs root (ibsim runs in a network namespace of its own)"
for tool in ibsim ibsim-run opensm ibnetdiscover python3 jq ip; do
  command -v "$tool" >/dev/null ||
    skip "$tool not installed (scripts/install-deps.sh installs ibsim-utils, opensm, infiniband-diags, jq)"
done

ns=railkit-fabric-$$
ns2=railkit-fabric2-$$
work=$(mktemp -d /tmp/railkit-fabric.XXXXXX)
cleanup() {
  exec 7>&- 8>&- 2>/dev/null
  # What runs in the namespaces is this test's ibsim and OpenSM.
  local pids n
  for n in "$ns" "$ns2"; do
    pids=$(ip netns pids "$n" 2>/dev/null)
    [[ -n $pids ]] && kill -9 $pids 2>/dev/null
    ip netns del "$n" 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$ns" || skip "cannot create a network namespace"

in_ns() { ip netns exec "$ns" "$@"; }
nodes=32 rails=8 spines=4 group=32 summary="[12,8,32,8]"
[[ $mode == large ]] && nodes=240 spines=8 group=30 summary="[72,64,240,8]"
spare_port=$((group + spines + 1)) # a leaf's first free port (make_rail_fabric.py)
gen_args=(--nodes "$nodes" --rails "$rails" --spines "$spines" --group "$group")
[[ $mode == faults ]] && gen_args+=(--degrade node005:2:w=1 --degrade node006:4:s=1)
python3 "$generate" "${gen_args[@]}" >"$work/net" || fail "make_rail_fabric.py failed"

mkfifo "$work/ctl"
in_ns ibsim -s "$work/net" <"$work/ctl" >"$work/ibsim.log" 2>&1 &
exec 7>"$work/ctl"
# wait_log TEXT COUNT: until ibsim's log holds TEXT COUNT times (20 s at most).
wait_log() {
  local i
  for ((i = 0; i < 200; i++)); do
    (($(grep -o -- "$1" "$work/ibsim.log" | wc -l) >= $2)) && return 0
    kill -0 $! 2>/dev/null || break
    sleep 0.1
  done
  tail -n 20 "$work/ibsim.log" >&2
  fail "ibsim: '$1' not seen $2 times"
}
wait_log "simulator ready" 1

# ibsim trains a cable at the widest width and highest speed both ends
# enable, so a fault written into the net file is an enabled mask. OpenSM by
# default rewrites the enabled masks of switch ports to what they support,
# which would heal it; told to leave them alone (force_link_* 0, as a site
# that pins its link settings does), it sweeps the fabric as it is.
opensm --create-config "$work/opensm.conf" >/dev/null 2>&1 || fail "opensm --create-config failed"
sed -i 's/^force_link_speed .*/force_link_speed 0/; s/^force_link_speed_ext .*/force_link_speed_ext 0/;
        s/^force_link_width .*/force_link_width 0/' "$work/opensm.conf"
sweep() {
  in_ns env OSM_CACHE_DIR="$work" timeout 60 ibsim-run opensm -o -F "$work/opensm.conf" -f "$work/opensm.log" \
    >"$work/opensm.out" 2>&1 ||
    { tail -n 20 "$work/opensm.out" >&2; fail "opensm -o did not sweep the fabric"; }
}
sweep
# console COMMAND...: sends each to ibsim and waits until it took them all
# (every console command ends with a new prompt).
console() {
  local prompts
  prompts=$(grep -o 'sim> ' "$work/ibsim.log" | wc -l)
  printf '%s\n' "$@" >&7
  wait_log 'sim> ' $((prompts + $#))
}
if [[ $mode == faults ]]; then
  console 'Unlink "node017 mlx5_3"[1]' "Link \"node017 mlx5_3\"[1] \"leaf-r5\"[$spare_port]" \
    'Unlink "node009 mlx5_1"[1]'
  sweep
elif [[ $mode == large ]]; then
  console 'Unlink "node045 mlx5_6"[1]' "Link \"node045 mlx5_6\"[1] \"leaf-g2-r2\"[$spare_port]"
  sweep
fi
in_ns timeout 60 ibsim-run ibnetdiscover >"$work/fabric.txt" 2>"$work/ibnetdiscover.err" ||
  { cat "$work/ibnetdiscover.err" >&2; fail "ibnetdiscover failed"; }
expect() { # expect ID SUBJECT MESSAGE [DOC]: exactly one such finding in DOC (fabric.json)
  local n doc=${4:-$work/fabric.json}
  n=$(jq --arg id "$1" --arg s "$2" --arg m "$3" \
    '[.findings[] | select(.id == $id and .subject == $s and .message == $m)] | length' "$doc")
  [[ $n -eq 1 ]] || {
    jq --arg id "$1" '.findings[] | select(.id == $id) | {subject, message}' "$doc" >&2
    fail "expected one $1 finding on '$2': $3"
  }
}
[[ $mode == sm ]] && { source "$(dirname "$0")/fabric_ibsim_sm.sh"; exit; }
[[ $mode == counters ]] && { source "$(dirname "$0")/fabric_ibsim_counters.sh"; exit; }

"$railkit" fabric "$work/fabric.txt"
"$railkit" fabric --json "$work/fabric.txt" >"$work/fabric.json"
rc=$?
echo "railkit fabric exited $rc"
found=$(jq -c '[.fabric.switches, .fabric.leaves, .fabric.hosts, .fabric.rails]' "$work/fabric.json")
[[ $found == "$summary" ]] || fail "switches, leaves, hosts, rails: expected $summary, found $found"

if [[ $mode == healthy ]]; then
  [[ $rc -eq 0 ]] || fail "a healthy fabric: expected exit 0, found $rc"
  [[ $(jq '.findings | length' "$work/fabric.json") -eq 0 ]] || fail "a healthy fabric has findings"
  # No file: railkit runs ibnetdiscover itself (under ibsim-run, whose
  # LD_PRELOAD its child inherits) and reads the same fabric.
  # A sanitizer build's railkit then starts with ibsim's library preloaded,
  # whose allocations are not railkit's to answer for: its leaks are checked
  # in every other run.
  in_ns env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0" \
    timeout 60 ibsim-run "$railkit" fabric --json >"$work/run.json" 2>"$work/run.err" ||
    { cat "$work/run.err" >&2; fail "railkit fabric running ibnetdiscover itself failed"; }
  ran=$(jq -c '[.source, .fabric.switches, .fabric.hosts, (.findings | length)]' "$work/run.json")
  [[ $ran == '["ibnetdiscover",12,32,0]' ]] || fail "railkit fabric running ibnetdiscover: $ran"
  echo "ok: a healthy 32x8 fabric swept by OpenSM, no finding, also with railkit running ibnetdiscover"
  exit 0
fi

if [[ $mode == large ]]; then
  [[ $rc -eq 1 ]] || fail "a moved cable: expected exit 1, found $rc"
  expect rail-miscabled "node045 mlx5_6" \
    "node045 mlx5_6 (rail 6) is on leaf-g2-r2 port $spare_port; leaf-g2-r2 holds rail 2 (30 of its HCAs are mlx5_2); the 29 other nodes' rail 6 are on leaf-g2-r6"
  [[ $(jq '.findings | length' "$work/fabric.json") -eq 1 ]] || fail "expected exactly the finding above"
  # The tiers for the schedulers: 8 groups of 30 nodes are 8 blocks (each the
  # 8 rail leaves of its group) under one spine group; the moved cable does
  # not pull node045 or its leaf into another block.
  "$railkit" fabric --json --topology-out "$work/topology" "$work/fabric.txt" >"$work/topology.json"
  tiers=$(jq -c '[.tiers[] | [.name, (.groups | length)]]' "$work/topology.json")
  [[ $tiers == '[["block",8],["spine",1]]' ]] || fail "tiers: expected 8 blocks under 1 spine group, found $tiers"
  labels=$(jq -c '.nodes.node045' "$work/topology/node-labels.json")
  [[ $labels == '{"network.topology.nvidia.com/block":"leaf-g2-r0","network.topology.nvidia.com/spine":"spine1"}' ]] ||
    fail "node045's labels: $labels"
  grep -qx 'SwitchName=leaf-g2-r0 Nodes=node\[031-060\]' "$work/topology/topology.conf" ||
    fail "topology.conf has no block leaf-g2-r0 with node031..060: $(grep -m3 SwitchName "$work/topology/topology.conf")"
  echo "ok: a 240x8 fabric (64 leaves) swept by OpenSM, the moved cable named exactly, 8 blocks under 1 spine group"
  exit 0
fi
[[ $rc -eq 1 ]] || fail "four faults: expected exit 1, found $rc"
expect rail-miscabled "node017 mlx5_3" \
  "node017 mlx5_3 (rail 3) is on leaf-r5 port $spare_port; leaf-r5 holds rail 5 (32 of its HCAs are mlx5_5); the 31 other nodes' rail 3 are on leaf-r3"
expect fabric-node-ports-missing node009 \
  "node009 has 7 HCA ports on the fabric; 31 of the 32 nodes have 8. Missing: rail 1 (mlx5_1)"
expect fabric-link-degraded "leaf-r2 port 5 - node005 mlx5_2 port 1" \
  "the cable leaf-r2 port 5 - node005 mlx5_2 port 1 runs at 1xQDR (1 of 4 lanes); the fabric's other host cables run at 4xQDR"
expect fabric-link-degraded "leaf-r4 port 6 - node006 mlx5_4 port 1" \
  "the cable leaf-r4 port 6 - node006 mlx5_4 port 1 runs at 4xSDR (SDR instead of QDR); the fabric's other host cables run at 4xQDR"
total=$(jq '.findings | length' "$work/fabric.json")
[[ $total -eq 4 ]] || fail "expected exactly the 4 findings above, found $total"
jq -e '[.rails[] | select(.rail == 3) | .leaves[] | select(.leaf == "leaf-r5" and .stray)] | length == 1' \
  "$work/fabric.json" >/dev/null || fail "the picture does not mark rail 3 on leaf-r5 as a stray"
# iblinkinfo shows the two ports the faults left dark: node017's old port on
# leaf-r3 and node009's on leaf-r1 (ibnetdiscover prints no port without a link).
in_ns timeout 60 ibsim-run iblinkinfo >"$work/links.txt" 2>"$work/iblinkinfo.err" ||
  { cat "$work/iblinkinfo.err" >&2; fail "iblinkinfo failed"; }
"$railkit" fabric --json "$work/fabric.txt" --iblinkinfo "$work/links.txt" >"$work/links.json"
expect fabric-port-down "leaf-r1 port 9" \
  "leaf-r1 port 9 is Down (Polling); port 9 is Active on 7 of the other 7 leaves, where it is cabled to node009" \
  "$work/links.json"
expect fabric-port-down "leaf-r3 port 17" \
  "leaf-r3 port 17 is Down (Polling); port 17 is Active on 7 of the other 7 leaves, where it is cabled to node017" \
  "$work/links.json"
total=$(jq '.findings | length' "$work/links.json")
[[ $total -eq 6 ]] || fail "with iblinkinfo: expected the 4 findings and the 2 dark ports, found $total"
echo "ok: four faults injected through ibsim, each named exactly, and with iblinkinfo the two dark ports"
