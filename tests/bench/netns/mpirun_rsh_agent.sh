#!/usr/bin/env bash
# mpirun's rsh agent for netns "nodes": called as `AGENT [ssh options] HOST
# COMMAND...`, it runs COMMAND with sh (as sshd would) inside the namespace
# that HOST (a control address or name) belongs to, looked up in the map
# file named by RK_NETNS_HOSTMAP ("HOST NAMESPACE" lines).
set -euo pipefail
while [[ $# -gt 0 && $1 == -* ]]; do shift; done
host=$1
shift
ns=$(awk -v h="$host" '$1 == h { print $2; exit }' "${RK_NETNS_HOSTMAP:?}")
[[ -n "$ns" ]] || { echo "rsh agent: no namespace for host '$host'" >&2; exit 255; }
exec ip netns exec "$ns" /bin/sh -c "$*"
