# Sourced by fabric_ibsim_test.sh in its `counters` mode, once ibsim runs the
# fabric in $ns and $work/fabric.txt holds what ibnetdiscover printed: the
# real perfquery reads every cabled switch port (LIDs from ibnetdiscover's
# output) twice; between the reads ibsim's console raises two error counters
# (PerformanceSet), which railkit names, and one read alone of a counter above
# its threshold is a warning.

# read_counters FILE: perfquery of every cabled switch port, blocks in order.
read_counters() {
  awk '/^Ca/ { lid = "" }
       /^Switch/ { lid = ""; for (i = 1; i < NF; i++) if ($i == "lid") { lid = $(i + 1); break } }
       /^\[/ && lid != "" { p = $1; gsub(/[\[\]]/, "", p); print lid, p }' fabric.txt >ports.txt
  mkdir -p "$1.d"
  # Four at a time, each into its own file, then in order.
  xargs -P 4 -L 1 sh -c 'ip netns exec "$0" timeout 10 ibsim-run perfquery "$1" "$2" >"$3/$1.$2" 2>&1' \
    "$ns" <<<"$(sed "s|\$| $1.d|" ports.txt)" || fail "perfquery failed"
  while read -r lid port; do cat "$1.d/$lid.$port"; done <ports.txt >"$1"
}
cd "$work" || fail "cd $work"
read_counters read1.txt
[[ $(grep -c '^# Port counters:' read1.txt) -eq 320 ]] || fail "expected 320 port blocks, found $(grep -c '^# Port counters:' read1.txt)"
"$railkit" fabric --json fabric.txt --perfquery read1.txt >one.json
rc=$?
[[ $rc -eq 0 && $(jq '.findings | length' one.json) -eq 0 ]] || fail "quiet counters: exit $rc, $(jq -c .findings one.json)"

# leaf-r3's port to node007 starts taking symbol errors, leaf-r6's first
# uplink (port 33, to spine1) goes down twice.
console 'PerformanceSet "leaf-r3"[7] PortCounters.SymbolErrorCounter=42' \
  'PerformanceSet "leaf-r6"[33] PortCounters.LinkDownedCounter=2'
read_counters read2.txt
"$railkit" fabric --json fabric.txt --perfquery read1.txt --perfquery read2.txt >two.json
rc=$?
[[ $rc -eq 1 ]] || fail "rising counters: expected exit 1, found $rc"
expect fabric-port-errors "leaf-r3 port 7" \
  "leaf-r3 port 7 (cable to node007 mlx5_3 port 1): SymbolErrorCounter rose from 0 to 42 between the two reads" two.json
expect fabric-port-errors "leaf-r6 port 33" \
  "leaf-r6 port 33 (cable to spine1 port 7): LinkDownedCounter rose from 0 to 2 between the two reads" two.json
[[ $(jq '.findings | length' two.json) -eq 2 ]] || fail "rising counters: expected those two findings alone"

# The later read alone: 42 symbol errors is above the threshold (a warning,
# exit 0); 2 link-downs are not.
"$railkit" fabric --json fabric.txt --perfquery read2.txt >later.json
rc=$?
[[ $rc -eq 0 ]] || fail "one read: expected exit 0 (a warning), found $rc"
expect fabric-port-errors "leaf-r3 port 7" \
  "leaf-r3 port 7 (cable to node007 mlx5_3 port 1): SymbolErrorCounter is 42, above 10" later.json
[[ $(jq -c '[.findings[].severity]' later.json) == '["warning"]' ]] || fail "one read: $(jq -c .findings later.json)"
"$railkit" fabric fabric.txt --perfquery read1.txt --perfquery read2.txt | sed -n '/ERRORS/,$p'
echo "ok: perfquery's counters of 320 switch ports read twice; two rising counters named exactly"
