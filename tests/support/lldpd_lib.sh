#!/usr/bin/env bash
# Debian's lldpd in network namespaces, for the netns tests that cable nodes
# to leaves (tests/fabric/fabric_lldp_test.sh, tests/k8s/render_lldpd_test.sh,
# tests/validate/validate_lldp_netns_test.sh). Source it; set RK_LLDPD_DIR to a scratch
# directory that lldpd's own user (_lldpd, whom it drops to) can enter
# (chmod 755): each daemon's socket and pid file go there, named after it.
# The caller defines fail MESSAGE (prints, exits non-zero).

# rk_lldpcli NS NAME ARGS...: lldpcli against the lldpd named NAME in NS.
rk_lldpcli() { local ns=$1 name=$2; shift 2; ip netns exec "$ns" lldpcli -u "$RK_LLDPD_DIR/$name.sock" "$@"; }

# rk_lldpd_start NS NAME IFACES: lldpd in NS, in a UTS namespace of its own
# named NAME (the system name it announces), on IFACES (lldpd's -I pattern).
# The daemon forks before it listens: waits until its socket answers (10 s
# at most).
rk_lldpd_start() {
  local i
  ip netns exec "$1" unshare --uts sh -c \
    "hostname $2 && exec lldpd -u $RK_LLDPD_DIR/$2.sock -p $RK_LLDPD_DIR/$2.pid -I '$3' -S 'railkit test $2'" ||
    fail "lldpd for $2 did not start"
  for ((i = 0; i < 100; i++)); do
    rk_lldpcli "$1" "$2" show configuration >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "lldpd for $2 does not answer on $RK_LLDPD_DIR/$2.sock"
}

# rk_netns_delete NS...: ends every process in each namespace (TERM, then
# KILL what is left after 0.2 s) and deletes the namespaces; for cleanup
# traps, so it never fails.
rk_netns_delete() {
  local ns pids
  for ns in "$@"; do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [[ -n $pids ]] && kill $pids 2>/dev/null
  done
  sleep 0.2
  for ns in "$@"; do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [[ -n $pids ]] && kill -9 $pids 2>/dev/null
    ip netns del "$ns" 2>/dev/null
  done
  return 0
}
