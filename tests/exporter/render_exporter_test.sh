#!/usr/bin/env bash
# `railkit render exporter` proven by running what it renders:
#  1. the DaemonSet and Service are schema-valid (railkit lint with ../shared/schemas);
#  2. the alerting rules load in promtool and fire on the series they are
#     about (promtool test rules: a port down, a slower port, symbol errors,
#     a doctor error), and stay quiet on a healthy node;
#  3. the DaemonSet container's own command line, as the pod would run it
#     (as nobody, the node's /sys at /host/sys, listening on 0.0.0.0 inside
#     a network namespace this test creates), serves metrics for the node;
#  4. --pods, and only --pods, adds privilege: root with SYS_ADMIN and
#     SYS_PTRACE and the host's /proc read-only; that container command runs
#     with exactly those capabilities (the host's /proc bind-mounted at the
#     hostPath's mount point) and serves the node with its --pods facts.
# Steps 1 and 3 skip with a message without ../shared or root; the test
# skips (77) only when nothing could run.
# Usage: render_exporter_test.sh RAILKIT MAKE_NODE_FIXTURE SHARED_SCHEMAS
set -u
RK=$1
MAKE_FIXTURE=$2
SCHEMAS=$3
WORK=""
NS=""
PID=""
PROC_MOUNT=""
ran=0

fail() { echo "FAIL: $*" >&2; exit 1; }
cleanup() {
  if [[ -n "$PID" ]]; then kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; fi
  [[ -n "$PROC_MOUNT" ]] && umount "$PROC_MOUNT" 2>/dev/null
  [[ -n "$NS" ]] && ip netns del "$NS" 2>/dev/null
  [[ -n "$WORK" ]] && rm -rf "$WORK"
  return 0
}
trap cleanup EXIT
command -v promtool >/dev/null || { echo "SKIP: promtool not installed (scripts/install-deps.sh)" >&2; exit 77; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rk-render-exporter.XXXXXX") || fail "mktemp"

"$RK" render exporter --image registry.example/railkit:1 >"$WORK/exporter.yaml" || fail "render exporter"
"$RK" render exporter --image registry.example/railkit:1 --rule-file >"$WORK/rules.yaml" || fail "--rule-file"
"$RK" render exporter --image registry.example/railkit:1 --pods >"$WORK/pods.yaml" || fail "render exporter --pods"
# Privilege only with --pods: the default pod stays nobody without capabilities.
for priv in SYS_ADMIN SYS_PTRACE /host/proc '"--pods"' 'runAsUser: 0'; do
  grep -qF -- "$priv" "$WORK/exporter.yaml" && fail "the default DaemonSet has $priv"
  grep -qF -- "$priv" "$WORK/pods.yaml" || fail "the --pods DaemonSet lacks $priv"
done
grep -qF 'readOnlyRootFilesystem: true' "$WORK/pods.yaml" || fail "--pods: root filesystem not read-only"
grep -qF 'allowPrivilegeEscalation: false' "$WORK/pods.yaml" || fail "--pods: privilege escalation allowed"
grep -qF 'hostPID' "$WORK/pods.yaml" && fail "--pods needs the host's /proc mount, not hostPID"
grep -qF 'privileged' "$WORK/pods.yaml" && fail "--pods must not be privileged"

# 1. Schemas.
if [[ -d "$SCHEMAS" ]]; then
  for y in exporter.yaml pods.yaml; do
    "$RK" lint --schemas "$SCHEMAS" "$WORK/$y" >"$WORK/lint.txt" 2>&1 || { cat "$WORK/lint.txt" >&2; fail "lint $y"; }
    grep -q "0 error(s), 0 warning(s)" "$WORK/lint.txt" || { cat "$WORK/lint.txt" >&2; fail "lint findings in $y"; }
  done
  ran=1
else
  echo "note: $SCHEMAS absent: schema check skipped" >&2
fi

# 2. The rules, loaded and unit-tested by Prometheus' own tool.
promtool check rules "$WORK/rules.yaml" || fail "promtool check rules"
cat >"$WORK/rules_test.yaml" <<'YAML'
rule_files: [rules.yaml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'railkit_rdma_port_up{instance="n1",device="mlx5_0",port="1"}'
        values: '1x20'
      - series: 'railkit_rdma_port_up{instance="n1",device="mlx5_1",port="1"}'
        values: '0x20'
      - series: 'railkit_rdma_port_rate_bytes_per_second{instance="n1",device="mlx5_0",port="1"}'
        values: '50000000000x20'
      - series: 'railkit_rdma_port_rate_bytes_per_second{instance="n1",device="mlx5_1",port="1"}'
        values: '25000000000x20'
      - series: 'railkit_rdma_port_symbol_errors_total{instance="n1",device="mlx5_0",port="1"}'
        values: '0 0 0 0 0 5 9 9 9 9 9'
      - series: 'railkit_rdma_port_symbol_errors_total{instance="n2",device="mlx5_0",port="1"}'
        values: '7x20'
      - series: 'railkit_rdma_port_link_downed_total{instance="n2",device="mlx5_0",port="1"}'
        values: '2x20'
      - series: 'railkit_doctor_findings{instance="n1",severity="error"}'
        values: '1x20'
      - series: 'railkit_doctor_findings{instance="n2",severity="error"}'
        values: '0x20'
    alert_rule_test:
      # Down for 3 minutes: still within its 5m "for", so not firing yet.
      - eval_time: 3m
        alertname: RailkitRdmaPortDown
        exp_alerts: []
      - eval_time: 10m
        alertname: RailkitRdmaPortDown
        exp_alerts:
          - exp_labels: {severity: critical, instance: n1, device: mlx5_1, port: "1"}
            exp_annotations:
              summary: 'RDMA port mlx5_1/1 on n1 is not ACTIVE'
      - eval_time: 20m
        alertname: RailkitRdmaPortRateBelowMax
        exp_alerts:
          - exp_labels: {severity: warning, instance: n1, device: mlx5_1, port: "1"}
            exp_annotations:
              summary: "RDMA port mlx5_1/1 on n1 runs below the node's fastest port"
      - eval_time: 7m
        alertname: RailkitRdmaSymbolErrorsIncreasing
        exp_alerts:
          - exp_labels: {severity: warning, instance: n1, device: mlx5_0, port: "1"}
            exp_annotations:
              summary: 'Symbol errors on mlx5_0/1 (n1): a bad cable or optic'
      - eval_time: 3m
        alertname: RailkitRdmaSymbolErrorsIncreasing
        exp_alerts: []
      - eval_time: 20m
        alertname: RailkitDoctorError
        exp_alerts:
          - exp_labels: {severity: warning, instance: n1}
            exp_annotations:
              summary: 'railkit doctor reports errors on n1 (railkit_doctor_finding lists them)'
      - eval_time: 10m
        alertname: RailkitRoceCongestionStorm
        exp_alerts: []
      # A steady counter (n2's 7 symbol errors, 2 link downs, never growing) does not fire.
      - eval_time: 20m
        alertname: RailkitRdmaSymbolErrorsIncreasing
        exp_alerts: []
      - eval_time: 20m
        alertname: RailkitRdmaLinkDownedIncreasing
        exp_alerts: []
YAML
(cd "$WORK" && promtool test rules rules_test.yaml) || fail "promtool test rules"
ran=1

# 3. The DaemonSet's own command, as the pod runs it.
if [[ $(id -u) -ne 0 ]] || ! ip netns add "rkx$$" 2>/dev/null; then
  echo "note: not root or no network namespaces: the container command was not run" >&2
else
  NS="rkx$$"
  ip -n "$NS" link set lo up || fail "lo up"
  # The container's command, then its args, from the YAML (block lists of quoted strings).
  list() {
    awk -v key="$1" '
      $0 ~ "^ *(- )?" key ":$" {mode = 1; next}
      mode && /^ *- "/ {sub(/^ *- "/, ""); sub(/"$/, ""); print; next}
      {mode = 0}' "${2:-$WORK/exporter.yaml}"
  }
  mapfile -t argv < <(list command; list args)
  [[ "${argv[0]:-}" == /usr/local/bin/railkit && "${argv[1]:-}" == exporter ]] || fail "unexpected container command: ${argv[*]}"
  grep -q 'mountPath: "/host/sys"' "$WORK/exporter.yaml" || fail "no /host/sys mount"
  grep -q 'runAsUser: 65534' "$WORK/exporter.yaml" || fail "not nobody"
  # The node: a fixture's sys at the hostPath's mount point (/host -> $WORK/host).
  "$MAKE_FIXTURE" healthy-dgx-h100 "$WORK/node" >/dev/null || fail "make_node_fixture"
  mkdir -p "$WORK/host" && mv "$WORK/node/sys" "$WORK/host/sys" || fail "node sys"
  chmod -R a+rX "$WORK"
  args=("${argv[@]:1}")
  for i in "${!args[@]}"; do [[ "${args[$i]}" == /host ]] && args[$i]="$WORK/host"; done
  port=$(printf '%s\n' "${args[@]}" | sed -n 's/^0\.0\.0\.0:\([0-9]*\)$/\1/p')
  [[ -n "$port" ]] || fail "no --listen 0.0.0.0:PORT in ${args[*]}"
  ip netns exec "$NS" setpriv --reuid=65534 --regid=65534 --clear-groups "$RK" "${args[@]}" >"$WORK/exporter.log" 2>&1 &
  PID=$!
  for _ in $(seq 150); do  # 30 s: a sanitizer build on a loaded machine starts slowly
    ip netns exec "$NS" curl -sf "http://127.0.0.1:$port/metrics" >"$WORK/metrics.txt" 2>/dev/null && break
    sleep 0.2
  done
  grep -q '^railkit_rdma_port_up{device="mlx5_0",port="1"} 1$' "$WORK/metrics.txt" ||
    { cat "$WORK/exporter.log" >&2; fail "the pod's command served no port metrics"; }
  [[ $(grep -c '^railkit_rdma_port_info{' "$WORK/metrics.txt") -eq 8 ]] || fail "expected the node's 8 RDMA ports"
  echo "the DaemonSet's command ran as nobody in netns $NS and served $(grep -c '^railkit_' "$WORK/metrics.txt") samples"
  kill "$PID"; wait "$PID" 2>/dev/null; PID=""

  # 4. The --pods command: root with only the capabilities the YAML adds.
  mapfile -t argv < <(list command "$WORK/pods.yaml"; list args "$WORK/pods.yaml")
  caps=$(awk '/^ *add:$/ {m = 1; next} m && /^ *- "/ {gsub(/[ "-]/, ""); printf ",+%s", tolower($0); next} {m = 0}' "$WORK/pods.yaml")
  [[ "$caps" == ",+sys_admin,+sys_ptrace" ]] || fail "--pods capabilities: '$caps'"
  mkdir -p "$WORK/host/proc" && mount --bind /proc "$WORK/host/proc" || fail "bind /proc"
  PROC_MOUNT="$WORK/host/proc"
  args=("${argv[@]:1}")
  for i in "${!args[@]}"; do [[ "${args[$i]}" == /host ]] && args[$i]="$WORK/host"; done
  ip netns exec "$NS" setpriv --inh-caps="-all$caps" --bounding-set="-all$caps" "$RK" "${args[@]}" \
    >"$WORK/pods.log" 2>&1 &
  PID=$!
  for _ in $(seq 150); do
    ip netns exec "$NS" curl -sf "http://127.0.0.1:$port/metrics" >"$WORK/metrics.txt" 2>/dev/null && break
    sleep 0.2
  done
  grep -q '^railkit_rdma_port_up{device="mlx5_0",port="1"} 1$' "$WORK/metrics.txt" ||
    { cat "$WORK/pods.log" >&2; fail "the --pods command served no port metrics"; }
  grep -qE '^railkit_exporter_pods_supported [01]$' "$WORK/metrics.txt" ||
    { cat "$WORK/pods.log" >&2; fail "the --pods command served no railkit_exporter_pods_supported"; }
  echo "the --pods DaemonSet's command ran with$caps in netns $NS: $(grep -E '^railkit_exporter_pod' "$WORK/metrics.txt" | tr '\n' ' ')"
  ran=1
fi
((ran)) || exit 77
echo "PASS"
