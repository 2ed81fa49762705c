#!/bin/bash
# The lldpd DaemonSet `railkit render` writes with `lldp: daemonset`, run as
# rendered: its command, with exactly its capabilities (bounding set, no new
# privileges), in a network namespace whose rail is cabled to a "leaf"
# running its own lldpd. Then the validate pod's side: its lldpctl command,
# taken verbatim from the rendered --lldpctl, through the host directory
# mounted read-only at the pod's path (in a private mount namespace), must
# see the leaf. The host directory is a scratch one, not the node's /run.
# Usage: render_lldpd_test.sh RAILKIT. Needs root; skips (77) without it.
set -u
railkit=$1
skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; [[ -f ${work:-}/lldpd.log ]] && tail -5 "$work/lldpd.log" >&2; exit 1; }
[[ $(id -u) == 0 ]] || skip "needs root (network and mount namespaces)"
for tool in lldpd lldpctl setpriv unshare ip python3; do
  command -v "$tool" >/dev/null || skip "$tool not installed (scripts/install-deps.sh installs lldpd)"
done
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml not installed"

prefix=rk-rl-$$
node=$prefix-n
leaf=$prefix-l
work=$(mktemp -d /tmp/railkit-render-lldpd.XXXXXX)
chmod 755 "$work"  # lldpd drops to _lldpd
RK_LLDPD_DIR=$work
source "$(dirname "$0")/../support/lldpd_lib.sh"
cleanup() {
  rk_netns_delete "$node" "$leaf"
  rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/profile.yaml" <<'YAML'
image: registry.example.com/nccl:1
fabric: roce
mode: sriov
launcher: indexed-job
gpusPerNode: 1
dataInterfaces: [ens1f0]
lldp: daemonset
lldpImage: registry.example.com/lldpd:1
test: validate
YAML
"$railkit" render --profile "$work/profile.yaml" --job-token fixed-job-token-for-tests-0123456789 \
  >"$work/rendered.yaml" || fail "railkit render"

# What the DaemonSet runs and the validate pod mounts, from the render.
python3 - "$work/rendered.yaml" >"$work/facts" <<'PY' || fail "the render lacks the lldpd DaemonSet or the validate pod's mount"
import re, shlex, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
ds = next(d for d in docs if d["kind"] == "DaemonSet")["spec"]["template"]["spec"]
c = ds["containers"][0]
host_dir = ds["volumes"][0]["hostPath"]["path"]
assert c["volumeMounts"][0]["mountPath"] == host_dir
assert ds["hostNetwork"] is True and c["securityContext"]["capabilities"]["drop"] == ["ALL"]
pod = next(d for d in docs if d["kind"] == "Job")["spec"]["template"]["spec"]
vol = next(v for v in pod["volumes"] if v["name"] == "lldpd-socket")
mnt = next(m for m in pod["containers"][0]["volumeMounts"] if m["name"] == "lldpd-socket")
assert vol["hostPath"]["path"] == host_dir and mnt["readOnly"] is True
lldpctl = re.search(r'--lldpctl "([^"]*)"', pod["containers"][0]["command"][2]).group(1)
caps = ",".join("+" + x.lower() for x in c["securityContext"]["capabilities"]["add"])
print("host_dir=" + shlex.quote(host_dir))
print("command=" + shlex.quote(shlex.join(c["command"])))
print("caps=" + shlex.quote(caps))
print("pod_dir=" + shlex.quote(mnt["mountPath"]))
print("lldpctl=" + shlex.quote(lldpctl))
PY
source "$work/facts"
scratch=$work/host-run
mkdir -m 755 "$scratch"
command=${command//$host_dir/$scratch}
[[ $command == lldpd\ -d\ -u\ $scratch/* ]] || fail "unexpected lldpd command: $command"

ip netns add "$leaf" || fail "ip netns add $leaf"
ip netns add "$node" || fail "ip netns add $node"
ip link add ens1f0 netns "$node" type veth peer name swp7 netns "$leaf" || fail "veth"
for ns in "$node" "$leaf"; do ip -n "$ns" link set lo up; done
ip -n "$node" link set ens1f0 up
ip -n "$leaf" link set swp7 up
rk_lldpd_start "$leaf" leaf-r0 swp7
# The DaemonSet's container: the rendered command, the rendered capabilities only.
ip netns exec "$node" setpriv --no-new-privs --inh-caps=-all --bounding-set="-all,$caps" -- \
  sh -c "exec $command" 2>"$work/lldpd.log" &

# The validate pod: the host directory read-only at the pod's path.
pod_side() {
  ip netns exec "$node" unshare -m --propagation private sh -c \
    "mount -t tmpfs tmpfs /run && mkdir -p '$pod_dir' && mount --bind '$scratch' '$pod_dir' &&
     mount -o remount,bind,ro '$pod_dir' && $1"
}
for ((i = 0; i < 200; i++)); do
  pod_side "$lldpctl" >"$work/neighbours.json" 2>&1 && grep -q leaf-r0 "$work/neighbours.json" && break
  sleep 0.1
done
grep -q leaf-r0 "$work/neighbours.json" || fail "the pod's lldpctl never saw the leaf: $(head -c 300 "$work/neighbours.json")"
grep -q '"swp7"' "$work/neighbours.json" || fail "no leaf port in $(head -c 300 "$work/neighbours.json")"
pod_side "touch '$pod_dir/x'" 2>/dev/null && fail "the pod could write the socket directory"
grep -E "CRIT|FATAL|unable to drop privileges" "$work/lldpd.log" && fail "lldpd lacks a capability"
echo "ok: the rendered lldpd ($caps) heard leaf-r0 swp7; the pod's '$lldpctl' read it through a read-only mount"
