#!/usr/bin/env bash
# `railkit exporter --pods` end to end on this machine's kernel, serving a
# NodeBuilder tree: where the kernel has no RDMA netlink (ib_core not loaded;
# `rdma dev` cannot open its socket), stderr says so exactly once over several
# readings, railkit_exporter_pods_supported is 0 and every node metric is
# still served; where it has one, the tree's ib_core netns_mode (shared, Y)
# is what it says once instead. promtool accepts the text either way.
# Usage: exporter_pods_e2e_test.sh RAILKIT MAKE_NODE_FIXTURE
set -u
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/e2e_frame.sh"
RK=$1
MAKE_FIXTURE=$2
PID=""
E2E_LOGS=(err.log)  # the exporter's stderr
E2E_PIDS=(PID)

command -v curl >/dev/null || skip "curl not installed (scripts/install-deps.sh installs it)"
command -v promtool >/dev/null || skip "promtool not installed (package prometheus, scripts/install-deps.sh)"
command -v rdma >/dev/null || skip "rdma (iproute2) not installed: cannot tell whether this kernel has RDMA netlink"

if rdma dev show >/dev/null 2>&1; then HAVE_RDMA=1; else HAVE_RDMA=0; fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rk-exporter-pods.XXXXXX") || fail "mktemp"
ROOT="$WORK/root"
"$MAKE_FIXTURE" healthy-dgx-h100 "$ROOT" >/dev/null || fail "make_node_fixture"
# Shared, explicitly: on a kernel with RDMA netlink that is the reason given.
printf 'Y\n' >"$ROOT/sys/module/ib_core/parameters/netns_mode" || fail "write netns_mode"
# A transmit counter to move between readings (below).
XMIT="$ROOT/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data"
mkdir -p "${XMIT%/*}" && printf '7000\n' >"$XMIT" || fail "write $XMIT"

"$RK" exporter --pods --root "$ROOT" --listen 127.0.0.1:0 --interval 1 >"$WORK/out.log" 2>"$WORK/err.log" &
PID=$!
URL=$(wait_for_exporter "$WORK/out.log" "$PID" 300) ||
  fail "exporter --pods exited before listening or did not report its address within 30 s"

# At least three more readings (--interval 1) before counting the lines, each
# seen: a new transmit counter in the tree shows in /metrics only once a
# reading has taken it (its unit is 4 bytes). A reading is due every second:
# each gets ten.
for words in 7001 7002 7003; do
  printf '%s\n' "$words" >"$XMIT" || fail "write $XMIT"
  want="railkit_rdma_port_transmitted_bytes_total{device=\"mlx5_0\",port=\"1\"} $((words * 4))"
  for ((t = 0; t < 100; t++)); do
    curl -fsS --max-time 5 "$URL/metrics" >"$WORK/metrics.txt" || fail "curl $URL/metrics"
    grep -qxF -- "$want" "$WORK/metrics.txt" && break
    sleep 0.1
  done
  grep -qxF -- "$want" "$WORK/metrics.txt" || fail "no reading took port_xmit_data $words within 10 s"
done
expect() { grep -qxF -- "$1" "$WORK/metrics.txt" || fail "missing line: $1"; }
expect 'railkit_rdma_port_up{device="mlx5_0",port="1"} 1'
expect 'railkit_gpu_nic_distance{gpu="gpu0",device="mlx5_0"} 0'
grep -q '^railkit_doctor_findings{severity="error"} [0-9]' "$WORK/metrics.txt" || fail "no doctor findings"
grep -q '^# TYPE railkit_pod_rdma_hw_events_total counter$' "$WORK/metrics.txt" || fail "no per-pod family"

said_none=$(grep -c -- '--pods: no per-pod RDMA counters: the kernel has no RDMA netlink' "$WORK/err.log")
said_shared=$(grep -c -- '--pods: no per-pod RDMA counters: ib_core netns_mode is shared' "$WORK/err.log")
if [[ $HAVE_RDMA == 0 ]]; then
  [[ $said_none == 1 ]] || fail "the no-RDMA line appeared $said_none times, expected once"
  [[ $said_shared == 0 ]] || fail "no RDMA netlink, yet the exporter blamed netns_mode"
else
  [[ $said_none == 0 ]] || fail "the kernel has RDMA netlink but the exporter said it has none"
  [[ $said_shared == 1 ]] || fail "the shared-netns_mode line appeared $said_shared times, expected once"
fi
expect 'railkit_exporter_pods_supported 0'
expect 'railkit_exporter_pod_network_namespaces 0'
[[ $(grep -c -- '--pods:' "$WORK/err.log") == 1 ]] ||
  fail "expected exactly one --pods line on stderr"

# promtool's lint, with the --pods families: exit 0 and not a word.
promtool check metrics <"$WORK/metrics.txt" >"$WORK/promtool.txt" 2>&1
rc=$?
if [[ $rc != 0 || -s "$WORK/promtool.txt" ]]; then
  cat "$WORK/promtool.txt" >&2
  fail "promtool check metrics on the --pods output: exit $rc, expected 0 and no output"
fi

kill -TERM "$PID"
wait "$PID"
status=$?
PID=""
[[ $status == 143 ]] || fail "exit status $status after SIGTERM, expected 143"
echo "exporter --pods e2e: ok (kernel RDMA netlink: $HAVE_RDMA)"
