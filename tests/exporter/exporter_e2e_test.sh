#!/usr/bin/env bash
# `railkit exporter` end to end: a NodeBuilder tree with counter files on
# mlx5_0 port 1, the exporter on 127.0.0.1 with a port the kernel picks
# (--listen 127.0.0.1:0; the bound address is on its first line of output),
# exact values from curl (IB data counters are 4-octet words: bytes = 4x),
# a counter file changed in the tree shows up on a later scrape, promtool
# accepts the text, /healthz answers, a taken port and bad flags are exit 2,
# SIGTERM ends it within seconds, and a .tar.gz --root is cleaned up on SIGTERM.
# Usage: exporter_e2e_test.sh RAILKIT MAKE_NODE_FIXTURE
set -u
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/e2e_frame.sh"
RK=$1
MAKE_FIXTURE=$2
PID=""
E2E_LOGS=(exporter.log)
E2E_PIDS=(PID)

command -v curl >/dev/null || skip "curl not installed (scripts/install-deps.sh installs it)"
command -v promtool >/dev/null || skip "promtool not installed (package prometheus, scripts/install-deps.sh)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rk-exporter-e2e.XXXXXX") || fail "mktemp"
ROOT="$WORK/root"
"$MAKE_FIXTURE" healthy-dgx-h100 "$ROOT" || fail "make_node_fixture"
# sys/class/infiniband/mlx5_0 is a relative link inside the tree.
PORT_DIR="$ROOT/sys/class/infiniband/mlx5_0/ports/1"
mkdir -p "$PORT_DIR/counters" "$PORT_DIR/hw_counters" || fail "mkdir counters"
put() { printf '%s\n' "$2" >"$PORT_DIR/$1" || fail "write $1"; }
put counters/port_xmit_data 1000
put counters/port_rcv_data 2500
put counters/symbol_error 0
put counters/link_downed 2
put counters/port_rcv_errors 7
put counters/port_xmit_wait 123456
put hw_counters/np_cnp_sent 11
put hw_counters/rp_cnp_handled 12
put hw_counters/lifespan 12

"$RK" exporter --root "$ROOT" --listen 127.0.0.1:0 --interval 1 >"$WORK/exporter.log" 2>&1 &
PID=$!
URL=$(wait_for_exporter "$WORK/exporter.log" "$PID" 100) ||
  fail "exporter exited before listening or did not report its address within 10 s"

scrape() { curl -fsS --max-time 5 "$URL/metrics" >"$WORK/metrics.txt" || fail "curl $URL/metrics"; }
expect() { grep -qxF -- "$1" "$WORK/metrics.txt" || fail "missing line: $1"; }

scrape
P='{device="mlx5_0",port="1"}'
expect "railkit_rdma_port_transmitted_bytes_total$P 4000"
expect "railkit_rdma_port_received_bytes_total$P 10000"
expect "railkit_rdma_port_symbol_errors_total$P 0"
expect "railkit_rdma_port_link_downed_total$P 2"
expect "railkit_rdma_port_receive_errors_total$P 7"
expect "railkit_rdma_port_transmit_wait_total$P 123456"
expect 'railkit_rdma_hw_events_total{device="mlx5_0",port="1",counter="np_cnp_sent"} 11'
expect 'railkit_rdma_hw_events_total{device="mlx5_0",port="1",counter="rp_cnp_handled"} 12'
expect "railkit_rdma_port_up$P 1"
expect "railkit_rdma_port_state$P 4"
expect "railkit_rdma_port_physical_state$P 5"
expect "railkit_rdma_port_rate_bytes_per_second$P 50000000000"
expect 'railkit_rdma_port_info{device="mlx5_0",port="1",link_layer="InfiniBand",netdev="ib0",fw_ver="28.39.1002"} 1'
expect 'railkit_gpu_nic_distance{gpu="gpu0",device="mlx5_0"} 0'
expect 'railkit_exporter_read_errors_total 0'
grep -q 'counter="lifespan"' "$WORK/metrics.txt" && fail "lifespan is a setting, not a counter"
grep -q '^# TYPE railkit_doctor_findings gauge$' "$WORK/metrics.txt" || fail "no railkit_doctor_findings family"

# promtool's lint: exit 0 and not a word (exit 1 is a parse error, 3 lint problems).
promtool check metrics <"$WORK/metrics.txt" >"$WORK/promtool.txt" 2>&1
rc=$?
if [[ $rc != 0 || -s "$WORK/promtool.txt" ]]; then
  cat "$WORK/promtool.txt" >&2
  fail "promtool check metrics: exit $rc, expected 0 and no output"
fi

# The counter moves on: a later scrape (after at most --interval) sees it.
put counters/port_xmit_data 3000
grown=0
for _ in $(seq 1 50); do
  scrape
  if grep -qxF "railkit_rdma_port_transmitted_bytes_total$P 12000" "$WORK/metrics.txt"; then grown=1; break; fi
  sleep 0.2
done
[[ $grown == 1 ]] || fail "transmitted bytes did not become 12000 within 10 s"

[[ "$(curl -fsS --max-time 5 "$URL/healthz")" == "ok" ]] || fail "/healthz did not answer ok"

# A second exporter on the same address: one line and exit 2, no hang.
timeout 20 "$RK" exporter --root "$ROOT" --listen "${URL#http://}" >"$WORK/second.log" 2>&1
rc=$?
[[ $rc == 2 ]] || fail "second exporter on ${URL#http://}: exit $rc, expected 2"
grep -q "^railkit: cannot listen on 127.0.0.1:" "$WORK/second.log" || fail "no 'cannot listen' line: $(cat "$WORK/second.log")"
# Bad flags are usage errors.
"$RK" exporter --root "$ROOT" --interval 0 >/dev/null 2>&1
[[ $? == 2 ]] || fail "--interval 0 was accepted"
"$RK" exporter --root "$ROOT" --listen 9877 >/dev/null 2>&1
[[ $? == 2 ]] || fail "--listen without a host was accepted"

kill -TERM "$PID"
for _ in $(seq 1 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$PID" 2>/dev/null && fail "exporter still running 5 s after SIGTERM"
wait "$PID"
status=$?
PID=""
# It ends as SIGTERM ends a process (128 + 15), after stopping its threads.
[[ $status == 143 ]] || fail "exit status $status after SIGTERM, expected 143"
# A .tar.gz --root is extracted under $TMPDIR and removed again on SIGTERM.
"$RK" snapshot --root "$ROOT" --output "$WORK/snap.tar.gz" >/dev/null 2>&1 || fail "railkit snapshot"
mkdir -p "$WORK/tmp"
# The first exporter's "serving" line must be gone before the second starts:
# its shell truncates the log only once it runs, and the wait below could
# read the old line (and the dead exporter's port) first.
rm -f "$WORK/exporter.log"
TMPDIR="$WORK/tmp" "$RK" exporter --root "$WORK/snap.tar.gz" --listen 127.0.0.1:0 >"$WORK/exporter.log" 2>&1 &
PID=$!
URL=$(wait_for_exporter "$WORK/exporter.log" "$PID" 100) ||
  fail "exporter on the .tar.gz exited before listening or did not report its address within 10 s"
scrape
expect "railkit_rdma_port_up$P 1"
expect "railkit_rdma_port_state$P 4"
expect "railkit_rdma_port_physical_state$P 5"
[[ -n "$(ls -A "$WORK/tmp")" ]] || fail "no extraction directory under \$TMPDIR while serving"
kill -TERM "$PID"
wait "$PID"
status=$?
PID=""
[[ $status == 143 ]] || fail "exit status $status after SIGTERM (.tar.gz root), expected 143"
[[ -z "$(ls -A "$WORK/tmp")" ]] || fail "extracted --root left behind: $(ls -A "$WORK/tmp")"
echo "exporter e2e: ok"
