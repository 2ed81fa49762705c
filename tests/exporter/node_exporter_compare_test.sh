#!/usr/bin/env bash
# railkit exporter beside Debian's prometheus-node-exporter (infiniband
# collector only) on the same sysfs tree: the InfiniBand part of
# prometheus/procfs's fixture (an mlx4 with two ports, an mlx5 with
# hw_counters, an Intel hfi1; tests/fixtures/exporter/README.md names the
# source), unpacked from its ttar text. node_exporter reads it with
# --path.sysfs, railkit with --root; both are scraped over loopback and
# node_exporter_compare.py compares every value both serve, by the name
# mapping of docs/exporter.md ("Beside node_exporter"). Then promtool's
# lint of railkit's scrape of that tree must print nothing.
# Skips (77) without prometheus-node-exporter, curl, python3 or promtool
# (scripts/install-deps.sh installs them).
# Usage: node_exporter_compare_test.sh RAILKIT SOURCE_DIR
set -u
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/e2e_frame.sh"
RK=$1
SRC=$2
EXPORTER=""
NODE=""
E2E_LOGS=(exporter.log node_exporter.log)
E2E_PIDS=(EXPORTER NODE)
NODE_EXPORTER=$(command -v prometheus-node-exporter || command -v node_exporter) ||
  skip "prometheus-node-exporter not installed (scripts/install-deps.sh)"
command -v curl >/dev/null || skip "curl not installed (scripts/install-deps.sh)"
command -v python3 >/dev/null || skip "python3 not installed (scripts/install-deps.sh)"
command -v promtool >/dev/null || skip "promtool not installed (package prometheus, scripts/install-deps.sh)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rk-node-exporter.XXXXXX") || fail "mktemp"
ROOT="$WORK/root"
# The archive's paths start with fixtures/sys/class/infiniband: strip "fixtures".
python3 "$SRC/tests/exporter/ttar_extract.py" "$SRC/tests/fixtures/exporter/procfs_infiniband.ttar" \
  "$ROOT" 1 >/dev/null || fail "unpack the procfs fixture"
[[ -d "$ROOT/sys/class/infiniband/mlx5_0/ports/1/hw_counters" ]] || fail "the fixture has no mlx5_0 hw_counters"

"$RK" exporter --root "$ROOT" --listen 127.0.0.1:0 --interval 1 >"$WORK/exporter.log" 2>&1 &
EXPORTER=$!
URL=$(wait_for_exporter "$WORK/exporter.log" "$EXPORTER" 300) || fail "the exporter did not start within 30 s"

# node_exporter cannot report a kernel-chosen port: take a free one, and try
# again should another process take it before node_exporter binds it.
NODE_URL=""
for _ in 1 2 3 4 5; do
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$NODE_EXPORTER" --path.sysfs="$ROOT/sys" --collector.disable-defaults --collector.infiniband \
    --web.listen-address="127.0.0.1:$port" >"$WORK/node_exporter.log" 2>&1 &
  NODE=$!
  for _ in $(seq 100); do
    if curl -fs -o /dev/null "http://127.0.0.1:$port/metrics"; then NODE_URL="http://127.0.0.1:$port"; break; fi
    kill -0 "$NODE" 2>/dev/null || break
    sleep 0.1
  done
  [[ -n "$NODE_URL" ]] && break
  kill "$NODE" 2>/dev/null
  wait "$NODE" 2>/dev/null
  NODE=""
done
[[ -n "$NODE_URL" ]] || fail "node_exporter did not answer on any of 5 ports"

curl -fsS --max-time 5 "$URL/metrics" >"$WORK/railkit.txt" || fail "curl $URL/metrics"
curl -fsS --max-time 5 "$NODE_URL/metrics" >"$WORK/node.txt" || fail "curl $NODE_URL/metrics"
python3 "$SRC/tests/exporter/node_exporter_compare.py" "$SRC/docs/exporter.md" "$WORK/railkit.txt" \
  "$WORK/node.txt" >"$WORK/compare.txt" 2>&1 || {
  cat "$WORK/compare.txt" >&2
  fail "railkit and node_exporter differ on the procfs tree"
}
cat "$WORK/compare.txt"
grep -q '^compared [0-9]* values, all equal$' "$WORK/compare.txt" || fail "no comparison summary"
# The families the issue asked for are among the compared ones.
for name in railkit_rdma_port_transmitted_unicast_packets_total railkit_rdma_port_transmit_discards_total \
  railkit_rdma_port_link_error_recovery_total railkit_rdma_port_vl15_dropped_total \
  railkit_rdma_port_physical_state railkit_rdma_port_receive_switch_relay_errors_total; do
  grep -q " $name = " "$WORK/compare.txt" || fail "$name was not compared"
done
grep -qx 'railkit_exporter_read_errors_total 0' "$WORK/railkit.txt" || fail "railkit skipped counter files"

# promtool's lint of a scrape with every port family and hw_counters filled.
promtool check metrics <"$WORK/railkit.txt" >"$WORK/promtool.txt" 2>&1
rc=$?
if [[ $rc != 0 || -s "$WORK/promtool.txt" ]]; then
  cat "$WORK/promtool.txt" >&2
  fail "promtool check metrics on the procfs tree: exit $rc, expected 0 and no output"
fi
echo "node_exporter comparison: ok ($("$NODE_EXPORTER" --version 2>&1 | awk 'NR == 1 {print $3}'))"
