#!/usr/bin/env bash
# wait-dns --timeout and doctor --hostfile --dns-timeout are real bounds with a
# nameserver that never answers. A network namespace gets its own
# /etc/netns/NS/{resolv.conf,hosts,nsswitch.conf}, which `ip netns exec`
# bind-mounts over /etc: DNS goes to dead_dns_server on the namespace's own
# 127.0.0.1:53, which logs each query and answers none; the namespace has no
# other interface, so no query can reach the machine's real nameserver.
# resolv.conf says timeout:30 attempts:1: one lookup blocks 30 s in
# getaddrinfo, so the old one-name-after-another loop took 20 x 30 s here.
# Usage: wait_dns_netns_test.sh RAILKIT DEAD_DNS_SERVER
set -u
RK=$1
DEAD=$2
SKIP=77
NS="rkdns$$"
ETC="/etc/netns/$NS"
WORK=""
SRV=""
DOMAIN="rk-dead-dns.test"

skip() { echo "SKIP: $*" >&2; exit "$SKIP"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

cleanup() {
  if [[ -n "$SRV" ]]; then kill "$SRV" 2>/dev/null; wait "$SRV" 2>/dev/null; fi
  ip netns del "$NS" 2>/dev/null
  rm -rf "$ETC"
  [[ -n "$WORK" ]] && rm -rf "$WORK"
  return 0
}

[[ $(id -u) -eq 0 ]] || skip "needs root for network namespaces (running as uid $(id -u))"
command -v ip >/dev/null || skip "iproute2 'ip' not found"
# nscd answers through a socket in the file system, i.e. from outside the namespace.
for s in /run/nscd/socket /var/run/nscd/socket; do
  [[ -S $s ]] && skip "nscd is running ($s): lookups would be answered outside the namespace"
done
[[ -e /etc/resolv.conf && -e /etc/hosts && -e /etc/nsswitch.conf ]] ||
  skip "needs /etc/resolv.conf, /etc/hosts and /etc/nsswitch.conf to bind-mount over"
trap cleanup EXIT
trap 'exit 130' INT TERM
ip netns add "$NS" 2>/dev/null || skip "cannot create network namespaces here"
ip -n "$NS" link set lo up || fail "cannot bring lo up in $NS"
mkdir -p "$ETC"
printf 'nameserver 127.0.0.1\noptions timeout:30 attempts:1\n' >"$ETC/resolv.conf"
printf '127.0.0.1 localhost\n::1 localhost\n' >"$ETC/hosts"
printf 'hosts: files dns\n' >"$ETC/nsswitch.conf"
WORK=$(mktemp -d /tmp/rkdns.XXXXXX)

ip netns exec "$NS" "$DEAD" 127.0.0.1 53 "$WORK/queries" "$WORK/ready" &
SRV=$!
for _ in $(seq 100); do [[ -e $WORK/ready ]] && break; sleep 0.1; done
[[ -e $WORK/ready ]] || fail "dead_dns_server did not start"
# The bind mounts are in place inside the namespace (and only there).
ip netns exec "$NS" grep -q 'timeout:30' /etc/resolv.conf || fail "resolv.conf not bind-mounted in $NS"
grep -q 'timeout:30 attempts:1' /etc/resolv.conf 2>/dev/null && fail "host resolv.conf was changed"

hostfile() {  # hostfile N FILE
  local i
  for ((i = 1; i <= $1; i++)); do echo "node-$i.$DOMAIN slots=8"; done >"$2"
}
hostfile 20 "$WORK/hf20"
hostfile 1000 "$WORK/hf1000"

now_ms() { date +%s%3N; }

# run_bounded LIMIT_S OUT CMD...: runs CMD in the namespace, under a hard kill
# at 120 s so a regression fails instead of hanging; sets RC and TOOK (ms).
run_bounded() {
  local limit=$1 out=$2 t0
  shift 2
  t0=$(now_ms)
  timeout -s KILL 120 ip netns exec "$NS" "$@" >"$out" 2>"$out.err"
  RC=$?
  TOOK=$(( $(now_ms) - t0 ))
  echo "$* -> exit $RC in ${TOOK} ms" >&2
  (( TOOK < limit * 1000 )) || fail "took ${TOOK} ms (limit ${limit} s): $*"
}

# 20 names, --timeout 0.5: exit 1 within ~1 s, naming the hosts left.
run_bounded 10 "$WORK/out20" "$RK" wait-dns --hostfile "$WORK/hf20" --timeout 0.5
[[ $RC -eq 1 ]] || fail "wait-dns 20 names: exit $RC, expected 1: $(cat "$WORK/out20" "$WORK/out20.err")"
grep -q "timeout after .*: 20 of 20 host(s) still do not resolve: node-1.$DOMAIN" "$WORK/out20" ||
  fail "wait-dns did not name the hosts left: $(cat "$WORK/out20")"
# The lookups really went to the dead server (the test exercises it). The
# server logs a query as it gets it; wait-dns has exited, so it is due at
# once: 2 s is a generous bound.
for _ in $(seq 20); do grep -q "^node-1\.$DOMAIN\$" "$WORK/queries" && break; sleep 0.1; done
grep -q "^node-1\.$DOMAIN\$" "$WORK/queries" ||
  fail "no query for node-1.$DOMAIN reached the dead nameserver: $(head -5 "$WORK/queries")"

# 1000 names, JSON: still bounded, every one reported unresolved.
run_bounded 10 "$WORK/out1000" "$RK" wait-dns --hostfile "$WORK/hf1000" --timeout 0.5 --json
[[ $RC -eq 1 ]] || fail "wait-dns 1000 names: exit $RC, expected 1: $(cat "$WORK/out1000.err")"
n=$(grep -c "\"node-[0-9]*\.$DOMAIN\"" "$WORK/out1000")
(( n >= 1000 )) || fail "expected 1000 unresolved names in the JSON, found $n"
grep -q '"all_resolved": *false' "$WORK/out1000" || fail "JSON does not say all_resolved false"

# doctor --hostfile: bounded by --dns-timeout, every host an unresolvable finding.
run_bounded 15 "$WORK/doctor" "$RK" doctor --hostfile "$WORK/hf20" --dns-timeout 1
[[ $RC -eq 1 ]] || fail "doctor: exit $RC, expected 1: $(cat "$WORK/doctor.err")"
n=$(grep -c "\[mpi-hostfile-unresolvable\] node-" "$WORK/doctor")
[[ $n -eq 20 ]] || fail "doctor: expected 20 mpi-hostfile-unresolvable findings, found $n"
grep -q "no answer from the resolver within 1" "$WORK/doctor" || fail "doctor does not say why: $(head -20 "$WORK/doctor")"

# Progress while every lookup hangs: the 10 s status line still comes.
run_bounded 60 "$WORK/progress" "$RK" wait-dns --hostfile "$WORK/hf20" --timeout 11 --interval 60
[[ $RC -eq 1 ]] || fail "wait-dns --timeout 11: exit $RC, expected 1"
grep -q "still waiting after 1[0-9]\.[0-9]s for 20 host(s): node-1.$DOMAIN" "$WORK/progress" ||
  fail "no progress line while lookups hang: $(cat "$WORK/progress")"
echo "PASS: $(wc -l <"$WORK/queries") queries swallowed by the dead nameserver"
