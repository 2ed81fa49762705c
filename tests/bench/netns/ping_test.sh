#!/usr/bin/env bash
# Proves the fixture: every node reaches every other on both planes, and
# the two planes are separate subnets on separate bridges. (No ping on CI
# images, so a TCP connect through bash's /dev/tcp to a python listener.)
set -euo pipefail
source "$(dirname "$0")/netns_lib.sh"
n=${1:-2}
rk_netns_setup "$n"
for ((i = 1; i <= n; i++)); do
  for ((j = 1; j <= n; j++)); do
    [[ $i -eq $j ]] && continue
    rk_tcp_probe "$i" "$j" ctrl
    rk_tcp_probe "$i" "$j" data
  done
done
# No default route inside a node: nothing can leave the namespaces.
if rk_exec 1 ip route show | grep -q '^default'; then
  echo "FAIL: node has a default route" >&2; exit 1
fi
echo "ok: $n nodes reach each other on eth0 and net1"
