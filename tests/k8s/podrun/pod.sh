#!/usr/bin/env bash
# The kubelet's part of the pod runner, run inside one pod's namespaces
# (podrun.sh starts it under `ip netns exec NODE unshare --uts --mount`).
#   pod.sh pod PODDIR RAILKIT IMAGE
#     names the host (UTS), gives the pod a private /run, /tmp and /dev/shm
#     (and, with a planned RDMA device, /sys/class/infiniband and
#     /dev/infiniband/uverbs0), an unlimited memlock (node-prep's) where
#     the machine allows it,
#     runs init containers in order, starts native sidecars and the main
#     containers, waits for the main ones, then stops the sidecars. Writes
#     PODDIR/status/NAME.rc and PODDIR/status/phase, logs to PODDIR/logs/NAME.log.
#   pod.sh container PODDIR NAME RAILKIT IMAGE
#     (in its own mount namespace) lays the container's view over the host's:
#     /etc, /root and /usr/local become overlays on a private tmpfs holding
#     /etc/hosts, the image's files (IMAGE: the sshd host keys the test made),
#     the volumes' directories and files (Secrets, ConfigMaps) and
#     /usr/local/bin/railkit (the build tree's), then execs argv with exactly
#     the image's env (IMAGE.env) and the planned env. The host's files are
#     never written.
set -uo pipefail
mode=$1 poddir=$2

overlay() {
  local dir=$1 scratch=$2
  mkdir -p "$scratch/upper$dir" "$scratch/work$dir"
  mount -t overlay podrun -o "lowerdir=$dir,upperdir=$scratch/upper$dir,workdir=$scratch/work$dir" "$dir"
}

# Only paths under the overlaid trees can be given to a container without
# touching the host.
writable() {
  case $1 in /etc/* | /root/* | /usr/local/* | /run/* | /tmp/* | /dev/shm/*) return 0 ;; esac
  echo "pod runner: cannot place $1 in the container (only /etc, /root, /usr/local, /run, /tmp, /dev/shm)" >&2
  return 1
}

if [[ $mode == container ]]; then
  name=$3 rk=$4 image=$5 c="$poddir/c/$3"
  mkdir -p "$c/ovl"
  mount -t tmpfs podrun "$c/ovl" || exit 126
  for dir in /etc /root /usr/local; do overlay "$dir" "$c/ovl" || exit 126; done
  cp "$poddir/hosts" /etc/hosts && cp "$poddir/hostname" /etc/hostname || exit 126
  [[ -d $image ]] && cp -a "$image/." /
  mkdir -p /usr/local/bin && ln -sf "$rk" /usr/local/bin/railkit
  while read -r m access path; do
    writable "$path" || exit 126
    rm -rf "$path" && mkdir -p "$path" && chmod "$m" "$path" || exit 126
  done <"$c/dirs"
  while read -r m path; do
    writable "$path" || exit 126
    install -D -m "$m" "$c/root$path" "$path" || exit 126
  done <"$c/files"
  # Secret and ConfigMap volumes are mounted read-only.
  while read -r m access path; do
    [[ $access == ro ]] || continue
    mount --bind "$path" "$path" && mount -o remount,bind,ro "$path" || exit 126
  done <"$c/dirs"
  mapfile -d '' -t env <"$c/env"
  mapfile -d '' -t argv <"$c/argv"
  # The image's own ENV lines (IMAGE.env beside it, one KEY=VALUE a line),
  # which the pod's env overrides, as a container runtime merges them.
  image_env=()
  [[ -f $image.env ]] && mapfile -t image_env <"$image.env"
  cd / || exit 126
  exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    HOSTNAME="$(hostname)" "${image_env[@]}" "${env[@]}" "${argv[@]}"
fi

rk=$3 image=$4
self="$(cd "$(dirname "$0")" && pwd)/pod.sh"
mkdir -p "$poddir/status" "$poddir/logs"
hostname "$(cat "$poddir/hostname")"
# The pod's device node for its planned RDMA device (below), as the device
# plugin or the VF's CNI adds /dev/infiniband/uverbsN to a real pod: /dev
# becomes an overlay only this pod sees, with a fresh devpts (the overlay
# hides the host's submounts; /dev/shm is mounted next).
if [[ -s $poddir/rdma ]]; then
  mkdir -p "$poddir/c/dev" && mount -t tmpfs podrun "$poddir/c/dev" &&
    mkdir -p "$poddir/c/dev/upper" "$poddir/c/dev/work" &&
    mount -t overlay podrun -o "lowerdir=/dev,upperdir=$poddir/c/dev/upper,workdir=$poddir/c/dev/work" /dev &&
    mkdir -p /dev/pts /dev/shm /dev/infiniband && mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts &&
    mknod -m 666 /dev/infiniband/uverbs0 c 231 192 ||
    { echo Failed >"$poddir/status/phase"; exit 1; }
fi
# Containers get an unlimited memlock where this machine lets the runner
# raise it (CAP_SYS_RESOURCE), as render's node-prep gives them (the runtime
# spec's RLIMIT_MEMLOCK); elsewhere they keep the machine's limit.
ulimit -l unlimited 2>/dev/null
mount -t tmpfs -o mode=755 podrun /run && mount -t tmpfs -o mode=1777 podrun /tmp &&
  mount -t tmpfs -o mode=1777 podrun /dev/shm || { echo Failed >"$poddir/status/phase"; exit 1; }
# The pod's RDMA device, when the runner planned one (pods/POD/rdma: "DEV
# PORT NETDEV IPV4"): a RoCE port whose GIDs 2 (v1) and 3 (v2) hold NETDEV's
# IPv4 address, in an overlay of /sys/class that only this pod sees.
if [[ -s $poddir/rdma ]]; then
  mkdir -p "$poddir/c/sys" && mount -t tmpfs podrun "$poddir/c/sys" &&
    mkdir -p "$poddir/c/sys/upper" "$poddir/c/sys/work" &&
    mount -t overlay podrun -o "lowerdir=/sys/class,upperdir=$poddir/c/sys/upper,workdir=$poddir/c/sys/work" /sys/class ||
    { echo Failed >"$poddir/status/phase"; exit 1; }
  read -r dev port netdev ipv4 <"$poddir/rdma"
  IFS=. read -r a b c d <<<"$ipv4"
  gid=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
  p=/sys/class/infiniband/$dev/ports/$port
  mkdir -p "$p/gids" "$p/gid_attrs/types" "$p/gid_attrs/ndevs"
  echo "4: ACTIVE" >"$p/state" && echo "5: LinkUp" >"$p/phys_state" && echo Ethernet >"$p/link_layer"
  echo "100 Gb/sec (4X EDR)" >"$p/rate" && echo "1: CA" >"/sys/class/infiniband/$dev/node_type"
  for k in 2 3; do
    echo "$gid" >"$p/gids/$k" && echo "$netdev" >"$p/gid_attrs/ndevs/$k"
  done
  echo "IB/RoCE v1" >"$p/gid_attrs/types/2" && echo "RoCE v2" >"$p/gid_attrs/types/3"
fi
echo Running >"$poddir/status/phase"

# In a subshell (`&` or `( )`), exec makes the subshell the container's first
# process, so its pid is the container's to wait for or stop.
start() {
  exec unshare --mount --propagation private bash "$self" container "$poddir" "$1" "$rk" "$image" \
    >"$poddir/logs/$1.log" 2>&1 </dev/null
}

mains=() names=() sidecars=() failed=0
while read -r kind name; do
  case $kind in
    init)
      (start "$name")
      rc=$?
      echo "$rc" >"$poddir/status/$name.rc"
      if ((rc != 0)); then echo Failed >"$poddir/status/phase"; exit 1; fi
      ;;
    sidecar) start "$name" & sidecars+=($!) ;;
    main) start "$name" & mains+=($!) names+=("$name") ;;
  esac
done <"$poddir/containers"
for k in "${!mains[@]}"; do
  wait "${mains[k]}"
  rc=$?
  echo "$rc" >"$poddir/status/${names[k]}.rc"
  ((rc != 0)) && failed=1
done
# The main containers have ended: the kubelet stops the native sidecars.
for pid in "${sidecars[@]}"; do kill -TERM "$pid" 2>/dev/null; done
wait
if ((failed)); then echo Failed >"$poddir/status/phase"; else echo Succeeded >"$poddir/status/phase"; fi
