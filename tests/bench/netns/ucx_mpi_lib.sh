#!/usr/bin/env bash
# Helpers for the ucx and mpirun netns tests (source after netns_lib.sh).

# rk_um_specs: the data type / reduction / root combinations every run covers.
RK_UM_SPECS=("-d float -o sum" "-d int8 -o max -r 1" "-d uint64 -o prod" "-d double -o min" "-d int32 -o sum")

# rk_um_max: largest size; small under sanitizers.
rk_um_max() { if [[ -n "${RAILKIT_SANITIZER_BUILD:-}" ]]; then echo 300000; else echo 3000000; fi; }

# rk_um_check_output FILE RUN: every data row has #wrong 0 in both columns,
# there are rows for all 7 ops, and the footer says OK.
rk_um_check_output() {
  local file=$1 what=$2 rows bad
  rows=$(awk '!/^#/ && NF == 13' "$file" | wc -l)
  bad=$(awk '!/^#/ && NF == 13 && ($9 != 0 || $13 != 0)' "$file" | wc -l)
  if (( rows < 7 )) || (( bad != 0 )); then
    cat "$file" >&2
    echo "FAIL: $what: $rows data rows, $bad with #wrong != 0" >&2
    return 1
  fi
  if grep -q "Out of bounds values : [1-9]" "$file"; then
    echo "FAIL: $what: out of bounds values" >&2
    return 1
  fi
  echo "ok: $what: $rows rows, #wrong 0"
}

# rk_um_counters N: snapshot "eth0 net1" byte counters of nodes 1..N into RK_UM_C0.
rk_um_snapshot() {
  local n=$1 i
  RK_UM_SNAP=()
  for ((i = 1; i <= n; i++)); do RK_UM_SNAP+=("$(rk_iface_bytes "$i" eth0) $(rk_iface_bytes "$i" net1)"); done
}

# rk_um_check_separation N: since the last snapshot, eth0 carried < 1% of net1's bytes on every node.
rk_um_check_separation() {
  local n=$1 i c0 d0 c d
  for ((i = 1; i <= n; i++)); do
    read -r c0 d0 <<<"${RK_UM_SNAP[$((i - 1))]}"
    c=$(( $(rk_iface_bytes "$i" eth0) - c0 )); d=$(( $(rk_iface_bytes "$i" net1) - d0 ))
    echo "node$i: eth0 $c bytes, net1 $d bytes"
    (( c * 100 < d )) || { echo "FAIL: node$i eth0 carried >= 1% of net1's bytes" >&2; return 1; }
  done
}
