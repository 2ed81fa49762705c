#!/usr/bin/env bash
# The validate render really runs (docs/render.md, "test: validate"):
# renders profiles/validate.yaml (railkit validate over tcp, one data rail,
# no GPU) for MODE x LAUNCHER on NODES nodes and runs it unedited on netns
# nodes, each pod with one fake RDMA device behind net1 (a RoCE v2 port,
# /dev/infiniband/uverbs0): mlx5_0 in every pod with rdma-shared (the PF's
# device, shared), another name in each pod with sriov (a VF: mlx5_1,
# mlx5_2, ...), which phase 2 must compare by rail (net1), not by name.
# Checks that
#   - rank 0's verdict lists NODES nodes, the pods' hostnames, each with
#     "nics 1/1 gpus 0/0" (the profile's counts reached --expect-nics and
#     --expect-gpus, and railkit env's rail is the pod's device);
#   - the verdict is PASS and rank 0's pod ended 0 (mpijob: the launcher,
#     through mpirun). The pods have IPC_LOCK, so where this machine cannot
#     give them an unlimited memlock (no CAP_SYS_RESOURCE) memlock-limit is
#     a warning, not an error: the kernel does not hold a process with
#     CAP_IPC_LOCK to the limit when it registers memory;
#   - every other pod ended by itself (0) or was deleted by its controller,
#     and nothing is left running;
#   - phases 3 and 4 ran over net1, and net1 carried the bytes on every pod.
# With MISSING "last", the plan's last pod (a rank other than 0) gets no RDMA
# device: the verdict must be FAIL, naming that node with "nics 0/1" and
# exactly rdma-no-devices and rdma-nic-count (railkit env has no --check, so
# the pod still joins and validate names what it lacks), and rank 0's pod
# must end 1.
# Usage: validate_test.sh RAILKIT PODPLAN MODE LAUNCHER [NODES [MISSING]]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/podrun.sh"
rk=$1 podplan=$2 mode=$3 launcher=$4 nodes=${5:-2} missing=${6:-}

render() {
  "$rk" render --profile "$here/profiles/validate.yaml" --mode "$mode" --launcher "$launcher" --nodes "$nodes" \
    --job-token podrun-fixed-job-token-0123456789
}

fail() { echo "FAIL: validate $mode $launcher: $*" >&2; exit 1; }

# pr_run's own verdict on the pods is not this test's: rank 0's pod may end
# 1 on purpose (below), so each pod's end is checked here.
fake=same
[[ $mode == sriov ]] && fake=1
PR_FAKE_RDMA=$fake PR_FAKE_RDMA_MISSING=$missing pr_run "$podplan" "$rk" <(render) 45
rc=$?
((rc == 77)) && exit 77
[[ -n $PR_PLAN && -f $PR_PLAN/pods.tsv ]] || fail "the pod runner did not plan the pods (above)"
log=$(pr_report_log)
[[ -f $log ]] || fail "no log of rank 0's pod"

want=PASS want_rc=0
lacking=""
if [[ -n $missing ]]; then
  want=FAIL want_rc=1
  lacking=$(tail -n 1 "$PR_PLAN/pods.tsv" | cut -f3)
  [[ $lacking != "$(awk -F'\t' -v p="$(cat "$PR_PLAN/report")" '$2 == p { print $3 }' "$PR_PLAN/pods.tsv")" ]] ||
    fail "the pod left without a device ($lacking) is rank 0's report pod"
fi
verdict=$(grep -m1 '^VERDICT: ' "$log")
[[ $verdict == "VERDICT: $want ("* ]] || fail "rank 0's verdict is '$verdict', want $want"

# The Nodes section: one line per node, then its findings, up to a blank line.
node_lines=$(awk '/^Nodes:$/ { on = 1; next } on && /^$/ { exit } on' "$log")
hosts=$(awk '/^  [^ ]/ { print $1 }' <<<"$node_lines")
(($(wc -l <<<"$hosts") == nodes)) || fail "the verdict lists $(wc -l <<<"$hosts") nodes, want $nodes: $hosts"
(($(sort -u <<<"$hosts" | wc -l) == nodes)) || fail "the verdict's nodes are not $nodes distinct hosts: $hosts"
for host in $hosts; do
  awk -F'\t' -v h="$host" '$3 == h { found = 1 } END { exit !found }' "$PR_PLAN/pods.tsv" ||
    fail "verdict node $host is no pod's hostname"
done
# Each node's line and its findings' ids: exactly what this machine and the
# missing device explain, nothing else.
for host in $hosts; do
  block=$(awk -v h="$host" '/^  [^ ]/ { on = ($1 == h) } on' <<<"$node_lines")
  ids=$(grep -o '^      \[[a-z0-9-]*\]' <<<"$block" | tr -d ' []' | sort | tr '\n' ' ')
  if [[ $host == "$lacking" ]]; then
    want_counts="nics 0/1 gpus 0/0" want_ids="rdma-nic-count rdma-no-devices "
  else
    want_counts="nics 1/1 gpus 0/0" want_ids=""
  fi
  [[ $(head -n 1 <<<"$block") == *"$want_counts" ]] || fail "node $host: want '$want_counts': $block"
  [[ $ids == "$want_ids" ]] || fail "node $host: findings '$ids', want '$want_ids'"
done
# Outliers only name the node without a device.
outliers=$(for host in $hosts; do
  awk -v h="$host" '/^  [^ ]/ { on = ($1 == h) } on' <<<"$node_lines" | grep -q '^      outlier: ' && echo "$host"
done | sort -u)
[[ $outliers == "$lacking" ]] || fail "outliers name '$outliers', want '${lacking:-none}'"

# Rank 0's pod ended with the verdict; the others ended or were deleted.
report=$(cat "$PR_PLAN/report")
while IFS=$'\t' read -r node pod host end role job ctrl; do
  phase=${PR_END[$pod]:-Running}
  main=$(awk '$1 == "main" { print $2; exit }' "$PR_PLAN/pods/$pod/containers")
  code=$(cat "$PR_PLAN/pods/$pod/status/$main.rc" 2>/dev/null || echo -)
  if [[ $pod == "$report" ]]; then
    [[ $code == "$want_rc" ]] || fail "rank 0's pod $pod: $phase, $main exit $code, want $want_rc (the verdict $want)"
  else
    [[ $phase == Succeeded || $phase == Deleted* ]] || fail "pod $pod did not end as it should: $phase, $main exit $code"
  fi
  [[ -z $(ip netns pids "$(rk_node "$node")") ]] || fail "pod $pod left processes behind"
done <"$PR_PLAN/pods.tsv"

# Phases 3 and 4 over net1; net1 carried the bytes on every rank's pod.
grep -q '^railkit validate: .* data interface net1, control interface eth0$' "$log" ||
  fail "rank 0's header does not say data interface net1, control interface eth0"
(($(grep -cE '^#    r[0-9]+ .* = [^ ]+ net1 ' "$log") == nodes)) || fail "the pairs matrix does not show every rank on net1"
(($(grep '^#  Rank' "$log" | grep -c ' tcp net1 ') == nodes)) || fail "not every collective rank shows tcp on net1"
while IFS=$'\t' read -r node pod host end role job ctrl; do
  grep -q '^net1 ' "$PR_PLAN/pods/$pod/netifs" || continue
  c=$(rk_iface_bytes "$node" eth0) d=$(rk_iface_bytes "$node" net1)
  echo "pod $pod: eth0 $c bytes, net1 $d bytes"
  ((d > 1000000 && c * 10 < d)) || fail "pod $pod: net1 did not carry the bytes (eth0 $c, net1 $d)"
done <"$PR_PLAN/pods.tsv"
echo "ok: validate $mode $launcher: $nodes nodes on $nodes hosts, verdict $want (rank 0's pod ended $want_rc)${lacking:+, $lacking named without its device}, over net1, every pod ended"
