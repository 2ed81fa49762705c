#!/usr/bin/env bash
# Load on `railkit exporter`: CLIENTS concurrent scrapers (curl in a loop)
# for SECONDS against the exporter on 127.0.0.1, serving a node with counter
# files on every port. Prints scrape latency percentiles, scrapes/s, and the
# exporter's RSS at start, at its peak and at the end (nothing may grow
# without bound), with the anchor measured in the same run: one scraper
# alone (p50), so the ratio shows what concurrency costs.
# Usage: benchmarks/exporter_load.sh [RAILKIT] [MAKE_NODE_FIXTURE]
#   env: CLIENTS=50 SECONDS_=60 ANCHOR_SECONDS=10
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../tests/exporter/lib.sh"
repo=$(cd "$here/.." && pwd)
rk=${1:-$repo/build/railkit}
fixture=${2:-$repo/build/tests/sys/make_node_fixture}
CLIENTS=${CLIENTS:-50}
DURATION=${SECONDS_:-60}
ANCHOR=${ANCHOR_SECONDS:-10}
[[ -x "$rk" && -x "$fixture" ]] || { echo "need $rk and $fixture (build them first)" >&2; exit 2; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 2; }

work=$(mktemp -d)
pid=""
trap '[[ -n "$pid" ]] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
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
scrapers "$CLIENTS" "$DURATION" "$work/load"
for _ in $(seq "$DURATION"); do track; sleep 1; done
sleep 2
rss_end=$(rss)
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
