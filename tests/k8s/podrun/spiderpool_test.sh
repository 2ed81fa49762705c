#!/usr/bin/env bash
# cni spiderpool on netns nodes (docs/render.md, "Spiderpool"): podrun_test.sh
# with profiles/spiderpool-PLAN.yaml (two rails), then spiderpool_checks.sh:
# each pod's rail addresses come from the right pool (the rail's subnet, or
# with the exclusive plan its own node's block), and every pod reaches every
# other pod over every rail (across the blocks through the leaf's routes).
# Usage: spiderpool_test.sh RAILKIT PODPLAN MODE LAUNCHER NODES PLAN
here=$(cd "$(dirname "$0")" && pwd)
plan=$6
export PODRUN_PROFILE="$here/profiles/spiderpool-$plan.yaml" PODRUN_CHECKS="$here/spiderpool_checks.sh"
export SPIDERPOOL_PLAN=$plan
exec bash "$here/podrun_test.sh" "$1" "$2" "$3" "$4" "$5"
