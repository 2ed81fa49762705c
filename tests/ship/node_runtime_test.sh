#!/usr/bin/env bash
# The node side in a real runtime (issue "Ship", point 7): containers started
# by a private containerd and runc from OCI specs, and `railkit doctor`
# INSIDE each container reading that container's own /proc.
#
# doctor's process rules (memlock-limit, ipc-lock-missing, shm-too-small)
# fire only where RDMA devices exist, and this machine has none: the
# container gets a node tree at /node, the example node's sys/ and dev/
# (8 mlx5 devices), with /node/proc a procfs mounted by runc for the
# container itself, and doctor runs with --root /node. Everything doctor
# reads under /node/proc/self (limits, status, mountinfo, environ) is the
# container's.
#
# 1. `railkit render node-prep` writes containerd-base-spec.sh; run against
#    the real `ctr oci spec`, its spec must say RLIMIT_MEMLOCK unlimited and
#    nothing else in process.rlimits. containerd here runs with the stock
#    node default soft limit (64 KiB; the hard limit stays this machine's),
#    which a container from the default spec inherits. A container from the
#    generated spec: where this process has CAP_SYS_RESOURCE, the spec as
#    generated (unlimited: no memlock-limit finding); where runc refuses it
#    for want of CAP_SYS_RESOURCE ("error setting rlimit type 8": the hard
#    limit cannot be raised), the generated spec with its memlock value
#    lowered to this machine's hard limit, and doctor must report that value,
#    not the inherited 64 KiB. The test says which of the two ran.
# 2. The rendered worker pod's securityContext (its capabilities, not
#    privileged) and its memory-backed /dev/shm of the rendered size: CapEff
#    has CAP_IPC_LOCK, /dev/shm has that size, and doctor reports neither
#    ipc-lock-missing nor shm-too-small; the same with capabilities drop ALL,
#    add IPC_LOCK; the default spec's container (no IPC_LOCK, 64 MiB
#    /dev/shm) gets both.
# Usage: node_runtime_test.sh DIST_TARBALL
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
source "$(dirname "$0")/lib.sh"

ship_init noderuntime
ship_tarball "${1:-}"
command -v jq >/dev/null || skip "jq not installed"
command -v python3 >/dev/null || skip "python3 not installed"
python3 -c 'import yaml' 2>/dev/null || skip "python3 yaml module not installed (python3-yaml)"

ROOTFS=$WORK/rootfs
ship_build_rootfs "$ROOTFS"
RK=/usr/local/bin/railkit
HOST_RK=$ROOTFS$RK
EXAMPLE=$ROOTFS/usr/local/share/railkit/examples/dgx-h100-8gpu
[[ -d $EXAMPLE/sys/class/infiniband ]] || fail "the tarball has no examples/dgx-h100-8gpu with sys/class/infiniband"
mkdir -p "$ROOTFS/node/proc"
cp -a "$EXAMPLE/sys" "$EXAMPLE/dev" "$ROOTFS/node/"

# --- the node-prep script over the real `ctr oci spec` ---------------------------
"$HOST_RK" render node-prep --output "$WORK/node-prep" >/dev/null 2>"$WORK/render-node-prep.err" ||
  fail "railkit render node-prep --output: $(cat "$WORK/render-node-prep.err")"
[[ -f $WORK/node-prep/containerd-base-spec.sh ]] || fail "render node-prep wrote no containerd-base-spec.sh: $(ls "$WORK/node-prep")"
sh "$WORK/node-prep/containerd-base-spec.sh" "$WORK/generated-spec.json" >"$WORK/base-spec.log" 2>&1 ||
  fail "containerd-base-spec.sh failed: $(cat "$WORK/base-spec.log")"
grep -qxF "wrote $WORK/generated-spec.json" "$WORK/base-spec.log" ||
  fail "containerd-base-spec.sh: expected 'wrote $WORK/generated-spec.json', found: $(head -n 3 "$WORK/base-spec.log")"
SPEC_EDIT=$(dirname "$0")/spec_edit.py
rlimits=$(python3 "$SPEC_EDIT" "$WORK/generated-spec.json" --print-rlimits) || fail "the generated spec is not JSON"
unlimited='[{"type":"RLIMIT_MEMLOCK","hard":18446744073709551615,"soft":18446744073709551615}]'
[[ $rlimits == "$unlimited" ]] ||
  fail "the generated spec's process.rlimits: expected $unlimited (RLIMIT_MEMLOCK unlimited, nothing else), found $rlimits"
ctr oci spec >"$WORK/default-spec.json"

# The stock node default: containerd's soft limit 64 KiB (what containers
# inherit without a base spec), the hard limit left as it is.
capeff_hex=$(awk '/^CapEff:/ {print $2}' /proc/self/status)
hard=$(awk '/^Max locked memory/ {print $5}' /proc/self/limits)
[[ $hard == unlimited ]] || ((hard >= 65536)) ||
  skip "the hard memlock limit ($hard bytes) is below the 64 KiB node default this test starts containerd with"
ulimit -S -l 64
ship_start_containerd
ulimit -S -l "$([[ $hard == unlimited ]] && echo unlimited || echo $((hard / 1024)))"

# spec_for BASE OUT ARGS...: BASE with this test's root, command, cgroup and
# the container's own procfs at /node/proc.
spec_for() {
  local base=$1 out=$2 id=$3
  shift 3
  python3 "$SPEC_EDIT" "$base" "$out" --root "$ROOTFS" --cgroup "/$CTR_NS/$id" --proc-mount /node/proc --args "$@" ||
    fail "spec_edit.py $base"
}
# in_spec NAME BASE_SPEC RAILKIT_CMD...: runs railkit's CMD (one that takes
# --json-out) in a container from BASE_SPEC; the JSON document to
# $WORK/NAME.out; sets RC. The document is the one railkit writes itself
# (--json-out into the container's root, the host's $ROOTFS/out): ctr's copy
# of a fast task's stdout comes back truncated now and then
# (containerd/containerd#856; a loaded run here once read half a document).
mkdir -p "$ROOTFS/out"
in_spec() {
  local name=$1 base=$2 id
  shift 2
  id=$(ship_id "$name")
  SHIP_CONTAINERS+=("$id")
  rm -f "$ROOTFS/out/$name.json"
  spec_for "$base" "$WORK/$name.spec.json" "$id" "$@" --json-out "/out/$name.json"
  RC=0
  ship_ctr run --rm --config "$WORK/$name.spec.json" "$id" >"$WORK/$name.stdout" 2>"$WORK/$name.err" || RC=$?
  cp "$ROOTFS/out/$name.json" "$WORK/$name.out" 2>/dev/null || : >"$WORK/$name.out"
}
doctor_json() { json_ok "$1" 'has("findings")'; }
# doctor_in NAME BASE_SPEC: doctor --root /node --json in that container.
doctor_in() {
  in_spec "$1" "$2" "$RK" doctor --root /node --json
  [[ $RC == 0 || $RC == 1 ]] || fail "doctor in the '$1' container: exit $RC; stderr: $(head -c 600 "$WORK/$1.err")"
  doctor_json "$WORK/$1.out" || fail "doctor in the '$1' container: not doctor's JSON: $(head -c 300 "$WORK/$1.out")"
}
# finding NAME ID: "severity|evidence texts" of that finding, or nothing.
finding() {
  jq -r --arg id "$2" '.findings[] | select(.id == $id) | "\(.severity)|\([.evidence[].text] | join(";"))"' "$WORK/$1.out"
}

# --- 1. memlock: the default spec against the generated one -----------------------------
doctor_in default "$WORK/default-spec.json"
f=$(finding default memlock-limit)
[[ $f == "error|Max locked memory 65536" ]] ||
  fail "default spec: expected memlock-limit error with 'Max locked memory 65536' (inherited from containerd, no IPC_LOCK), found '${f:-no memlock-limit finding}'"

# The generated spec as written first: runc sets RLIMIT_MEMLOCK unlimited
# where this machine lets it (CAP_SYS_RESOURCE).
gen_spec=$WORK/generated-spec.json
in_spec generated "$gen_spec" "$RK" doctor --root /node --json
if doctor_json "$WORK/generated.out"; then
  MODE=real
  note "memlock: the generated spec as written (RLIMIT_MEMLOCK unlimited) ran: CAP_SYS_RESOURCE (CapEff $capeff_hex)"
elif grep -q 'error setting rlimit type 8' "$WORK/generated.err"; then
  (((16#$capeff_hex >> 24) & 1)) &&
    fail "runc could not set RLIMIT_MEMLOCK unlimited although this process has CAP_SYS_RESOURCE (CapEff $capeff_hex): $(head -c 400 "$WORK/generated.err")"
  [[ $hard =~ ^[0-9]+$ ]] || fail "runc refused RLIMIT_MEMLOCK unlimited and the hard limit is '$hard': no value to test with"
  ((hard > 65536)) || skip "no CAP_SYS_RESOURCE and the hard memlock limit ($hard bytes) is not above the 64 KiB default: no value shows the spec at work"
  MODE=capped
  gen_spec=$WORK/generated-capped-spec.json
  python3 "$SPEC_EDIT" "$WORK/generated-spec.json" "$gen_spec" --memlock "$hard" || fail "spec_edit.py --memlock"
  note "memlock: no CAP_SYS_RESOURCE (CapEff $capeff_hex), runc refused the generated spec's unlimited (\"error setting rlimit type 8\"); the generated spec (checked: it says unlimited) runs with RLIMIT_MEMLOCK lowered to this machine's hard limit, $hard bytes"
  doctor_in generated "$gen_spec"
else
  fail "the generated spec's container did not run: $(head -c 600 "$WORK/generated.err")"
fi
f=$(finding generated memlock-limit)
if [[ $MODE == real ]]; then
  [[ -z $f ]] || fail "generated spec (unlimited): expected no memlock-limit finding, found '$f'"
  note "default spec: memlock-limit (error, 65536 bytes inherited); generated spec: no memlock-limit (RLIMIT_MEMLOCK unlimited)"
else
  # Below 1 GiB without CAP_IPC_LOCK doctor keeps it an error: the value
  # it reports is what shows the spec at work.
  [[ $f == "error|Max locked memory $hard" ]] ||
    fail "generated spec (memlock $hard): expected memlock-limit error with 'Max locked memory $hard' (the spec's value, not the inherited 65536), found '${f:-no memlock-limit finding}'"
  note "default spec: memlock-limit error at 65536 bytes (inherited); generated spec: memlock-limit error at $hard bytes (the spec's value; unlimited needs CAP_SYS_RESOURCE)"
fi

# --- 2. the rendered pod's securityContext and /dev/shm -------------------------------------
"$HOST_RK" render --profile "$ROOTFS/usr/local/share/railkit/examples/profiles/rdma-shared.yaml" \
  >"$WORK/pod.yaml" 2>"$WORK/render.err" || fail "railkit render --profile rdma-shared.yaml: $(cat "$WORK/render.err")"
# The first container that mounts /dev/shm: its capabilities, privileged,
# and the emptyDir behind /dev/shm (medium, sizeLimit in bytes).
python3 - "$WORK/pod.yaml" >"$WORK/pod.json" <<'EOF' || fail "no container mounting /dev/shm in the rendered pod: $(cat "$WORK/pod.json")"
import json, re, sys, yaml

def quantity(q):
    m = re.fullmatch(r"([0-9]+)(Ki|Mi|Gi|Ti|k|M|G|T)?", str(q))
    if not m:
        sys.exit(f"sizeLimit {q!r} is not a quantity this test reads")
    mult = {None: 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40,
            "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}[m.group(2)]
    return int(m.group(1)) * mult

def pod_specs(node):
    if isinstance(node, dict):
        if "containers" in node and "volumes" in node:
            yield node
        for v in node.values():
            yield from pod_specs(v)
    elif isinstance(node, list):
        for v in node:
            yield from pod_specs(v)

for doc in yaml.safe_load_all(open(sys.argv[1])):
    for spec in pod_specs(doc):
        for c in spec["containers"]:
            shm = [m for m in c.get("volumeMounts", []) if m.get("mountPath") == "/dev/shm"]
            if not shm:
                continue
            vol = [v for v in spec["volumes"] if v["name"] == shm[0]["name"]][0]
            sc = c.get("securityContext", {})
            caps = sc.get("capabilities", {})
            print(json.dumps({"container": c["name"], "add": caps.get("add", []), "drop": caps.get("drop", []),
                              "privileged": sc.get("privileged", False),
                              "medium": vol.get("emptyDir", {}).get("medium"),
                              "sizeLimit": vol.get("emptyDir", {}).get("sizeLimit"),
                              "bytes": quantity(vol["emptyDir"]["sizeLimit"])}))
            sys.exit(0)
sys.exit(1)
EOF
read -r add drop privileged medium shm_bytes < <(jq -r '"\(.add | join(",")) \(.drop | join(",") | if . == "" then "-" else . end) \(.privileged) \(.medium) \(.bytes)"' "$WORK/pod.json")
[[ $privileged == false ]] || fail "the rendered pod is privileged: expected minimal privileges"
[[ ,$add, == *,IPC_LOCK,* ]] || fail "the rendered pod's capabilities.add: expected IPC_LOCK, found '$add'"
[[ $medium == Memory ]] || fail "the rendered /dev/shm emptyDir: expected medium Memory, found '$medium'"
((shm_bytes >= 1 << 30)) || fail "the rendered /dev/shm sizeLimit: $shm_bytes bytes, expected at least 1 GiB"
# check_pod NAME ADD DROP: a container from the generated spec with the
# capabilities as the CRI builds them (the runtime's default set, the base
# spec's, minus DROP (ALL: everything), plus ADD) and /dev/shm a tmpfs of
# the rendered sizeLimit; inspect and doctor inside it.
check_pod() {
  local name=$1 add=$2 drop=$3 want_caps capeff ipc_lock shm f id
  python3 "$SPEC_EDIT" "$gen_spec" "$WORK/$name-spec.json" --caps-add "$add" --caps-drop "$drop" --shm-bytes "$shm_bytes" ||
    fail "spec_edit.py: the $name spec"
  mapfile -t pod_caps < <(jq -r '.process.capabilities.effective[]' "$WORK/$name-spec.json")
  want_caps=$(ship_cap_mask "${pod_caps[@]}")
  in_spec "$name-inspect" "$WORK/$name-spec.json" "$RK" inspect --root /node --json
  [[ $RC == 0 ]] || fail "inspect in the $name container: exit $RC; stderr: $(head -c 600 "$WORK/$name-inspect.err")"
  read -r capeff ipc_lock shm < <(jq -r '.process | "\(.cap_eff) \(.cap_ipc_lock) \(.shm_bytes)"' "$WORK/$name-inspect.out")
  [[ $capeff == "$want_caps" && $ipc_lock == true ]] ||
    fail "$name container (add $add, drop $drop): expected CapEff $want_caps with CAP_IPC_LOCK, found CapEff $capeff (cap_ipc_lock $ipc_lock)"
  [[ $shm == "$shm_bytes" ]] || fail "$name container: expected /dev/shm of $shm_bytes bytes (the rendered sizeLimit), found $shm"
  doctor_in "$name" "$WORK/$name-spec.json"
  for id in ipc-lock-missing shm-too-small; do
    f=$(finding "$name" "$id")
    [[ -z $f ]] || fail "$name container (IPC_LOCK, /dev/shm $shm_bytes bytes): expected no $id finding, found '$f'"
  done
  f=$(finding "$name" memlock-limit)
  if [[ $MODE == real ]]; then
    [[ -z $f ]] || fail "$name container (generated spec, unlimited): expected no memlock-limit finding, found '$f'"
  else
    [[ $f == "warning|Max locked memory $hard" ]] ||
      fail "$name container (IPC_LOCK, memlock $hard): expected memlock-limit as a warning (CAP_IPC_LOCK: the kernel does not hold registrations to it), found '${f:-none}'"
  fi
  note "$name container (capabilities add ${add}, drop ${drop}; not privileged; /dev/shm $shm_bytes bytes): CapEff $capeff, no ipc-lock-missing or shm-too-small"
}
check_pod pod "$add" "$drop"
# The hardened form (drop ALL, add IPC_LOCK) where the render does not drop
# ALL itself: IPC_LOCK alone is enough for doctor to read the node tree.
[[ ,$drop, == *,ALL,* ]] || check_pod pod-drop-all IPC_LOCK ALL
for id in ipc-lock-missing shm-too-small; do
  f=$(finding default "$id")
  [[ $f == error* ]] || fail "default spec container (no IPC_LOCK, 64 MiB /dev/shm): expected $id (error), found '${f:-none}'"
done
note "default spec container (no IPC_LOCK, 64 MiB /dev/shm): ipc-lock-missing and shm-too-small reported"
note "node runtime ($MODE memlock test): ok"
