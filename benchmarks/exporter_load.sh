#!/usr/bin/env bash
# Load on `railkit exporter`: CLIENTS concurrent scrapers (curl in a loop)
# for SECONDS against the exporter on 127.0.0.1, serving a node with counter
# files on every port. Prints scrape latency percentiles, scrapes/s, and the
# exporter's RSS at start, at its peak and at the end (nothing may grow
# without bound), with the anchor measured in the same run: one scraper
# alone (p50), so the ratio shows what concurrency costs.
# Then the slow-clients case: SLOW_CLIENTS connections each send half a
# request and wait, and SLOW_SCRAPES scrapes run one after another beside
# them; the same against node_exporter (Debian's prometheus-node-exporter,
# serving the same page through its textfile collector) as the anchor: Go's
# net/http, a goroutine per connection. Left out when node_exporter is absent.
# Usage: benchmarks/exporter_load.sh [RAILKIT] [MAKE_NODE_FIXTURE]
#   env: CLIENTS=50 SECONDS_=60 ANCHOR_SECONDS=10 SLOW_CLIENTS=300 SLOW_SCRAPES=20
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../tests/exporter/lib.sh"
repo=$(cd "$here/.." && pwd)
rk=${1:-$repo/build/railkit}
fixture=${2:-$repo/build/tests/sys/make_node_fixture}
CLIENTS=${CLIENTS:-50}
DURATION=${SECONDS_:-60}
ANCHOR=${ANCHOR_SECONDS:-10}
SLOW=${SLOW_CLIENTS:-300}
SLOW_SCRAPES=${SLOW_SCRAPES:-20}
[[ -x "$rk" && -x "$fixture" ]] || { echo "need $rk and $fixture (build them first)" >&2; exit 2; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 2; }

work=$(mktemp -d)
pid=""
node_pid=""
trap '[[ -n "$pid" ]] && kill "$pid" 2>/dev/null; [[ -n "$node_pid" ]] && kill "$node_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
"$fixture" healthy-dgx-h100 "$work/root" >/dev/null
for dev in "$work"/root/sys/class/infiniband/*; do
  mkdir -p "$dev/ports/1/counters" "$dev/ports/1/hw_counters"
  for c in port_xmit_data port_rcv_data symbol_error link_downed port_rcv_errors port_xmit_wait; do
    echo 123456789 >"$dev/ports/1/counters/$c"
  done
  for c in np_cnp_sent rp_cnp_handled np_ecn_marked_roce_packets out_of_sequence packet_seq_err; do
    echo 42 >"$dev/ports/1/hw_counters/$c"
  done
done
"$rk" exporter --root "$work/root" --listen 127.0.0.1:0 --interval 1 >"$work/exporter.log" 2>&1 &
pid=$!
url=$(wait_for_exporter "$work/exporter.log" "$pid" 100)/metrics || { cat "$work/exporter.log" >&2; exit 1; }
rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
# The exporter's CPU time (user + system, clock ticks): per scrape it is the
# server's own cost, which the curl processes' share of the cores does not blur.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }

scrapers() {  # N seconds out_prefix
  local n=$1 secs=$2 out=$3 end=$((SECONDS + $2))
  for i in $(seq "$n"); do
    (while ((SECONDS < end)); do curl -s -o /dev/null -w '%{time_total}\n' "$url" || echo fail; done >"$out.$i") &
  done
}
percentile() { sort -n | awk -v p="$1" '{v[NR]=$1} END {i=int(NR*p/100); if (i < 1) i = 1; printf "%.2f", v[i]*1000}'; }

scrapers 1 "$ANCHOR" "$work/anchor"
peak=0
track() { local r; r=$(rss); ((r > peak)) && peak=$r; return 0; }
sleep "$ANCHOR"; sleep 1
anchor_p50=$(cat "$work"/anchor.* | grep -v fail | percentile 50)
rss_start=$(rss)
cpu_start=$(cpu_ticks)
scrapers "$CLIENTS" "$DURATION" "$work/load"
for _ in $(seq "$DURATION"); do track; sleep 1; done
sleep 2
rss_end=$(rss)
cpu=$(($(cpu_ticks) - cpu_start))
all=$(cat "$work"/load.*)
n=$(grep -vc fail <<<"$all" || true)
failed=$(grep -c fail <<<"$all" || true)
p50=$(grep -v fail <<<"$all" | percentile 50)
p99=$(grep -v fail <<<"$all" | percentile 99)
bytes=$(curl -s "$url" | wc -c)
echo "exporter load: $CLIENTS scrapers x ${DURATION}s, $(nproc) cores, page $bytes bytes"
echo "  scrapes          : $n ($((n / DURATION))/s), failed $failed"
echo "  latency p50      : ${p50} ms   p99: ${p99} ms"
echo "  anchor (1 client): p50 ${anchor_p50} ms   ratio p99/anchor: $(awk -v a="$p99" -v b="$anchor_p50" 'BEGIN {printf "%.1f", a / b}')x"
echo "  RSS kB           : start $rss_start, peak $peak, end $rss_end"
echo "  exporter CPU     : $(awk -v t="$cpu" -v hz="$(getconf CLK_TCK)" -v n="$n" 'BEGIN {printf "%.2f s, %.0f us per scrape", t / hz, t / hz / (n > 0 ? n : 1) * 1e6}') (the 1 s refresh included)"

# slow_case HOST_PORT NAME: SLOW connections with half a request each (held
# open by this shell), then SLOW_SCRAPES scrapes; prints p50, max and failures.
slow_case() {
  local hostport=$1 name=$2 fds=() fd i opened
  for ((i = 0; i < SLOW; i++)); do
    exec {fd}<>"/dev/tcp/${hostport%:*}/${hostport##*:}" || break
    printf 'GET /metrics HTTP/1.1\r\nHo' >&"$fd"
    fds+=("$fd")
  done
  opened=${#fds[@]}
  for ((i = 0; i < SLOW_SCRAPES; i++)); do
    curl -s -o /dev/null --max-time 15 -w '%{http_code} %{time_total}\n' "http://$hostport/metrics" || echo "000 15"
  done >"$work/slow.$name"
  for fd in "${fds[@]}"; do exec {fd}>&-; done
  local ok failed p50 max
  ok=$(awk '$1 == 200' "$work/slow.$name" | wc -l)
  failed=$((SLOW_SCRAPES - ok))
  p50=$(awk '$1 == 200 {print $2}' "$work/slow.$name" | percentile 50)
  max=$(awk '$1 == 200 {print $2}' "$work/slow.$name" | percentile 100)
  printf '  %-16s : %d half-requests open, %d scrapes: p50 %s ms, max %s ms, failed %d\n' \
    "$name" "$opened" "$SLOW_SCRAPES" "${p50:-none}" "${max:-none}" "$failed"
}

((SLOW > 0)) || exit 0
echo "slow clients: $SLOW connections with half a request each, beside $SLOW_SCRAPES scrapes in a row"
url_hostport=${url#http://}
slow_case "${url_hostport%/metrics}" railkit
node_exporter=$(command -v prometheus-node-exporter || command -v node_exporter || true)
if [[ -z "$node_exporter" ]]; then
  echo "  node_exporter    : not installed (apt-get install prometheus-node-exporter), no anchor"
  exit 0
fi
mkdir -p "$work/textfile"
curl -s "$url" >"$work/textfile/railkit.prom"
node_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$node_exporter" --web.listen-address="127.0.0.1:$node_port" --collector.disable-defaults \
  --collector.textfile --collector.textfile.directory="$work/textfile" >"$work/node.log" 2>&1 &
node_pid=$!
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$node_port/metrics" && break; sleep 0.1; done
echo "  (node_exporter $("$node_exporter" --version 2>&1 | awk 'NR == 1 {print $3}'), page $(curl -s "http://127.0.0.1:$node_port/metrics" | wc -c) bytes)"
slow_case "127.0.0.1:$node_port" node_exporter
