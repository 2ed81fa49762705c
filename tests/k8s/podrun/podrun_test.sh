#!/usr/bin/env bash
# One launch of a rendered manifest on netns nodes (docs/render.md, "Proof:
# the pod runner"): renders profiles/tcp.yaml for MODE x LAUNCHER on NODES
# nodes, runs every pod with podrun.sh and checks that
#   - every pod ends (the MPI Operator's workers are deleted after the
#     launcher), nothing is left running in any pod;
#   - rank 0's table lists NODES ranks on NODES distinct hosts, the pods'
#     hostnames, each on tcp net1, with #wrong 0;
#   - net1 carried the bytes on every rank's pod.
# With TOOL nccl-tests it renders profiles/nccl-tests.yaml and swaps the
# binary and its flags (all_reduce_perf ... -> railkit bench all_reduce over
# tcp): the same checks then prove the nccl-tests launch (sshd, wait-dns and
# mpirun from rank 0, or the launcher).
# With GPUS > 1 (gpusPerNode), each pod runs GPUS ranks (railkit bench
# --nproc-per-node, or mpirun's slots): NODES x GPUS ranks on NODES hosts.
# With MODE gke-tcpxo the image carries a stand-in RxDM (gke-tcpxo/image)
# and each node the installer's nccl-env-profile.sh (gke-tcpxo/node); then
# also (tcpxo_checks, below): tcpxo-daemon ran as a native sidecar with the
# flags v1.0.20 takes, stayed up until the test ended and was stopped by
# SIGTERM; the test process ran with the profile's NCCL_FASTRAK_* and
# NCCL_TUNER_CONFIG_PATH and the pod's own interface names over them.
# With INJECT `inject` it renders with --railkit-image: every container of
# the railkit image runs in that image's own root (glibc and railkit, as
# scripts/build-rootfs.sh makes it) and the test image has no railkit at all
# (the runner refuses a container that finds one on its PATH), so the run
# can only pass through the copy each pod's initContainer made; then also
# (inject_checks, below): every pod ran railkit-install first, as nobody,
# from the railkit image, and every main container called
# /opt/railkit/railkit, never a bare railkit.
# Usage: podrun_test.sh RAILKIT PODPLAN MODE LAUNCHER NODES [TOOL [GPUS [INJECT]]]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/podrun.sh"
rk=$1 podplan=$2 mode=$3 launcher=$4 nodes=$5 tool=${6:-railkit} gpus=${7:-1} inject=${8:-}
railkit_image=railkit:podrun-inject
railkit=railkit
inject_flags=()
if [[ $inject == inject ]]; then
  export PR_RAILKIT_IMAGE=$railkit_image
  railkit=/opt/railkit/railkit
  inject_flags=(--railkit-image "$railkit_image")
fi
profile="$here/profiles/tcp.yaml"
[[ $tool == nccl-tests ]] && profile="$here/profiles/nccl-tests.yaml"
[[ $mode == gke-tcpxo ]] && profile="$here/profiles/gke-tcpxo.yaml"
# PODRUN_PROFILE: another profile (spiderpool_test.sh's subnet plans);
# PODRUN_CHECKS: a script whose podrun_extra_checks runs after the checks below.
profile=${PODRUN_PROFILE:-$profile}

render() {
  "$rk" render --profile "$profile" --mode "$mode" --launcher "$launcher" --nodes "$nodes" --gpus-per-node "$gpus" \
    --job-token podrun-fixed-job-token-0123456789 "${inject_flags[@]}" | as_tcp_test
}

# The renders run as rendered, except for nccl-tests: netns nodes have no GPU
# and no RDMA device, so its binary and flags become railkit bench over tcp
# and railkit env runs without --check (tcp needs no RDMA device). The rest of
# the launch (sshd, wait-dns, mpirun from rank 0 or the launcher, how the
# pods end) is the nccl-tests render's own; compare_test.sh checks the swap
# touches nothing else.
as_tcp_test() {
  if [[ $tool == nccl-tests ]]; then
    sed -e "s|$(nccl_binary)|$(railkit_binary)|" -e 's|\(railkit env [^)]*\) --check)|\1)|'
  else
    cat
  fi
}
nccl_binary() { echo "all_reduce_perf -b 1000 -e 1M -f 2 -g 1"; }
railkit_binary() { echo "$railkit bench all_reduce --backend tcp --data-if =net1 --ctrl-if =eth0 -b 1000 -e 1M"; }

if [[ $mode == gke-tcpxo ]]; then
  export PR_IMAGE_EXTRA="$here/gke-tcpxo/image" PR_NODE_ROOT="$here/gke-tcpxo/node"
  # The image ships the entrypoint without the execute bit: the render's chmod must run.
  [[ -x $PR_IMAGE_EXTRA/fts/entrypoint_rxdm_container.sh ]] &&
    { echo "FAIL: the stand-in entrypoint is executable in the checkout (want mode 644)" >&2; exit 1; }
fi

pr_run "$podplan" "$rk" <(render) 90
rc=$?
((rc == 77)) && exit 77
log=$(pr_report_log)
cat "$log"
if ((rc != 0)); then
  # netns nodes have no RDMA device: say so when that is what stopped the pods.
  if grep -qs 'railkit env .*--check' "$PR_PLAN"/pods/*/c/*/command.txt &&
    grep -qs 'missing: data interface .*no RDMA device' "$PR_PLAN"/pods/*/logs/*.log; then
    echo "FAIL: railkit env --check found no RDMA device behind the data interface: netns nodes have none," \
      "and backend tcp needs none; the render should not pass --check to railkit env for backend tcp" >&2
  fi
  echo "FAIL: not every pod ended as it should (above)" >&2
  exit 1
fi

fail() { echo "FAIL: $mode $launcher: $*" >&2; exit 1; }
ranks=$(grep -c '^#  Rank' "$log")
((ranks == nodes * gpus)) || fail "rank 0's table lists $ranks ranks, want $((nodes * gpus)) ($nodes pods x $gpus)"
hosts=$(awk '/^#  Rank/ { for (i = 1; i < NF; i++) if ($i == "on") print $(i + 1) }' "$log" | sort -u)
(($(wc -l <<<"$hosts") == nodes)) || fail "the ranks ran on $(wc -l <<<"$hosts") distinct hosts, want $nodes: $hosts"
for host in $hosts; do
  awk -F'\t' -v h="$host" '$3 == h { found = 1 } END { exit !found }' "$PR_PLAN/pods.tsv" ||
    fail "rank host $host is no pod's hostname"
done
# The data interface as the pods name it: net1 (Multus), dranet0 (DRA), the
# node's NIC (hostNetwork): the first data interface the plan gave a pod.
data_if=$(awk '$3 == "data" { print $1; exit }' "$PR_PLAN"/pods/*/netifs)
[[ -n $data_if ]] || fail "no pod has a data interface"
(($(grep '^#  Rank' "$log" | grep -c " tcp $data_if ") == nodes * gpus)) || fail "not every rank line shows tcp on $data_if"
rows=$(awk '$1 ~ /^[0-9]+$/ && NF == 13' "$log" | wc -l)
bad=$(awk '$1 ~ /^[0-9]+$/ && NF == 13 && ($9 != 0 || $13 != 0)' "$log" | wc -l)
((rows > 0 && bad == 0)) || fail "$rows data rows, $bad with #wrong != 0"
grep -q 'Out of bounds values : 0 OK' "$log" || fail "the table does not end with 'Out of bounds values : 0 OK'"
# The data interface carries the collective's bytes on every pod that has it
# (the ranks' pods); eth0 carries the rendezvous and, under mpirun, ssh and ORTE.
while IFS=$'\t' read -r node pod host end role job ctrl; do
  grep -q "^$data_if " "$PR_PLAN/pods/$pod/netifs" || continue
  c=$(rk_iface_bytes "$node" eth0) d=$(rk_iface_bytes "$node" "$data_if")
  echo "pod $pod: eth0 $c bytes, $data_if $d bytes"
  ((d > 1000000 && c * 10 < d)) || fail "pod $pod: $data_if did not carry the bytes (eth0 $c, $data_if $d)"
done <"$PR_PLAN/pods.tsv"
[[ $mode == gke-tcpxo ]] && { source "$here/tcpxo_checks.sh"; tcpxo_checks; }
# The injection: each pod's first init container copied railkit from the
# railkit image as nobody, and the test containers ran that copy.
inject_checks() {
  local pod first n=0
  while IFS=$'\t' read -r node pod host end role job ctrl; do
    local d="$PR_PLAN/pods/$pod"
    first=$(head -n 1 "$d/containers")
    [[ $first == "init railkit-install" ]] || fail "pod $pod: the first container is '$first', want init railkit-install"
    [[ $(cat "$d/c/railkit-install/image") == "$railkit_image" ]] || fail "pod $pod: railkit-install's image is not $railkit_image"
    grep -qx "user 65534 65534" "$d/c/railkit-install/security" || fail "pod $pod: railkit-install does not run as nobody"
    [[ $(cat "$d/status/railkit-install.rc") == 0 ]] || fail "pod $pod: railkit-install ended $(cat "$d/status/railkit-install.rc")"
    grep -qx "railkit: installed /opt/railkit/railkit" "$d/logs/railkit-install.log" ||
      fail "pod $pod: railkit-install said: $(cat "$d/logs/railkit-install.log")"
    while read -r kind name; do
      [[ $kind == main ]] || continue
      grep -qx "ro railkit-bin /opt/railkit" "$d/c/$name/volumes" || fail "pod $pod: $name does not mount railkit-bin read-only"
      grep -q "/opt/railkit/railkit " "$d/c/$name/command.txt" || fail "pod $pod: $name never calls /opt/railkit/railkit"
      grep -Eq "(^|[^/])railkit (env|bench|validate|wait-dns)" "$d/c/$name/command.txt" &&
        fail "pod $pod: $name calls a railkit from the image's PATH"
      n=$((n + 1))
    done <"$d/containers"
  done <"$PR_PLAN/pods.tsv"
  echo "injection: $n test containers ran /opt/railkit/railkit, copied by railkit-install (nobody) from $railkit_image"
}
[[ $inject == inject ]] && inject_checks
if [[ -n ${PODRUN_CHECKS:-} ]]; then source "$PODRUN_CHECKS"; podrun_extra_checks; fi
echo "ok: $mode $launcher: $((nodes * gpus)) ranks on $nodes hosts over $data_if, every pod ended"
