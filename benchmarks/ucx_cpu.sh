#!/usr/bin/env bash
# Where the ucx backend's gap to the tcp one comes from (docs/bench.md, "ucx
# backend within 10% of tcp"): CPU per byte or parallelism. On 2 netns nodes
# (tests/bench/netns/netns_lib.sh), each round runs 2-rank all_reduce jobs
# one after the other:
#   tcp    railkit --backend tcp, with the machine's CPU busy share over the run
#   ucx    railkit --backend ucx, UCX_TLS=tcp, the same
#   ucx2   two ucx jobs at once on the same nodes: each node then has two
#          independent UCX workers on their own cores, the most a build with
#          several workers per rank could get; the sum of their busbw
# Prints each round (rank 0's in-place busbw, GB/s) and the medians with the
# ratios ucx/tcp and ucx2/tcp. CPU busy near 100 % for both backends and
# ucx2 near ucx means the machine's CPU, not one worker's thread, sets the
# ucx rate. Needs root (namespaces) and a railkit built with UCX.
# Usage: benchmarks/ucx_cpu.sh [RAILKIT_BINARY]
#   env: SIZE=64M ITERS=40 WARMUP=2 ROUNDS=3
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
rk=${1:-$repo/build/railkit}
SIZE=${SIZE:-64M} ITERS=${ITERS:-40} WARMUP=${WARMUP:-2} ROUNDS=${ROUNDS:-3}
[[ -x "$rk" ]] || { echo "railkit binary not found at $rk (pass its path)" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "ucx_cpu.sh needs root (network namespaces)" >&2; exit 2; }
"$rk" bench all_reduce --backend ucx --local 1 -b 8 -e 8 >/dev/null 2>&1 ||
  { echo "this railkit has no ucx backend (built without libucx-dev?)" >&2; exit 2; }

source "$repo/tests/bench/netns/netns_lib.sh"
rk_netns_setup 2 >/dev/null
echo "# $(date -u +%FT%TZ) $(uptime | sed 's/.*load/load/'); $SIZE, -n $ITERS -w $WARMUP, $ROUNDS rounds"

port=29900
# busy and idle jiffies of the whole machine so far
cpu_now() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat; }
# job PORT [--backend ucx]: one 2-rank job; prints rank 0's in-place busbw
job() {
  local port=$1
  shift
  local args=(bench all_reduce --data-if "=net1" --ctrl-if "=eth0" -b "$SIZE" -e "$SIZE" -n "$ITERS" -w "$WARMUP"
    -c 0 -a 0 --stall-timeout 60 "$@")
  RANK=1 WORLD_SIZE=2 MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=$port rk_exec 2 "$rk" "${args[@]}" >/dev/null 2>&1 &
  local peer=$!
  RANK=0 WORLD_SIZE=2 MASTER_ADDR=$(rk_ctrl_ip 1) MASTER_PORT=$port rk_exec 1 "$rk" "${args[@]}" 2>/dev/null |
    awk '/^ +[0-9]+ +[0-9]+ +float/ { v = $12 } END { print (v == "" ? "nan" : v) }'
  wait "$peer" || true
}
# measured JOB_ARGS...: one job on the next port; sets bw and busy (CPU %)
measured() {
  local b0 i0 b1 i1
  port=$((port + 1))
  read -r b0 i0 < <(cpu_now)
  bw=$(job "$port" "$@")
  read -r b1 i1 < <(cpu_now)
  busy=$(((100 * (b1 - b0)) / (b1 - b0 + i1 - i0 + 1)))
}

results=$(mktemp)
trap 'rm -f "$results"; rk_cleanup' EXIT
printf '%-6s %12s %6s %12s %6s %22s\n' round tcp busy ucx busy "ucx2 (a + b)"
for ((r = 1; r <= ROUNDS; r++)); do
  measured
  tcp=$bw tcp_busy=$busy
  UCX_TLS=tcp measured --backend ucx
  ucx=$bw ucx_busy=$busy
  a=$(mktemp)
  UCX_TLS=tcp job $((port + 1)) --backend ucx >"$a" &
  other=$!
  b=$(UCX_TLS=tcp job $((port + 2)) --backend ucx)
  port=$((port + 2))
  wait "$other" || true
  a=$(cat "$a" && rm -f "$a")
  printf '%-6s %12s %5s%% %12s %5s%% %22s\n' "$r" "$tcp" "$tcp_busy" "$ucx" "$ucx_busy" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f (%s + %s)", a + b, a, b }')"
  awk -v a="$a" -v b="$b" -v t="$tcp" -v u="$ucx" 'BEGIN { print t, u, a + b }' >>"$results"
done
python3 - "$results" <<'EOF'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
tcp, ucx, ucx2 = zip(*rows)
med = statistics.median
def ratio(xs, ys):
    rs = [x / y for x, y in zip(xs, ys) if y > 0]
    return f"{med(rs):.2f} [{min(rs):.2f}-{max(rs):.2f}]" if rs else "n/a"
print(f"# medians GB/s: tcp {med(tcp):.2f}  ucx {med(ucx):.2f}  ucx2 {med(ucx2):.2f}")
print(f"# ratios (median [min-max] of the rounds): ucx/tcp {ratio(ucx, tcp)}  ucx2/tcp {ratio(ucx2, tcp)}  ucx2/ucx {ratio(ucx2, ucx)}")
EOF
