#!/usr/bin/env bash
# mpirun's rsh agent for netns "nodes": called as `AGENT [ssh options] HOST
# COMMAND...`, it runs COMMAND with sh (as sshd would) inside the namespace
# that HOST (a control address or name) belongs to, looked up in the map
# file named by RK_NETNS_HOSTMAP ("HOST NAMESPACE" lines).
# With RK_NETNS_OMPI_TMP set, the node gets its own ORTE session directory
# base, RK_NETNS_OMPI_TMP/NAMESPACE: netns nodes share one file system and
# one host name, so orteds of different nodes with one base race on the same
# ompi.HOST.UID/jf.FAMILY directory (orted failed with 'File exists'). mpirun
# passes its own base on orted's command line (-mca orte_tmpdir_base "DIR"),
# which wins over the environment, so that value is the one replaced.
set -euo pipefail
while [[ $# -gt 0 && $1 == -* ]]; do shift; done
host=$1
shift
ns=$(awk -v h="$host" '$1 == h { print $2; exit }' "${RK_NETNS_HOSTMAP:?}")
[[ -n "$ns" ]] || { echo "rsh agent: no namespace for host '$host'" >&2; exit 255; }
cmd="$*"
if [[ -n ${RK_NETNS_OMPI_TMP:-} ]]; then
  dir="$RK_NETNS_OMPI_TMP/$ns"
  mkdir -p "$dir"
  re='(-mca orte_tmpdir_base )"[^"]*"'
  if [[ $cmd =~ $re ]]; then
    cmd=${cmd//"${BASH_REMATCH[0]}"/"${BASH_REMATCH[1]}\"$dir\""}
  elif [[ $cmd == *orte_tmpdir_base* ]]; then
    echo "rsh agent: cannot replace orte_tmpdir_base in: $cmd" >&2
    exit 255
  fi
  exec ip netns exec "$ns" env OMPI_MCA_orte_tmpdir_base="$dir" TMPDIR="$dir" /bin/sh -c "$cmd"
fi
exec ip netns exec "$ns" /bin/sh -c "$cmd"
