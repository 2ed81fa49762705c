#!/usr/bin/env bash
# Slow readers against `railkit exporter` (issue 39): the scrape latency the
# product promises (within 1 s) while every slot is contended, measured with
# tests/exporter/slow_clients.py on the exporter's default limits.
#   pipeliners: 600 clients that pipeline GET /metrics and never read;
#   mix:        250 of them, 200 slowloris senders, 150 idle keep-alives and
#               20 strangers sending bytes that are not HTTP.
# Each case runs SECONDS_ (20) with a scrape on a fresh connection every
# INTERVAL (0.25 s) and prints the scrapes' p50, p99 and max (connect to last
# byte, the harness's own time included), how many clients the server closed,
# the exporter's peak descriptors and VmHWM; a case whose slowest scrape
# passes 1 s is marked MISSED. Quotes the CPU model and the load before and
# after. Exits 1 if a scrape failed or missed 1 s.
# Usage: benchmarks/exporter_slow_readers.sh [RAILKIT] [MAKE_NODE_FIXTURE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../tests/exporter/lib.sh"
repo=$(cd "$here/.." && pwd)
rk=${1:-$repo/build/railkit}
fixture=${2:-$repo/build/tests/sys/make_node_fixture}
DURATION=${SECONDS_:-20}
INTERVAL=${INTERVAL:-0.25}
[[ -x "$rk" && -x "$fixture" ]] || { echo "need $rk and $fixture (build them first)" >&2; exit 2; }
if ! command -v curl >/dev/null || ! command -v python3 >/dev/null; then echo "needs curl and python3" >&2; exit 2; fi

work=$(mktemp -d)
pid=""
trap '[[ -n "$pid" ]] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
"$fixture" healthy-dgx-h100 "$work/root" >/dev/null
"$rk" exporter --root "$work/root" --listen 127.0.0.1:0 --interval 3600 >"$work/exporter.log" 2>&1 &
pid=$!
url=$(wait_for_exporter "$work/exporter.log" "$pid" 100) || { cat "$work/exporter.log" >&2; exit 1; }
fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l)
hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
curl -fsS "$url/metrics" >"$work/page.txt"
page_kb=$((($(wc -c <"$work/page.txt") + 1023) / 1024))
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# exporter: 512 slots, page $(wc -c <"$work/page.txt") bytes, VmHWM $hwm kB and $fds descriptors before any client"
harness=(python3 "$repo/tests/exporter/slow_clients.py" "${url#http://}" "$pid" "$work/page.txt"
  --fd-baseline "$fds" --hwm-limit-kb $((hwm + 512 * (13 + page_kb) + 16384)) --seconds "$DURATION"
  --interval "$INTERVAL" --max-latency 1)
status=0
for case in "pipeliners --pipeliners 600" "mix --pipeliners 250 --slowloris 200 --idle 150 --strangers 20"; do
  read -r name flags <<<"$case"
  # shellcheck disable=SC2086 # flags are words
  if out=$("${harness[@]}" --name "$name" $flags 2>&1); then
    echo "$out (1 s: met)"
  else
    echo "$out" | sed '1s/$/ (1 s: MISSED)/'
    status=1
  fi
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
