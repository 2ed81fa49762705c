#!/usr/bin/env bash
# benchmarks/validate_scale.sh RANKS [NODES] [RAILKIT] [NODE_ROOT_TOOL]
# How `railkit validate` scales with the number of ranks: starts RANKS ranks
# spread over NODES network-namespace nodes (default 8; tests/bench/netns/
# netns_lib.sh: eth0 on a control bridge, net1 on a data bridge), each rank in
# its own UTS namespace with its own hostname (nodeI-K), all ranks of a netns
# node sharing that node's --root tree (railkit_node_root) and its IPs. The env
# bootstrap, tiny sizes (1 KiB collectives, 4 KiB x 1 per pair, one tcp
# stream per peer), so what is measured is the control plane: the rendezvous,
# the gathering of node reports, the data plane's set-up (the endpoints'
# allgather; streams open on first use, inside the rounds) and the per-round
# cost of the pairs schedule.
# Prints rank 0's phase times, the cost per pairs round (links seconds /
# rounds) and per gathered node (node seconds / RANKS), the document's size
# and the load (uptime) before and after. Rank 0's JSON is copied to
# $VALIDATE_SCALE_OUT (default /tmp/validate_scale_RANKS.json), the ranks'
# "railkit:" lines (notices, errors) to that path plus ".log".
# Not a test: it asserts nothing; its numbers depend on the machine and on
# what else runs on it. Needs root and network namespaces.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ranks=${1:?usage: validate_scale.sh RANKS [NODES] [RAILKIT] [NODE_ROOT_TOOL]}
nodes=${2:-8}
rk=${3:-${RAILKIT:-$here/../build/railkit}}
node_root=${4:-$here/../build/tests/validate/railkit_node_root}
out=${VALIDATE_SCALE_OUT:-/tmp/validate_scale_$ranks.json}
[[ -x $rk ]] || { echo "validate_scale: railkit not found at $rk" >&2; exit 2; }
[[ -x $node_root ]] || { echo "validate_scale: railkit_node_root not found at $node_root" >&2; exit 2; }
(( ranks >= 2 && nodes >= 1 && nodes <= ranks )) || { echo "validate_scale: need 2 <= RANKS and 1 <= NODES <= RANKS" >&2; exit 2; }
source "$here/../tests/bench/netns/netns_lib.sh"
command -v unshare >/dev/null || rk_skip "unshare (util-linux) not found"
command -v python3 >/dev/null || rk_skip "python3 not found"

# Rank 0 holds a bootstrap socket per rank plus its data streams, and so
# does every rank (one stream per peer): a 1024-rank job is ~2100 fds.
ulimit -n "$(ulimit -Hn)"
rk_netns_setup "$nodes"
for ((i = 1; i <= nodes; i++)); do
  "$node_root" "$RK_WORK/root$i" >/dev/null || { echo "validate_scale: railkit_node_root node$i failed" >&2; exit 1; }
done

export MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=29500 WORLD_SIZE=$ranks
# start_rank R: rank R on netns node (R mod NODES)+1, in the background.
start_rank() {
  local r=$1 i=$(( $1 % nodes + 1 )) k=$(( $1 / nodes )) extra=()  # consecutive ranks on different nodes
  [[ $r -eq 0 ]] && extra=(--json-out "$RK_WORK/validate.json")
  RANK=$r rk_exec "$i" unshare --uts sh -c 'hostname "$0" && exec "$@"' "node$i-$k" \
    timeout 1800 "$rk" validate --root "$RK_WORK/root$i" --data-if =net1 --ctrl-if =eth0 \
    --expect-nics 8 --expect-gpus 8 -b 1K -e 1K -n 1 -w 0 --pairs-bytes 4K --pairs-iters 1 \
    --connections 1 --slow-fraction 0.01 --bootstrap-timeout 900 --stall-timeout 600 "${extra[@]}" \
    >"$RK_WORK/out$r" 2>&1 &
  pids[$r]=$!
}

# Ranks 1.. first and rank 0 once they wait for it (they retry every 100 ms):
# its node phase then measures the rendezvous and the gathering, not how long
# this shell takes to start RANKS processes on a loaded machine.
load_before=$(uptime)
start=$(date +%s.%N)
pids=()
for ((r = 1; r < ranks; r++)); do start_rank "$r"; done
settle=$(( 2 + ranks / 50 ))
sleep "$settle"
launched=$(date +%s.%N)
start_rank 0
rc0=0
wait "${pids[0]}" || rc0=$?
others=0
for p in "${pids[@]:1}"; do wait "$p" || others=$((others + 1)); done
end=$(date +%s.%N)
load_after=$(uptime)
# TCP segments retransmitted and retransmit timeouts in all the nodes (the
# fields of /proc/net/snmp and /proc/net/netstat on Linux 5.x/6.x): a
# round that waits on a lost segment costs the 200 ms minimum RTO.
retrans=0 timeouts=0
for ((i = 1; i <= nodes; i++)); do
  read -r a b < <(rk_exec "$i" awk '/^Tcp: [0-9]/ { r = $13 } /^TcpExt: [0-9]/ { t = $45 } END { print r + 0, t + 0 }' \
    /proc/net/snmp /proc/net/netstat)
  retrans=$((retrans + a)) timeouts=$((timeouts + b))
done
if [[ ! -s $RK_WORK/validate.json ]]; then
  tail -20 "$RK_WORK/out0"
  echo "validate_scale: rank 0 exited $rc0 without a document" >&2
  exit 1
fi
cp "$RK_WORK/validate.json" "$out"
# Every rank's complaints (lines starting "railkit:") go beside the document.
grep -H '^railkit:' "$RK_WORK"/out* >"$out.log" 2>/dev/null || true
refused=$(grep -c 'Connection refused' "$out.log" || true)
dropped=$(grep -c 'data plane: dropped' "$out.log" || true)
[[ $rc0 -le 1 ]] || { tail -n 3 "$RK_WORK/out0"; head -n 20 "$out.log"; }

python3 - "$out" "$ranks" "$nodes" "$rc0" "$others" "$start" "$launched" "$end" "$load_before" "$load_after" \
  "$retrans" "$timeouts" "$refused" "$dropped" <<'PY'
import json, os, sys
path, ranks, nodes, rc0, others = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
start, launched, end = (float(x) for x in sys.argv[6:9])
doc = json.load(open(path))
ph = doc.get("phases") or {}
sec = lambda p: (ph.get(p) or {}).get("seconds")
rounds = len((doc.get("pairs") or {}).get("rounds", [])) or ranks - 1 + ranks % 2
fmt = lambda v: "-" if v is None else f"{v:.3f}"
node, links = sec("node"), sec("links")
print(f"validate_scale: {ranks} ranks on {nodes} netns nodes; rank 0 exit {rc0}, {others} other rank(s) non-zero; verdict {doc.get('verdict')}")
print(f"  ranks 1.. started, settled   {launched - start:8.3f} s (then rank 0 started)")
print(f"  wall (rank 0 start to end)   {end - launched:8.3f} s")
print(f"  node (incl. rendezvous)      {fmt(node):>8} s   per gathered node {fmt(1e3 * node / ranks if node else None)} ms")
print(f"  consistency                  {fmt(sec('consistency')):>8} s")
print(f"  data plane set-up            {fmt((ph.get('links') or {}).get('connect_seconds')):>8} s")
print(f"  links ({rounds} rounds)          {fmt(links):>8} s   per round {fmt(1e3 * links / rounds if links else None)} ms")
print(f"  collectives                  {fmt(sec('collectives')):>8} s")
print(f"  document                     {os.path.getsize(path) / 1e6:8.2f} MB ({path})")
print(f"  tcp retransmitted segments   {sys.argv[11]:>8} (retransmit timeouts {sys.argv[12]}, all nodes)")
print(f"  rank lines: 'Connection refused' {sys.argv[13]}, 'data plane: dropped' {sys.argv[14]} ({path}.log)")
print(f"  load before: {sys.argv[9].strip()}")
print(f"  load after:  {sys.argv[10].strip()}")
PY
