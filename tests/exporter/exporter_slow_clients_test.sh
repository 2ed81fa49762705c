#!/usr/bin/env bash
# `railkit exporter` (the binary, its default limits) against slow clients on
# 127.0.0.1: 300 connections that each send half a request and then wait
# (held open by this shell), and beside them a scrape answered within 1 s
# (the issue: behind a thread pool it got no answer in 10 s), then 100
# scrapes at once (one curl, --parallel), every one a 200 with the whole page.
# A client that never finishes its head is closed by the 5 s deadline.
# Usage: exporter_slow_clients_test.sh RAILKIT MAKE_NODE_FIXTURE
set -u
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/e2e_frame.sh"
RK=$1
MAKE_FIXTURE=$2
PID=""
E2E_LOGS=(exporter.log)
E2E_PIDS=(PID)

command -v curl >/dev/null || skip "curl not installed (scripts/install-deps.sh installs it)"
curl --help all 2>/dev/null | grep -q -- '--parallel-max' || skip "this curl has no --parallel"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rk-exporter-slow.XXXXXX") || fail "mktemp"
"$MAKE_FIXTURE" healthy-dgx-h100 "$WORK/root" >/dev/null || fail "make_node_fixture"
"$RK" exporter --root "$WORK/root" --listen 127.0.0.1:0 --interval 3600 >"$WORK/exporter.log" 2>&1 &
PID=$!
URL=$(wait_for_exporter "$WORK/exporter.log" "$PID" 300) ||
  fail "exporter exited before listening or did not report its address within 30 s"
HOSTPORT=${URL#http://}
curl -fsS --max-time 10 "$URL/metrics" >"$WORK/reference.txt" || fail "first scrape"
# --interval 3600: the page cannot change between the reference and the rest.
size=$(wc -c <"$WORK/reference.txt")

slow=()
for ((i = 0; i < 300; i++)); do
  exec {fd}<>"/dev/tcp/${HOSTPORT%:*}/${HOSTPORT##*:}" || fail "connection $i"
  printf 'GET /metrics HTTP/1.1\r\nHo' >&"$fd" || fail "half request $i"
  slow+=("$fd")
done

out=$(curl -sS --max-time 10 -o "$WORK/one.txt" -w '%{http_code} %{time_total}' "$URL/metrics") ||
  fail "the scrape beside 300 slow clients failed: $out"
read -r code took <<<"$out"
[[ $code == 200 ]] || fail "the scrape beside 300 slow clients: HTTP $code"
awk -v t="$took" 'BEGIN {exit !(t < 1.0)}' || fail "the scrape beside 300 slow clients took ${took} s (limit 1 s)"
cmp -s "$WORK/one.txt" "$WORK/reference.txt" || fail "the scrape beside 300 slow clients got a different page"

args=()
for ((i = 0; i < 100; i++)); do args+=(-o "$WORK/many.$i" "$URL/metrics"); done
curl -sS --parallel --parallel-immediate --parallel-max 100 --max-time 30 -w '%{http_code}\n' "${args[@]}" \
  >"$WORK/codes.txt" 2>"$WORK/curl.err" || fail "100 scrapes at once: $(head -3 "$WORK/curl.err")"
ok=$(grep -cx 200 "$WORK/codes.txt")
[[ $ok == 100 ]] || fail "100 scrapes at once: $ok answered 200"
for ((i = 0; i < 100; i++)); do
  cmp -s "$WORK/many.$i" "$WORK/reference.txt" || fail "scrape $i of 100 got $(wc -c <"$WORK/many.$i") bytes, not the $size-byte page"
done
for fd in "${slow[@]}"; do exec {fd}>&-; done

# Half a request, then nothing: the server closes at its 5 s deadline (read
# sees end of file); a timeout of read (status > 128) means it never did.
exec {fd}<>"/dev/tcp/${HOSTPORT%:*}/${HOSTPORT##*:}" || fail "connection for the deadline"
printf 'GET /metrics HTTP/1.1\r\nHo' >&"$fd"
start=$SECONDS
read -r -t 15 -u "$fd" _
rc=$?
waited=$((SECONDS - start))
exec {fd}>&-
((rc <= 128)) || fail "a half request was still open after 15 s"
((waited >= 3)) || fail "a half request was closed after ${waited} s, before the 5 s deadline"
echo "PASS: a scrape beside 300 slow clients in ${took} s, 100 scrapes at once all answered, a half request closed after ${waited} s"
