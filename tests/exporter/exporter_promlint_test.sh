#!/usr/bin/env bash
# promtool's lint of a full scrape of `railkit exporter` on the example node
# (examples/dgx-h100-8gpu: eight ports, one down, doctor findings, GPU-NIC
# distances) prints nothing and exits 0: no name promlint objects to
# (a type in the name, a counter without _total, a unit abbreviation), no
# missing HELP. The procfs tree with every port counter filled is linted in
# node_exporter_compare_test.sh, the --pods families in exporter_pods_e2e.
# Skips (77) without curl or promtool (scripts/install-deps.sh installs both).
# Usage: exporter_promlint_test.sh RAILKIT EXAMPLE_ROOT
set -u
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/e2e_frame.sh"
RK=$1
EXAMPLE=$2
PID=""
E2E_LOGS=(exporter.log)
E2E_PIDS=(PID)
command -v curl >/dev/null || skip "curl not installed (scripts/install-deps.sh installs it)"
command -v promtool >/dev/null || skip "promtool not installed (package prometheus, scripts/install-deps.sh)"
[[ -d "$EXAMPLE/sys/class/infiniband" ]] || fail "$EXAMPLE is not the example node (no sys/class/infiniband)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rk-promlint.XXXXXX") || fail "mktemp"
"$RK" exporter --root "$EXAMPLE" --listen 127.0.0.1:0 --interval 1 >"$WORK/exporter.log" 2>&1 &
PID=$!
URL=$(wait_for_exporter "$WORK/exporter.log" "$PID" 300) || fail "the exporter did not start within 30 s"
curl -fsS --max-time 5 "$URL/metrics" >"$WORK/metrics.txt" || fail "curl $URL/metrics"
# A full scrape: the example's eight ports and its doctor findings are in it.
[[ $(grep -c '^railkit_rdma_port_state{' "$WORK/metrics.txt") == 8 ]] || fail "expected 8 port state series"
grep -q '^railkit_doctor_finding{' "$WORK/metrics.txt" || fail "no doctor findings in the scrape"

promtool check metrics <"$WORK/metrics.txt" >"$WORK/promtool.txt" 2>&1
rc=$?
if [[ $rc != 0 || -s "$WORK/promtool.txt" ]]; then
  cat "$WORK/promtool.txt" >&2
  fail "promtool check metrics: exit $rc, expected 0 and no output"
fi
echo "promtool check metrics on the example node: no output"
