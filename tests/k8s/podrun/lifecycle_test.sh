#!/usr/bin/env bash
# The runner's own checks of how pods end: a native sidecar is stopped when
# the main container ends (the pods succeed), by SIGTERM, or by SIGKILL after
# the grace period when it ignores SIGTERM; a daemon in `containers` keeps
# its pod running, which the runner must report and fail.
# Usage: lifecycle_test.sh RAILKIT PODPLAN
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rk=$1 podplan=$2
# The two runs that must succeed end on events (the main containers' exits,
# the sidecars' stops); their limit only bounds a hang, ten times what a
# loaded 2-core machine took (about 20 s with the sanitizer build beside it,
# AMD EPYC: the run issue 38 reports).
limit=200
out=$(bash "$here/podrun.sh" "$podplan" "$rk" "$here/fixtures/native-sidecar.yaml" "$limit" 2>&1)
rc=$?
echo "$out"
((rc == 77)) && exit 77
((rc == 0)) || { echo "FAIL: the native sidecar's pods did not both succeed" >&2; exit 1; }
(($(grep -c 'Succeeded; daemon=- main=0' <<<"$out") == 2)) || { echo "FAIL: want 2 pods 'Succeeded; daemon=- main=0'" >&2; exit 1; }
keep=$(mktemp -d /var/tmp/podrun-lifecycle.XXXXXX)
trap 'rm -rf "$keep"' EXIT
out=$(PODRUN_GRACE_S=1 PODRUN_KEEP="$keep/plan" bash "$here/podrun.sh" "$podplan" "$rk" "$here/fixtures/stubborn-sidecar.yaml" "$limit" 2>&1)
rc=$?
echo "$out"
((rc == 0)) || { echo "FAIL: the pod whose sidecar ignores SIGTERM did not succeed" >&2; exit 1; }
stop=$(cat "$keep"/plan/pods/*/status/daemon.stop)
[[ $stop == "exit 137 after SIGKILL after the 1 s grace period" ]] || { echo "FAIL: stubborn sidecar: $stop" >&2; exit 1; }
out=$(bash "$here/podrun.sh" "$podplan" "$rk" "$here/fixtures/regular-sidecar.yaml" 4 2>&1)
rc=$?
echo "$out"
((rc == 1)) || { echo "FAIL: a pod whose daemon never ends passed (exit $rc)" >&2; exit 1; }
grep -q 'timeout: pods still running after 4s' <<<"$out" || { echo "FAIL: no timeout report" >&2; exit 1; }
(($(grep -c 'role worker): Running;' <<<"$out") == 2)) || { echo "FAIL: want both pods reported Running" >&2; exit 1; }
echo "ok: native sidecars are stopped (SIGTERM, or SIGKILL after the grace), a never-ending container fails the run"
