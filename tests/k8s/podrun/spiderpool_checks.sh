# Sourced by podrun_test.sh (PODRUN_CHECKS) for spiderpool_test.sh, with the
# nodes still up. The profiles put rail r (0-based) in 198.18.(20+r).0/24;
# the shared plan's pool hands its addresses out from .1 in the order of the
# pods that attach the rails (an MPIJob's launcher attaches none), the
# exclusive plan gives node N the /27 block at 32*(N-1), gateway first, pods
# from the next address.
# spiderpool_expected NODE RAIL K: the address (with prefix) the K-th pod with
# rails (1-based), on NODE, gets on RAIL.
spiderpool_expected() {
  local node=$1 rail=$2 net="198.18.$((20 + $2))"
  if [[ $SPIDERPOOL_PLAN == exclusive ]]; then
    echo "$net.$((32 * (node - 1) + 2))/27"
  else
    echo "$net.$3/24"
  fi
}

# spiderpool_probe FROM_NODE FROM_ADDR TO_NODE TO_ADDR: a TCP connection from
# FROM_ADDR to TO_ADDR; the server answers with the source address it saw.
spiderpool_probe() {
  local port=7$((RANDOM % 900 + 100)) seen
  ip netns exec "$(rk_node "$3")" python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); s.settimeout(5)
c, peer = s.accept(); c.sendall(peer[0].encode()); c.close()' "$4" "$port" &
  local server=$!
  # The client dials until the server listens (refused before), within 3 s.
  seen=$(ip netns exec "$(rk_node "$1")" python3 -c '
import socket, sys, time
end = time.monotonic() + 3
while True:
    try:
        s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3, source_address=(sys.argv[3], 0))
        break
    except ConnectionRefusedError:
        if time.monotonic() > end:
            raise
        time.sleep(0.02)
print(s.recv(64).decode())' "$4" "$port" "$2" 2>&1)
  wait "$server"
  [[ $seen == "$2" ]] || fail "node $1 ($2) -> node $3 ($4): $seen"
}

podrun_extra_checks() {
  local node pod host end role job ctrl name addr plane rail want k=0 rail_nodes=()
  declare -A have=()
  while IFS=$'\t' read -r node pod host end role job ctrl; do
    grep -q ' data$' "$PR_PLAN/pods/$pod/netifs" || continue # an MPIJob's launcher runs no rank
    k=$((k + 1)) rail=0
    rail_nodes+=("$node")
    while read -r name addr plane; do
      [[ $plane == data ]] || continue
      want=$(spiderpool_expected "$node" "$rail" "$k")
      [[ $addr == "$want" ]] || fail "pod $pod (node$node) $name: $addr, want $want from its pool"
      have[$node.$rail]=${addr%/*}
      rail=$((rail + 1))
    done <"$PR_PLAN/pods/$pod/netifs"
    ((rail == 2)) || fail "pod $pod has $rail rails, want 2"
  done <"$PR_PLAN/pods.tsv"
  ((k == nodes)) || fail "$k pods with rails, want $nodes"
  local a b via n=0
  for a in "${rail_nodes[@]}"; do
    for b in "${rail_nodes[@]}"; do
      ((a == b)) && continue
      for rail in 0 1; do
        via=$(ip -n "$(rk_node "$a")" route get "${have[$b.$rail]}" from "${have[$a.$rail]}" | head -n 1)
        [[ $via == *" dev net$((rail + 1)) "* ]] || fail "node$a reaches ${have[$b.$rail]} by '$via', not net$((rail + 1))"
        if [[ $SPIDERPOOL_PLAN == exclusive ]]; then
          [[ $via == *" via 198.18.$((20 + rail)).$((32 * (a - 1) + 1)) "* ]] ||
            fail "node$a reaches node$b's rail $rail block by '$via', not through its block's gateway"
        else
          [[ $via != *" via "* ]] || fail "node$a reaches node$b's rail $rail by '$via' (shared subnet: direct)"
        fi
        spiderpool_probe "$a" "${have[$a.$rail]}" "$b" "${have[$b.$rail]}"
        n=$((n + 1))
      done
    done
  done
  echo "spiderpool $SPIDERPOOL_PLAN: every pod's rails from its pools; $n rail connections between pods, each on its own rail"
}
