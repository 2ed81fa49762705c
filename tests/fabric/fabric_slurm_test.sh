#!/usr/bin/env bash
# The topology.conf railkit fabric --topology-out writes, read by a real
# slurmctld (Debian's slurm-wlm 22.05, with munge): a 3-tier fabric (64 nodes
# x 8 rails in 4 groups of 16, 2 pods, 2 cores, make_rail_fabric.py) is
# loaded with TopologyPlugin=topology/tree, and `scontrol show topology`
# must give back every switch line as written: the 4 blocks with their 16
# nodes each, the 2 spine groups over their blocks, the core over both. Then
# a topology.conf that names a node slurm.conf does not have is refused in
# slurmctld's log, so the check is not a formality.
# slurmctld and munged run in a network namespace of their own (the
# controller's address on a veth pair inside it: glibc's getaddrinfo with
# AI_ADDRCONFIG, as Slurm calls it, finds no IPv4 address on loopback alone),
# a UTS namespace named after the controller, and a mount namespace whose
# /etc/hosts is the test's (every name resolves from it, no DNS), with every
# file in a scratch directory. Needs root; skips (77) without it or the
# packages.
# Usage: fabric_slurm_test.sh RAILKIT MAKE_RAIL_FABRIC
set -uo pipefail
railkit=$(realpath "$1") generate=$(realpath "$2")

skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || skip "needs root (slurmctld and munged in a network namespace)"
for tool in slurmctld scontrol munged python3 ip unshare; do
  command -v "$tool" >/dev/null ||
    skip "$tool not installed (scripts/install-deps.sh installs slurmctld, slurm-client and munge)"
done

ns=rk-slurm-$$
work=$(mktemp -d /tmp/railkit-slurm.XXXXXX)
chmod 700 "$work"
cleanup() {
  local pids
  pids=$(ip netns pids "$ns" 2>/dev/null)
  [[ -n $pids ]] && kill $pids 2>/dev/null && sleep 0.3
  pids=$(ip netns pids "$ns" 2>/dev/null)
  [[ -n $pids ]] && kill -9 $pids 2>/dev/null
  ip netns del "$ns" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$ns" || fail "ip netns add $ns"
ip -n "$ns" link set lo up
ip -n "$ns" link add rk0 type veth peer name rk1 || fail "veth in $ns"
ip -n "$ns" addr add 10.77.0.1/16 dev rk0
ip -n "$ns" link set rk0 up && ip -n "$ns" link set rk1 up
{
  echo "127.0.0.1 localhost"
  echo "10.77.0.1 slurmctl"
  for i in $(seq 1 64); do printf '10.77.1.%d node%03d\n' "$i" "$i"; done
} >"$work/hosts"
in_ns() {
  ip netns exec "$ns" unshare --uts --mount sh -c \
    'mount --bind "$0" /etc/hosts && hostname slurmctl && exec "$@"' "$work/hosts" "$@"
}

python3 "$generate" --format ibnetdiscover --nodes 64 --rails 8 --group 16 --pods 2 --spines 4 --cores 2 \
  >"$work/fabric.txt" || fail "make_rail_fabric.py failed"
"$railkit" fabric --topology-out "$work/topology" "$work/fabric.txt" >/dev/null ||
  fail "railkit fabric --topology-out failed"

# munge: a key of this test's own, its socket in the scratch directory.
dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 status=none && chmod 400 "$work/munge.key"
mkdir -m 700 "$work/munge"
in_ns munged --force --key-file="$work/munge.key" --socket="$work/munge/munge.socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" ||
  fail "munged did not start: $(cat "$work/munge/munged.log" 2>/dev/null)"

# conf DIR TOPOLOGY: slurm.conf for a controller named slurmctl with node001..064.
conf() {
  mkdir -p "$1/state"
  cp "$2" "$1/topology.conf"
  cat >"$1/slurm.conf" <<EOF
ClusterName=railkit
SlurmctldHost=slurmctl(10.77.0.1)
SlurmctldPort=$((20000 + $$ % 20000))
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$1/state
SlurmctldPidFile=$1/slurmctld.pid
SlurmctldLogFile=$1/slurmctld.log
SlurmctldDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
TopologyPlugin=topology/tree
MpiDefault=none
ReturnToService=2
NodeName=node[001-064] NodeAddr=10.77.1.[1-64] CPUs=1 State=UNKNOWN
PartitionName=all Nodes=ALL Default=YES
EOF
}
# controller DIR: starts slurmctld on DIR's configuration; waits (30 s at
# most) until scontrol reaches it.
controller() {
  in_ns slurmctld -c -f "$1/slurm.conf" || fail "slurmctld did not start: $(tail -n 5 "$1/slurmctld.log")"
  local i
  for ((i = 0; i < 300; i++)); do
    in_ns env SLURM_CONF="$1/slurm.conf" scontrol ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  tail -n 20 "$1/slurmctld.log" >&2
  fail "slurmctld on $1 did not answer within 30 s"
}
stop_controller() {
  kill "$(cat "$1/slurmctld.pid")" 2>/dev/null
  local i
  for ((i = 0; i < 100; i++)); do kill -0 "$(cat "$1/slurmctld.pid")" 2>/dev/null || return 0; sleep 0.1; done
}

conf "$work/good" "$work/topology/topology.conf"
controller "$work/good"
in_ns env SLURM_CONF="$work/good/slurm.conf" scontrol show topology >"$work/shown.txt" ||
  fail "scontrol show topology failed"
stop_controller "$work/good"
# Every SwitchName line railkit wrote comes back with the same children.
python3 - "$work/topology/topology.conf" "$work/shown.txt" <<'PY' || fail "slurmctld's topology differs"
import sys
def switches(lines):
    out = {}
    for line in lines:
        fields = dict(f.split('=', 1) for f in line.split() if '=' in f)
        if 'SwitchName' in fields:
            out[fields['SwitchName']] = fields
    return out
written = switches(l for l in open(sys.argv[1]) if not l.startswith('#'))
shown = switches(open(sys.argv[2]))
assert len(written) == 7, written
for name, fields in written.items():
    assert name in shown, f"{name} not in scontrol's topology: {sorted(shown)}"
    for key in ('Nodes', 'Switches'):
        if key in fields:
            assert shown[name].get(key) == fields[key], f"{name}: wrote {key}={fields[key]}, slurmctld has {shown[name]}"
assert shown['core1'].get('Nodes') == 'node[001-064]', shown['core1']
print(f"ok: slurmctld read all {len(written)} switches as written, the core over node[001-064]")
PY
grep -q 'SwitchName=leaf-g2-r0 Level=0 .*Nodes=node\[017-032\]' "$work/shown.txt" ||
  fail "scontrol shows no block leaf-g2-r0 at level 0 with node017..032: $(head -3 "$work/shown.txt")"
grep -q 'SwitchName=core1 Level=2 .*Switches=spine-p1-1,spine-p2-1' "$work/shown.txt" ||
  fail "scontrol shows no core1 at level 2: $(grep core1 "$work/shown.txt")"
if grep -i 'error.*switch' "$work/good/slurmctld.log" >&2; then
  fail "slurmctld complained about railkit's switches (above)"
fi

# Not a formality: a node slurm.conf does not define is refused.
sed 's/node\[017-032\]/node[017-032],gpu999/' "$work/topology/topology.conf" >"$work/bad-topology.conf"
conf "$work/bad" "$work/bad-topology.conf"
in_ns slurmctld -c -f "$work/bad/slurm.conf" >/dev/null 2>&1
for ((i = 0; i < 300; i++)); do
  grep -q 'Invalid hostnames in switch configuration: gpu999' "$work/bad/slurmctld.log" 2>/dev/null && break
  sleep 0.1
done
stop_controller "$work/bad"
grep -q 'Invalid hostnames in switch configuration: gpu999' "$work/bad/slurmctld.log" ||
  fail "slurmctld did not complain about the unknown node gpu999: $(tail -n 5 "$work/bad/slurmctld.log")"
echo "ok: slurmctld 22.05 (topology/tree) read railkit's topology.conf as written, and refused an unknown node"
