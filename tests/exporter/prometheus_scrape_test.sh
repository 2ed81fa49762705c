#!/usr/bin/env bash
# Debian's Prometheus scrapes `railkit exporter` on 127.0.0.1 and answers
# PromQL about it: the exporter on a NodeBuilder tree with counters on
# mlx5_0 port 1; Prometheus with a 1 s scrape interval and the rendered
# alerting rules; then queries through its HTTP API: the port series with
# their values, a rate() over the growing transmit counter, the target up,
# and the rules loaded. Skips (77) without prometheus or curl.
# Usage: prometheus_scrape_test.sh RAILKIT MAKE_NODE_FIXTURE
set -u
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/e2e_frame.sh"
RK=$1
MAKE_FIXTURE=$2
EXPORTER=""
PROM=""
E2E_LOGS=(exporter.log prometheus.log)
E2E_PIDS=(PROM EXPORTER)
command -v prometheus >/dev/null || skip "prometheus not installed (scripts/install-deps.sh)"
command -v curl >/dev/null || skip "curl not installed (scripts/install-deps.sh)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rk-prometheus.XXXXXX") || fail "mktemp"
ROOT="$WORK/root"
"$MAKE_FIXTURE" healthy-dgx-h100 "$ROOT" >/dev/null || fail "make_node_fixture"
PORT_DIR="$ROOT/sys/class/infiniband/mlx5_0/ports/1"
mkdir -p "$PORT_DIR/counters" || fail "mkdir"
echo 1000 >"$PORT_DIR/counters/port_xmit_data"

"$RK" exporter --root "$ROOT" --listen 127.0.0.1:0 --interval 1 >"$WORK/exporter.log" 2>&1 &
EXPORTER=$!
URL=$(wait_for_exporter "$WORK/exporter.log" "$EXPORTER" 300) || fail "the exporter did not start within 30 s"
TARGET=${URL#http://}

"$RK" render exporter --image unused --rule-file >"$WORK/rules.yaml" || fail "render exporter --rule-file"
cat >"$WORK/prometheus.yml" <<YAML
global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [rules.yaml]
scrape_configs:
  - job_name: railkit-exporter
    static_configs: [{targets: ["$TARGET"], labels: {instance: node-a}}]
YAML

# Prometheus takes a fixed port: try a few until one is free.
PROM_URL=""
for _ in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 12000))
  prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
    --web.listen-address="127.0.0.1:$port" >"$WORK/prometheus.log" 2>&1 &
  PROM=$!
  for _ in $(seq 100); do
    if curl -fs "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1; then PROM_URL="http://127.0.0.1:$port"; break; fi
    kill -0 "$PROM" 2>/dev/null || break
    sleep 0.2
  done
  [[ -n "$PROM_URL" ]] && break
  kill "$PROM" 2>/dev/null; wait "$PROM" 2>/dev/null; PROM=""
done
[[ -n "$PROM_URL" ]] || fail "prometheus did not become ready"

query() { curl -fsS --max-time 5 -G "$PROM_URL/api/v1/query" --data-urlencode "query=$1"; }
# Waits until the query's answer holds the text.
await() {
  local q=$1 want=$2 got=""
  for _ in $(seq 60); do
    got=$(query "$q") && grep -qF -- "$want" <<<"$got" && return 0
    sleep 0.5
  done
  fail "query '$q' never held '$want'; last answer: $got"
}

await 'up{job="railkit-exporter"}' '"value":['
await 'up{job="railkit-exporter"} == 1' '"instance":"node-a"'
await 'railkit_rdma_port_up{device="mlx5_0",port="1"}' '"1"]'
await 'count(railkit_rdma_port_info)' '"8"]'
await 'railkit_rdma_port_transmitted_bytes_total{device="mlx5_0"}' '"4000"]'
# The counter grows on the node; Prometheus sees a positive rate once it has
# stored two larger values (each waited for, not slept for).
for v in 2000 3000; do
  echo "$v" >"$PORT_DIR/counters/port_xmit_data"
  await 'railkit_rdma_port_transmitted_bytes_total{device="mlx5_0"}' "\"$((v * 4))\"]"
done
# A 5-minute window: a late query on a loaded machine still sees the growth.
await 'rate(railkit_rdma_port_transmitted_bytes_total{device="mlx5_0"}[5m]) > 0' '"device":"mlx5_0"'
curl -fsS "$PROM_URL/api/v1/rules" | grep -qF '"name":"RailkitRdmaPortDown"' || fail "the alerting rules are not loaded"
echo "PASS: Prometheus scraped the exporter at $TARGET and answered PromQL about it"
