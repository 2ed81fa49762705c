#!/usr/bin/env bash
# benchmarks/fabric_scale.sh [NODES] [RAILKIT]
# How long `railkit fabric` takes, and how much memory, on a rail-optimized
# fabric of NODES nodes x 8 rails (default 1024) in ibnetdiscover's form:
# tests/fabric/make_rail_fabric.py --format ibnetdiscover writes it (nodes in
# groups of 64, one leaf per group and rail, 32 spines: 1024 nodes are 8192
# HCAs, 128 leaves, 3.2 MB of text). Runs railkit 5 times and prints each
# run's wall time and peak RSS (GNU time), the machine's CPU and its load.
# Not a test: it asserts nothing (tests/fabric/fabric_scale_test.sh checks
# the 2 s bound with a wide margin).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nodes=${1:-1024}
rk=${2:-${RAILKIT:-$here/../build/railkit}}
[[ -x $rk ]] || { echo "fabric_scale: railkit not found at $rk" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "fabric_scale: GNU time (/usr/bin/time) not found" >&2; exit 2; }
group=64
((nodes < group)) && group=$nodes
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/../tests/fabric/make_rail_fabric.py" --nodes "$nodes" --rails 8 --group "$group" --spines 32 \
  --format ibnetdiscover >"$work/fabric.txt"
echo "fabric: $nodes nodes x 8 rails, $(grep -c '^Switch' "$work/fabric.txt") switches, $(wc -c <"$work/fabric.txt") bytes"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2 3 4 5; do
  /usr/bin/time -f "run $i: %e s wall, %M KiB peak RSS" "$rk" fabric "$work/fabric.txt" >"$work/out.txt" || true
done 2>&1
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
head -2 "$work/out.txt" | tail -1
