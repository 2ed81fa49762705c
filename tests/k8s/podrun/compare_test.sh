#!/usr/bin/env bash
# For every launcher and the two Multus modes, the nccl-tests and perftest
# renders of a profile must plan the same pods, env and launch as the railkit
# render: their commands may differ only in the test binary and its flags
# (railkit_podplan compare). No root needed: nothing runs.
# Usage: compare_test.sh RAILKIT PODPLAN
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rk=$1 podplan=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# profile TOOL OP: profiles/tcp.yaml with another test.
profile() {
  sed -e "s/^  tool: .*/  tool: $1/" -e "s/^  op: .*/  op: $2/" "$here/profiles/tcp.yaml" >"$work/$1.yaml"
}
profile railkit all_reduce
profile nccl-tests all_reduce
profile perftest ib_write_bw
fail=0
for mode in rdma-shared sriov; do
  for launcher in mpijob indexed-job jobset trainjob; do
    for tool in railkit nccl-tests perftest; do
      "$rk" render --profile "$work/$tool.yaml" --mode "$mode" --launcher "$launcher" \
        --job-token podrun-fixed-job-token-0123456789 >"$work/$tool-$mode-$launcher.yaml"
    done
    for tool in nccl-tests perftest; do
      echo "== $mode $launcher: railkit -> $tool"
      "$podplan" compare "$work/railkit-$mode-$launcher.yaml" "$work/$tool-$mode-$launcher.yaml" || fail=1
    done
  done
done
((fail == 0)) || { echo "FAIL: a render launches its test differently from the railkit render (above)" >&2; exit 1; }
