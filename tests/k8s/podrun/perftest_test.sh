#!/usr/bin/env bash
# The perftest render really runs (docs/render.md, "Proof: the pod runner"):
# renders profiles/perftest.yaml (ib_write_bw) for MODE x LAUNCHER and runs
# it unedited on netns nodes, where each pod with a data interface has a
# fake RDMA device behind it (mlx5_<node+1>, a RoCE v2 GID holding net1's
# address) and ib_write_bw is the stand-in ib_write_bw_standin.py, which
# checks -d/-i/-x against the pod's own device. Checks that
#   - every pod ends, nothing is left running;
#   - rank 0 is the server and rank 1 the client, in two different pods,
#     each with the device its own pod has (railkit env found it);
#   - the client reached the server by rank 0's DNS name, which the client
#     pod's hosts file resolves to the server pod's address;
#   - both sides ran under the render's `timeout` (at most 600 s);
#   - the bytes moved between the two GIDs' addresses, over net1.
# With PINNED=DEV the render's device is replaced by DEV (as a render that
# pinned a host's device name would be): the server must fail on it.
# Usage: perftest_test.sh RAILKIT PODPLAN MODE LAUNCHER [PINNED]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/podrun.sh"
rk=$1 podplan=$2 mode=$3 launcher=$4 pinned=${5:-}
command -v python3 >/dev/null || rk_skip "python3 not found (the ib_write_bw stand-in needs it)"

render() {
  "$rk" render --profile "$here/profiles/perftest.yaml" --mode "$mode" --launcher "$launcher" \
    --job-token podrun-fixed-job-token-0123456789 |
    if [[ -n $pinned ]]; then sed "s|device=\${hca%%:\*}|device=$pinned|"; else cat; fi
}

fail() { echo "FAIL: perftest $mode $launcher: $*" >&2; exit 1; }

if [[ -n $pinned ]]; then
  # The client retries until the render's deadline; 10 s is enough to see the server fail.
  PR_FAKE_RDMA=1 pr_run "$podplan" "$rk" <(render) 10
  rc=$?
  ((rc == 77)) && exit 77
  grep -q "device=$pinned" "$RK_WORK/manifest.yaml" || fail "the render has no device=\${hca%%:*} line to pin"
  ((rc != 0)) || fail "the run with the device pinned to $pinned succeeded"
  grep -qs "Couldn't find IB device $pinned" "$PR_PLAN"/pods/*/logs/*.log ||
    fail "no pod's ib_write_bw refused the pinned device $pinned"
  echo "ok: perftest $mode $launcher: a render pinning device $pinned fails in pods that have another"
  exit 0
fi

PR_FAKE_RDMA=1 pr_run "$podplan" "$rk" <(render) 60
rc=$?
((rc == 77)) && exit 77
((rc == 0)) || fail "not every pod ended as it should (above)"

logs=("$PR_PLAN"/pods/*/logs/*.log)
server=$(grep -h '^ib_write_bw stand-in: server rank' "${logs[@]}" | tail -n 1)
client=$(grep -h '^ib_write_bw stand-in: client rank' "${logs[@]}" | tail -n 1)
accepted=$(grep -h '^ib_write_bw stand-in: server accepted' "${logs[@]}" | tail -n 1)
connected=$(grep -h '^ib_write_bw stand-in: client connected' "${logs[@]}" | tail -n 1)
echo "$server"$'\n'"$client"$'\n'"$accepted"$'\n'"$connected"
[[ -n $server && -n $client && -n $accepted && -n $connected ]] || fail "the stand-in's server and client lines are not all there"

# field LINE WORD: the word after WORD in LINE.
field() { awk -v w="$2" '{ for (i = 1; i < NF; i++) if ($i == w) { print $(i + 1); exit } }' <<<"$1"; }
pod_of_host() { awk -F'\t' -v h="$1" '$3 == h { print $2 }' "$PR_PLAN/pods.tsv"; }
addr_of() { awk -v n="$2" '$1 == n { sub("/.*", "", $2); print $2 }' "$PR_PLAN/pods/$1/netifs"; }

# Each side: its rank, its pod, the device and data address its pod has.
for side in server client; do
  line=${!side}
  want_rank=0
  [[ $side == client ]] && want_rank=1
  [[ $(field "$line" rank) == "$want_rank" ]] || fail "the $side is rank $(field "$line" rank), want $want_rank: $line"
  host=$(field "$line" on)
  pod=$(pod_of_host "$host")
  [[ -n $pod ]] || fail "the $side ran on host $host, no pod's hostname"
  read -r dev port netdev ip <"$PR_PLAN/pods/$pod/rdma" || fail "pod $pod has no RDMA device in the plan"
  [[ $(field "$line" device) == "$dev:$port" ]] || fail "the $side used $(field "$line" device), its pod $pod has $dev:$port"
  [[ $(field "$line" data) == "$ip" ]] || fail "the $side's data address is $(field "$line" data), its pod's $netdev has $ip"
  bound=${line##*bounded by: }
  if ! [[ $bound =~ ^timeout\ ([0-9]+)\ ib_write_bw ]] || ((BASH_REMATCH[1] == 0 || BASH_REMATCH[1] > 600)); then
    fail "the $side did not run under the render's timeout (its parent: $bound)"
  fi
  if [[ $side == server ]]; then
    server_pod=$pod server_host=$host
  else
    client_pod=$pod client_host=$host client_ip=$ip
  fi
done
[[ $server_pod != "$client_pod" ]] || fail "server and client ran in the same pod $server_pod"

# The client named rank 0 by DNS, its hosts file resolves that name to the
# server pod's address, and the server saw the client's host and data address.
name=$(field "$connected" server)
[[ $name == "$server_host".* ]] || fail "the client reached '$name', not rank 0's DNS name ($server_host.SUBDOMAIN...)"
resolved=$(awk -v n="$name" '{ for (i = 2; i <= NF; i++) if ($i == n) { print $1; exit } }' "$PR_PLAN/pods/$client_pod/hosts")
[[ -n $resolved && $resolved == "$(addr_of "$server_pod" eth0)" ]] ||
  fail "pod $client_pod's hosts file resolves $name to '$resolved', not to pod $server_pod's address"
[[ $(field "$connected" host) == "$server_host" ]] || fail "the client's peer says it is $(field "$connected" host), not $server_host"
[[ $(field "$accepted" client) == "$client_host" ]] || fail "the server's client says it is $(field "$accepted" client), not $client_host"
[[ ${accepted##*data from } == "$client_ip" ]] || fail "the data came from ${accepted##*data from }, not the client's $client_ip"
rows=$(cat "${logs[@]}" | grep -cE '^ [0-9]+ +[0-9]+ +[0-9.]+ ')
((rows >= 2)) || fail "$rows table rows in the logs, want the server's and the client's"

# The data interface carried the bytes on both pods.
for pod in "$server_pod" "$client_pod"; do
  node=$(pr_node_of "$pod")
  read -r dev port netdev ip <"$PR_PLAN/pods/$pod/rdma"
  c=$(rk_iface_bytes "$node" eth0) d=$(rk_iface_bytes "$node" "$netdev")
  echo "pod $pod: eth0 $c bytes, $netdev $d bytes"
  ((d > 1000000 && c * 10 < d)) || fail "pod $pod: $netdev did not carry the bytes (eth0 $c, $netdev $d)"
done
echo "ok: perftest $mode $launcher: rank 0 ($server_host, $(field "$server" device)) served, rank 1" \
  "($client_host, $(field "$client" device)) connected to $name, both under timeout, every pod ended"
