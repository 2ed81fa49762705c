#!/usr/bin/env bash
# The runner's own checks of how pods end: a native sidecar is stopped when
# the main container ends (the pods succeed); a daemon in `containers` keeps
# its pod running, which the runner must report and fail.
# Usage: lifecycle_test.sh RAILKIT PODPLAN
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rk=$1 podplan=$2
out=$(bash "$here/podrun.sh" "$podplan" "$rk" "$here/fixtures/native-sidecar.yaml" 20 2>&1)
rc=$?
echo "$out"
((rc == 77)) && exit 77
((rc == 0)) || { echo "FAIL: the native sidecar's pods did not both succeed" >&2; exit 1; }
(($(grep -c 'Succeeded; daemon=- main=0' <<<"$out") == 2)) || { echo "FAIL: want 2 pods 'Succeeded; daemon=- main=0'" >&2; exit 1; }
out=$(bash "$here/podrun.sh" "$podplan" "$rk" "$here/fixtures/regular-sidecar.yaml" 4 2>&1)
rc=$?
echo "$out"
((rc == 1)) || { echo "FAIL: a pod whose daemon never ends passed (exit $rc)" >&2; exit 1; }
grep -q 'timeout: pods still running after 4s' <<<"$out" || { echo "FAIL: no timeout report" >&2; exit 1; }
(($(grep -c 'role worker): Running;' <<<"$out") == 2)) || { echo "FAIL: want both pods reported Running" >&2; exit 1; }
echo "ok: native sidecars are stopped, a never-ending container fails the run"
