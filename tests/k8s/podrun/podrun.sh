#!/usr/bin/env bash
# The pod runner (docs/render.md, "Proof: the pod runner"): runs a rendered
# manifest's pods on netns nodes, one node per pod, as the controllers and
# the kubelet would: railkit_podplan plans the pods (names, hostnames, env,
# files, interfaces), this script builds the nodes (tests/bench/netns/
# netns_lib.sh), starts every pod (pod.sh), plays the MPI Operator's part
# of deleting the workers once the launcher has ended, waits for all of them
# with a timeout and reports each pod's end. A pod still running at the end
# is a failure, and so is any process left in a pod's namespace.
#   podrun.sh PODPLAN RAILKIT MANIFEST [TIMEOUT]      (as root)
# or source it and call pr_run with the same arguments: the plan stays in
# PR_PLAN (pods/POD/logs/NAME.log, pods/POD/status/) until the trap cleans up.
PR_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../bench/netns/netns_lib.sh
source "$PR_DIR/../../bench/netns/netns_lib.sh"
# Pods get a private /tmp, so the plan lives where they can still see it.
RK_WORK_BASE=/var/tmp
PR_PLAN=""

pr_log() { echo "podrun: $*"; }

# pr_pods: the plan's pods.tsv lines (NODE POD HOSTNAME END ROLE JOB CONTROLLER).
pr_pods() { cat "$PR_PLAN/pods.tsv"; }

pr_alive() { kill -0 "$1" 2>/dev/null; }

# pr_delete_pod NODE: what deleting a pod does to its processes: TERM, then
# KILL after a grace period.
pr_delete_pod() {
  local ns pids t
  ns=$(rk_node "$1")
  pids=$(ip netns pids "$ns")
  [[ -n "$pids" ]] && kill -TERM $pids 2>/dev/null
  for t in 1 2 3 4 5 6 7 8 9 10; do
    [[ -z "$(ip netns pids "$ns")" ]] && return 0
    sleep 0.2
  done
  pids=$(ip netns pids "$ns")
  [[ -n "$pids" ]] && kill -KILL $pids 2>/dev/null
  return 0
}

pr_run() {
  local podplan=$1 rk manifest=$3 timeout=${4:-60}
  rk=$(realpath "$2")  # the pods see it through a symlink
  local build_rk=$rk
  local node pod host end role job ctrl name addr plane
  for tool in unshare ssh-keygen /usr/sbin/sshd; do
    command -v "$tool" >/dev/null || rk_skip "$tool not found (scripts/install-deps.sh installs it)"
  done
  rk_netns_begin
  # The manifest may be a pipe (<(railkit render ...)): keep a copy to plan from.
  cat "$manifest" >"$RK_WORK/manifest.yaml" || return 2
  manifest="$RK_WORK/manifest.yaml"
  mkdir -p "$RK_WORK/keys" "$RK_WORK/image/etc/ssh"
  # The SSH key pair the operators' Secrets hold, and the host key the image carries.
  ssh-keygen -q -t ecdsa -b 521 -m PEM -N '' -C podrun -f "$RK_WORK/keys/id_rsa" || return 2
  ssh-keygen -q -t ed25519 -N '' -C podrun -f "$RK_WORK/image/etc/ssh/ssh_host_ed25519_key" || return 2
  # Pods get a private /tmp, and the checkout (with pod.sh and the build
  # tree) may live under /tmp (a CI clone): the image's railkit and the pod
  # script are copied where every pod still sees them.
  mkdir -p "$RK_WORK/bin"
  cp "$rk" "$RK_WORK/bin/railkit" && cp "$PR_DIR/pod.sh" "$RK_WORK/bin/pod.sh" || return 2
  rk="$RK_WORK/bin/railkit"
  # PR_RAILKIT_IMAGE=REF: containers of image REF run in railkit's own image
  # (pr_railkit_image), and the other images have no railkit: the pods can
  # only run the copy an initContainer made (render --railkit-image).
  local pod_rk=$rk
  if [[ -n ${PR_RAILKIT_IMAGE:-} ]]; then
    pr_railkit_image "$rk" "$(dirname "$build_rk")" || return 2
    pod_rk=-
  fi
  # In the sanitizer build the image carries the sanitizer settings, as a
  # test image would in its ENV: ASan's options, LSan's suppressions for
  # OpenMPI's own leaks (tests/bench/lsan.supp), OpenMPI's components kept
  # loaded so those leaks have names to match, and stacks unwound without
  # frame pointers (OpenMPI is built without them). Ranks that mpirun starts
  # over ssh get sshd's environment, not the container's: the image's
  # sshd_config (the host's plus SetEnv) gives them the same.
  if [[ -n ${RAILKIT_SANITIZER_BUILD:-} ]]; then
    cp "$PR_DIR/../../bench/lsan.supp" "$RK_WORK/image/etc/railkit-lsan.supp" || return 2
    local sanitizer_env=("ASAN_OPTIONS=${ASAN_OPTIONS:-}:fast_unwind_on_malloc=0"
      "LSAN_OPTIONS=suppressions=/etc/railkit-lsan.supp" "UBSAN_OPTIONS=${UBSAN_OPTIONS:-}"
      "RAILKIT_SANITIZER_BUILD=1" "OMPI_MCA_mca_base_component_disable_dlclose=1"
      "PMIX_MCA_mca_base_component_disable_dlclose=1")
    printf '%s\n' "${sanitizer_env[@]}" >"$RK_WORK/image.env" || return 2
    # Ranks that mpirun starts over ssh dlopen Open MPI (and UCX), and clang
    # 14's LeakSanitizer crashed now and then in its own tracer at their exit
    # ("Tracer caught signal 11"): no leak check for them alone
    # (tests/bench/netns/mpirun_test.sh says the same); every other process of
    # the pod keeps it.
    local rank_env=("${sanitizer_env[@]}")
    rank_env[0]+=":detect_leaks=0"
    { cat /etc/ssh/sshd_config; echo "SetEnv ${rank_env[*]}"; } >"$RK_WORK/image/etc/ssh/sshd_config" || return 2
  fi
  PR_PLAN="$RK_WORK/plan"
  "$podplan" plan "$manifest" "$PR_PLAN" --ssh-key-dir "$RK_WORK/keys" \
    --ctrl-net "$RK_CTRL_NET" --data-net "$RK_DATA_NET" || return 2
  [[ -n ${PR_FAKE_RDMA:-} ]] && { pr_fake_rdma || return 2; }
  # PR_IMAGE_EXTRA=DIR: more files for the image (a stand-in daemon where the
  # manifest runs one). Each node gets its own root for hostPath volumes,
  # nodes/NODE, a copy of PR_NODE_ROOT=DIR when set (what a node's
  # installer DaemonSets would have put there), else empty.
  if [[ -n ${PR_IMAGE_EXTRA:-} ]]; then cp -a "$PR_IMAGE_EXTRA/." "$RK_WORK/image/" || return 2; fi
  declare -gA PR_PID=() PR_END=()
  while IFS=$'\t' read -r node pod host end role job ctrl; do
    local ifs=()
    while read -r name addr plane; do ifs+=("$name=$addr"); done <"$PR_PLAN/pods/$pod/netifs"
    rk_netns_add_node "$node" "${ifs[@]}"
    pr_pod_routes "$node" "$pod" || return 2
    mkdir -p "$RK_WORK/nodes/$node" || return 2
    if [[ -n ${PR_NODE_ROOT:-} ]]; then cp -a "$PR_NODE_ROOT/." "$RK_WORK/nodes/$node/" || return 2; fi
  done < <(pr_pods)
  pr_leaf_router || return 2
  while IFS=$'\t' read -r node pod host end role job ctrl; do
    ip netns exec "$(rk_node "$node")" unshare --uts --mount --propagation private \
      bash "$RK_WORK/bin/pod.sh" pod "$PR_PLAN/pods/$pod" "$pod_rk" "$RK_WORK/image" "$RK_WORK/nodes/$node" &
    PR_PID[$pod]=$!
  done < <(pr_pods)
  # Event-driven: the loop wakes when a pod's process ends (wait -n) or the
  # timer does, never on a clock of its own.
  local started=$SECONDS running deleted=0 timer alive
  sleep "$timeout" &
  timer=$!
  while :; do
    running=0 alive=()
    while IFS=$'\t' read -r node pod host end role job ctrl; do
      [[ -n "${PR_END[$pod]:-}" ]] && continue
      if ! pr_alive "${PR_PID[$pod]}"; then
        wait "${PR_PID[$pod]}" 2>/dev/null
        PR_END[$pod]=$(cat "$PR_PLAN/pods/$pod/status/phase" 2>/dev/null || echo "did not start")
        pr_log "pod $pod ended after $((SECONDS - started)) s: ${PR_END[$pod]}"
        continue
      fi
      alive+=("${PR_PID[$pod]}")
      [[ $end == exits ]] && running=1
    done < <(pr_pods)
    # Every pod that ends by itself has ended (the launcher): the controller
    # deletes the others still running (MPI Operator cleanPodPolicy Running or
    # All; JobSet once its successPolicy's target jobs are done).
    if ((running == 0 && deleted == 0)); then
      deleted=1
      while IFS=$'\t' read -r node pod host end role job ctrl; do
        [[ $end == deleted-when-done && -z "${PR_END[$pod]:-}" ]] || continue
        pr_delete_pod "$node"
        wait "${PR_PID[$pod]}" 2>/dev/null
        PR_END[$pod]="Deleted (by its controller once the job was done: MPI Operator cleanPodPolicy, JobSet successPolicy)"
        pr_log "pod $pod deleted after $((SECONDS - started)) s"
      done < <(pr_pods)
    fi
    # What outlives the launcher gets a moment to end, then is reported running.
    if ((running == 0)); then
      grep -q $'\toutlives-launcher\t' "$PR_PLAN/pods.tsv" && sleep 2
      break
    fi
    if ! pr_alive "$timer"; then
      pr_log "timeout: pods still running after ${timeout}s"
      break
    fi
    wait -n "${alive[@]}" "$timer" 2>/dev/null
  done
  kill "$timer" 2>/dev/null
  wait "$timer" 2>/dev/null
  pr_report
}

# pr_pod_routes NODE POD: what the IPAM gave the pod's data interfaces beyond
# their addresses (a SpiderIPPool's routes: the rail's range through its
# block's gateway), and ARP answered only by the interface that owns the
# address, as Spiderpool's coordinator and the node prep set it: every rail
# shares the runner's one data bridge.
pr_pod_routes() {
  local ns dst via dev name addr plane
  ns=$(rk_node "$1")
  while read -r name addr plane; do
    [[ $plane == data ]] || continue
    ip netns exec "$ns" sysctl -qw "net.ipv4.conf.$name.arp_ignore=1" "net.ipv4.conf.$name.arp_announce=2" || return 1
  done <"$PR_PLAN/pods/$2/netifs"
  [[ -f $PR_PLAN/pods/$2/routes ]] || return 0
  while read -r dst via dev; do
    ip -n "$ns" route add "$dst" via "$via" dev "$dev" || return 1
  done <"$PR_PLAN/pods/$2/routes"
}

# pr_leaf_router: the plan's gateways (the leaves' addresses in each node's
# block, subnetPlan exclusive) go on the data bridge, which then forwards
# between the blocks as the leaf switches route between them.
pr_leaf_router() {
  local br="${RK_PREFIX}br" gw
  [[ -s $PR_PLAN/gateways ]] || return 0
  ip netns exec "$br" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.send_redirects=0 \
    net.ipv4.conf.databr.send_redirects=0 || return 1
  while read -r gw; do ip -n "$br" addr add "$gw" dev databr || return 1; done <"$PR_PLAN/gateways"
}

# pr_railkit_image RAILKIT CACHE_DIR: the root of railkit's OCI image, as
# scripts/make-image.sh builds it (scripts/build-rootfs.sh: libc6's files,
# /etc/nsswitch.conf and /etc/hosts, no shell), from a dist-shaped tarball
# of this RAILKIT, so /usr/local/bin/railkit is the build's binary; pod.sh
# runs the containers of image PR_RAILKIT_IMAGE in it (IMAGE.roots), as the
# lower layer of an overlay: the tree itself is never written. A binary
# that links more than glibc (the sanitizer build's runtimes, or a build
# that still links a library the release binary loads with dlopen) gets
# those libraries too, each named in the log; the image's sanitizer settings
# get their suppressions file. The root is made once per binary (its
# sha256) and kept in CACHE_DIR (the build tree): a dozen cases use it, and
# building it took seconds each time (2.4 s of CPU; Intel Xeon, 2 cores, load
# 4, 2026-11-28).
pr_railkit_image() {
  local sum tree dist="$RK_WORK/dist" top=railkit-podrun-linux-x86_64 lib new
  sum=$(sha256sum "$1" | cut -c1-16) || return 1
  tree="$2/podrun-railkit-image-$sum"
  if [[ ! -f $tree/.complete ]]; then
    new=$(mktemp -d "$2/podrun-railkit-image.XXXXXX") && rmdir "$new" || return 1
    mkdir -p "$dist/$top/bin" && cp "$1" "$dist/$top/bin/railkit" &&
      tar -C "$dist" -cf - "$top" | gzip -1 >"$dist/railkit.tar.gz" || return 1
    bash "$PR_DIR/../../../scripts/build-rootfs.sh" "$dist/railkit.tar.gz" "$new" >/dev/null || return 1
    local added=()
    while read -r lib; do
      [[ -e $new$lib ]] && continue
      install -D -m 644 "$lib" "$new$lib" || return 1
      added+=("${lib##*/}")
    done < <(ldd "$1" | awk '$3 ~ /^\// { print $3 }')
    ((${#added[@]} == 0)) || echo "${added[*]}" >"$new/.added"
    if [[ -n ${RAILKIT_SANITIZER_BUILD:-} ]]; then
      cp "$PR_DIR/../../bench/lsan.supp" "$new/etc/railkit-lsan.supp" || return 1
    fi
    touch "$new/.complete" && rm -rf "$tree" && mv "$new" "$tree" || return 1
  fi
  [[ -f $tree/.added ]] && pr_log "railkit image: the binary also links $(cat "$tree/.added") (added beside glibc)"
  # The pods see the work directory, not the build tree (their /tmp, where a
  # CI clone's build tree lives, is private): a copy of links, where the
  # file system allows them, of files nothing writes.
  cp -al "$tree" "$RK_WORK/railkit-image" 2>/dev/null || cp -a "$tree" "$RK_WORK/railkit-image" || return 1
  echo "$PR_RAILKIT_IMAGE $RK_WORK/railkit-image" >"$RK_WORK/image.roots"
}

# pr_fake_rdma (with PR_FAKE_RDMA set): netns nodes have no RDMA device, so
# each pod with a data interface gets one in its plan (pods/POD/rdma: "DEV
# PORT NETDEV IPV4"), which pod.sh lays over /sys/class/infiniband, and the
# image gets the perftest stand-in (ib_write_bw_standin.py) as ib_write_bw.
# Device names differ from pod to pod (mlx5_<node+1>), as VFs and shared
# devices do on real nodes, so a render that pins one host's name fails.
# PR_FAKE_RDMA=same names every pod's device mlx5_0, as identical nodes
# sharing their PF's device (rdma-shared) see it. PR_FAKE_RDMA_MISSING=POD
# (or `last`, the plan's last pod) leaves that pod without one, as a node
# whose device did not come up.
pr_fake_rdma() {
  local node pod host end role job ctrl name addr plane missing=${PR_FAKE_RDMA_MISSING:-}
  [[ $missing == last ]] && missing=$(pr_pods | tail -n 1 | cut -f2)
  mkdir -p "$RK_WORK/image/usr/local/bin"
  install -m 755 "$PR_DIR/ib_write_bw_standin.py" "$RK_WORK/image/usr/local/bin/ib_write_bw" || return 1
  while IFS=$'\t' read -r node pod host end role job ctrl; do
    [[ $pod == "$missing" ]] && continue
    while read -r name addr plane; do
      [[ $plane == data ]] || continue
      local dev=mlx5_$((node + 1))
      [[ $PR_FAKE_RDMA == same ]] && dev=mlx5_0
      echo "$dev 1 $name ${addr%/*}" >"$PR_PLAN/pods/$pod/rdma"
      break
    done <"$PR_PLAN/pods/$pod/netifs"
  done < <(pr_pods)
}

# pr_report: each pod's end and containers' exit codes; the logs of pods that
# failed; leftovers. Returns 1 when any pod failed or did not end.
pr_report() {
  local node pod host end role job ctrl fail=0 kind name pids deleted=()
  while IFS=$'\t' read -r node pod host end role job ctrl; do
    local phase=${PR_END[$pod]:-Running} codes=""
    while read -r kind name; do
      codes+=" $name=$(cat "$PR_PLAN/pods/$pod/status/$name.rc" 2>/dev/null || echo -)"
    done <"$PR_PLAN/pods/$pod/containers"
    [[ $phase == Running && $end == outlives-launcher ]] &&
      phase="Running: still running after the launcher ended (the MPI Operator deletes workers only with cleanPodPolicy Running or All)"
    pr_log "pod $pod (host $host, node $node, $ctrl, role $role): $phase;$codes"
    case $phase in
      Succeeded) ;;
      Deleted*) deleted+=("$pod") ;;
      *)
        fail=1
        pr_logs "$pod"
        ;;
    esac
    pids=$(ip netns pids "$(rk_node "$node")")
    if [[ -n "$pids" ]]; then
      fail=1
      pr_log "FAIL: pod $pod still has processes after the job: $(ps -o comm= -p "${pids//$'\n'/,}" | tr '\n' ' ')"
    fi
  done < <(pr_pods)
  # A failed launcher's cause is often on the workers' side (sshd's log).
  if ((fail)); then
    for pod in "${deleted[@]}"; do pr_logs "$pod"; done
  fi
  while read -r line; do [[ -n $line ]] && pr_log "note: $line"; done <"$PR_PLAN/notes"
  return "$fail"
}

# pr_logs POD: the last lines of each of its containers' logs.
pr_logs() {
  local log
  for log in "$PR_PLAN/pods/$1/logs/"*.log; do
    [[ -f $log ]] || continue
    echo "---- $1 $(basename "$log" .log) (last 30 lines)"
    tail -n 30 "$log"
  done
}

# pr_report_log: the main container log of the pod that prints rank 0's table.
pr_report_log() {
  local pod
  pod=$(cat "$PR_PLAN/report")
  awk '$1 == "main" { print $2; exit }' "$PR_PLAN/pods/$pod/containers" |
    while read -r name; do echo "$PR_PLAN/pods/$pod/logs/$name.log"; done
}

# pr_node_of POD: its node number.
pr_node_of() { awk -F'\t' -v p="$1" '$2 == p { print $1 }' "$PR_PLAN/pods.tsv"; }

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -uo pipefail
  [[ $# -ge 3 ]] || { echo "usage: podrun.sh PODPLAN RAILKIT MANIFEST [TIMEOUT]" >&2; exit 2; }
  pr_run "$@"
  rc=$?
  [[ -n "$PR_PLAN" ]] && cat "$(pr_report_log)"
  # PODRUN_KEEP=DIR keeps the plan, the logs and the status files for a look after the run.
  [[ -n "${PODRUN_KEEP:-}" && -n "$PR_PLAN" ]] && cp -a "$PR_PLAN" "$PODRUN_KEEP"
  exit "$rc"
fi
