# What podrun_test.sh checks of a gke-tcpxo render once every pod has ended
# (sourced; PR_PLAN, mode, launcher and fail come from it). In every pod:
#   - tcpxo-daemon is a native sidecar: started before the main container,
#     up with --num_hops=2 --num_nics N where N is the pod's GPU NICs, and
#     stopped by SIGTERM once the test had ended, not killed;
#   - the test process (the main container's, after its shell exec'd it)
#     ran with the NCCL_FASTRAK_* and NCCL_TUNER_CONFIG_PATH of the node's
#     nccl-env-profile.sh, so the script was really sourced, and with the
#     pod's interface names over the host's ones the script sets.
tcpxo_checks() {
  local node pod host end role job ctrl d main envf nics ifnames line
  while IFS=$'\t' read -r node pod host end role job ctrl; do
    d="$PR_PLAN/pods/$pod"
    # First, or right after railkit-install (render --railkit-image), which
    # ends before any other container starts.
    [[ $(grep -v '^init railkit-install$' "$d/containers" | head -n 1) == "sidecar tcpxo-daemon" ]] ||
      fail "pod $pod: tcpxo-daemon is not a native sidecar started first: $(tr '\n' ' ' <"$d/containers")"
    nics=$(grep -c ' data$' "$d/netifs")
    ifnames=$(awk '$3 == "data" { printf "%s%s", sep, $1; sep = "," }' "$d/netifs")
    grep -qx "rxdm stand-in: up: --num_hops=2 --num_nics $nics" "$d/logs/tcpxo-daemon.log" ||
      fail "pod $pod: RxDM did not come up with --num_hops=2 --num_nics $nics: $(tail -n 3 "$d/logs/tcpxo-daemon.log")"
    grep -qx "rxdm stand-in: SIGTERM: stopping" "$d/logs/tcpxo-daemon.log" ||
      fail "pod $pod: RxDM was not stopped by SIGTERM"
    [[ $(cat "$d/status/tcpxo-daemon.stop" 2>/dev/null) == "exit "*" after SIGTERM" ]] ||
      fail "pod $pod: tcpxo-daemon: $(cat "$d/status/tcpxo-daemon.stop" 2>/dev/null || echo "never stopped")"
    echo "pod $pod: tcpxo-daemon up with --num_nics $nics, $(cat "$d/status/tcpxo-daemon.stop")"
    main=$(awk '$1 == "main" { print $2; exit }' "$d/containers")
    envf="$d/status/$main.environ"
    [[ $(head -n 1 "$envf" 2>/dev/null) == railkit ]] ||
      fail "pod $pod: no environment recorded of the test process (railkit): $(head -n 1 "$envf" 2>/dev/null)"
    for line in NCCL_FASTRAK_NUM_FLOWS=2 NCCL_FASTRAK_USE_SNAP=1 NCCL_TUNER_PLUGIN=libnccl-tuner.so \
      NCCL_TUNER_CONFIG_PATH=/usr/local/nvidia/lib64/a3plus_tuner_config.textproto \
      NCCL_FASTRAK_CTRL_DEV=eth0 NCCL_SOCKET_IFNAME=eth0 "NCCL_FASTRAK_IFNAME=$ifnames"; do
      grep -qx "$line" "$envf" || fail "pod $pod: the test process ran without $line: $(grep -E '^NCCL_(FASTRAK|TUNER|SOCKET)' "$envf" | tr '\n' ' ')"
    done
    echo "pod $pod: the test process ran with the node's nccl-env-profile.sh and NCCL_FASTRAK_IFNAME=$ifnames"
  done <"$PR_PLAN/pods.tsv"
}
