#!/usr/bin/env bash
# The nccl-tests launch is proven by running the nccl-tests render with its
# binary and flags swapped for railkit's (podrun_test.sh ... nccl-tests). That
# proof holds only if the swap touches nothing else: for every launcher and
# both Multus modes, the planned pods, env and commands of the nccl-tests
# render and of its swapped copy must differ only in the test binary and its
# flags (railkit_podplan compare); the same for the perftest renders of other
# ops against the ib_write_bw one the runner runs. No root needed: nothing runs.
# Usage: compare_test.sh RAILKIT PODPLAN
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rk=$1 podplan=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# railkit_binary names $railkit (podrun_test.sh: the image's railkit unless
# injected); unset, the swap would be to nothing and every check vacuous.
railkit=railkit
eval "$(sed -n '/^nccl_binary()/p; /^railkit_binary()/p' "$here/podrun_test.sh")"
[[ -n $(railkit_binary) && $(railkit_binary) == "railkit bench "* ]] || { echo "FAIL: railkit_binary is '$(railkit_binary)'" >&2; exit 1; }
fail=0
for mode in rdma-shared sriov; do
  for launcher in mpijob indexed-job jobset trainjob volcano-job; do
    "$rk" render --profile "$here/profiles/nccl-tests.yaml" --mode "$mode" --launcher "$launcher" \
      --job-token podrun-fixed-job-token-0123456789 >"$work/a.yaml"
    sed "s|$(nccl_binary)|$(railkit_binary)|" "$work/a.yaml" >"$work/b.yaml"
    echo "== $mode $launcher: nccl-tests -> railkit bench (tcp)"
    out=$("$podplan" compare "$work/a.yaml" "$work/b.yaml") || { echo "$out"; fail=1; continue; }
    echo "$out"
    grep -qF "$(nccl_binary)" <<<"$out" && grep -qF "$(railkit_binary)" <<<"$out" ||
      { echo "FAIL: the render does not run '$(nccl_binary)'" >&2; fail=1; }
  done
done
# perftest: the runner runs the ib_write_bw render unedited (a stand-in takes
# the binary's name), so the proof carries to the other perftest ops only if
# their renders differ from it in the binary and its flags alone, on each line
# that names it (server, client, messages).
for mode in rdma-shared sriov; do
  for launcher in mpijob indexed-job jobset trainjob volcano-job; do
    "$rk" render --profile "$here/profiles/perftest.yaml" --mode "$mode" --launcher "$launcher" \
      --job-token podrun-fixed-job-token-0123456789 >"$work/a.yaml"
    for op in ib_read_bw ib_send_bw ib_atomic_lat; do
      sed "s/^\(  op:\) ib_write_bw$/\1 $op/" "$here/profiles/perftest.yaml" >"$work/p.yaml"
      grep -q "op: $op" "$work/p.yaml" || { echo "FAIL: profiles/perftest.yaml has no 'op: ib_write_bw' to swap" >&2; exit 1; }
      "$rk" render --profile "$work/p.yaml" --mode "$mode" --launcher "$launcher" \
        --job-token podrun-fixed-job-token-0123456789 >"$work/b.yaml"
      echo "== $mode $launcher: perftest ib_write_bw -> $op"
      out=$("$podplan" compare "$work/a.yaml" "$work/b.yaml") || { echo "$out"; fail=1; continue; }
      echo "$out"
      grep -q "'ib_write_bw' -> '$op'" <<<"$out" ||
        { echo "FAIL: the $op render does not run $op where the ib_write_bw render runs ib_write_bw" >&2; fail=1; }
    done
  done
done
((fail == 0)) || { echo "FAIL: a swap changed more than the binary and its flags (above)" >&2; exit 1; }
