# Sourced by fabric_ibsim_test.sh in its `sm` mode, once ibsim runs the
# fabric in $ns and $work/fabric.txt holds what ibnetdiscover printed:
# railkit fabric --sminfo with no subnet manager, with one master, and with
# two masters (a second fabric's OpenSM, in a second ibsim).

# sminfo_until NS FILE PATTERN: sminfo's stdout and stderr into FILE, again
# until it shows PATTERN (20 s at most; an SM takes a sweep to become master).
sminfo_until() {
  local i
  for ((i = 0; i < 100; i++)); do
    ip netns exec "$1" timeout 10 ibsim-run sminfo >"$2" 2>&1
    grep -q -- "$3" "$2" && return 0
    sleep 0.2
  done
  cat "$2" >&2
  fail "sminfo never showed '$3'"
}
cd "$work" || fail "cd $work"

# No SM: `opensm -o` swept once and exited.
sminfo_until "$ns" none.txt "iberror"
"$railkit" fabric --json fabric.txt --sminfo none.txt >none.json
rc=$?
[[ $rc -eq 1 ]] || fail "no subnet manager: expected exit 1, found $rc"
expect ib-no-subnet-manager none.txt \
  "sminfo found no subnet manager ('sminfo: iberror: failed: query'): ports stay INIT without LIDs or routes, and no queue pair reaches another node" none.json
[[ $(jq '.findings | length' none.json) -eq 1 ]] || fail "no SM: expected that finding alone"

# One master: OpenSM keeps running.
in_ns env OSM_CACHE_DIR="$work" ibsim-run opensm -F "$work/opensm.conf" -f "$work/opensm-bg.log" >/dev/null 2>&1 &
sminfo_until "$ns" master.txt "SMINFO_MASTER"
"$railkit" fabric --json fabric.txt --sminfo master.txt >master.json
rc=$?
[[ $rc -eq 0 ]] || fail "one master: expected exit 0, found $rc"
[[ $(jq -c '[(.findings | length), .fabric.sm_masters]' master.json) == '[0,["0x200000 (lid 1)"]]' ]] ||
  fail "one master: $(jq -c '[.findings, .fabric.sm_masters]' master.json)"

# Two masters: the same fabric again in a second namespace, its switch
# GUIDs from 0x300000 (ibsim's switchguid= line), with its own OpenSM.
ip netns add "$ns2" || skip "cannot create a second network namespace"
{ echo "switchguid=0x300000"; cat net; } >net2
mkfifo ctl2
ip netns exec "$ns2" ibsim -s net2 <ctl2 >ibsim2.log 2>&1 &
exec 8>ctl2
for ((i = 0; i < 200; i++)); do grep -q "simulator ready" ibsim2.log && break; sleep 0.1; done
ip netns exec "$ns2" env OSM_CACHE_DIR="$work" ibsim-run opensm -F "$work/opensm.conf" -f "$work/opensm2.log" \
  >/dev/null 2>&1 &
sminfo_until "$ns2" other.txt "SMINFO_MASTER"
"$railkit" fabric --json fabric.txt --sminfo master.txt --sminfo other.txt >two.json
rc=$?
[[ $rc -eq 1 ]] || fail "two masters: expected exit 1, found $rc"
# Its OpenSM gives its own port whatever LID its sweep hands out first.
lid2=$(sed -n 's/^sminfo: sm lid \([0-9]*\) .*/\1/p' other.txt)
expect fabric-sm-masters fabric \
  "2 subnet managers are master: 0x200000 (lid 1, seen by master.txt), 0x300000 (lid $lid2, seen by other.txt); each programs its own LIDs and routes, so the fabric is split or its SMs do not see each other" two.json
[[ $(jq '.findings | length' two.json) -eq 1 ]] || fail "two masters: expected that finding alone"
"$railkit" fabric fabric.txt --sminfo master.txt --sminfo other.txt | sed -n '1,4p;/ERRORS/,$p'
echo "ok: no subnet manager, one master and two masters, each as sminfo printed it"
