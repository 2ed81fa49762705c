#!/usr/bin/env bash
# The kubelet's part of the pod runner, run inside one pod's namespaces
# (podrun.sh starts it under `ip netns exec NODE unshare --uts --mount`).
#   pod.sh pod PODDIR RAILKIT IMAGE [NODEROOT]
#     names the host (UTS), gives the pod a private /run, /tmp and /dev/shm
#     (and, with a planned RDMA device, /sys/class/infiniband and
#     /dev/infiniband/uverbs0), an unlimited memlock (node-prep's) where
#     the machine allows it,
#     runs init containers in order, starts native sidecars and the main
#     containers, waits for the main ones, then stops the sidecars (SIGTERM
#     to each of their processes, SIGKILL after a grace period). Writes
#     PODDIR/status/NAME.rc, PODDIR/status/NAME.stop (how a sidecar ended),
#     PODDIR/status/NAME.environ (a main container's process name, then the
#     environment it last ran with: what the test binary it exec'd saw) and
#     PODDIR/status/phase, logs to PODDIR/logs/NAME.log.
#   pod.sh container PODDIR NAME RAILKIT IMAGE [NODEROOT]
#     (in its own mount namespace) lays the container's view over the host's:
#     /etc, /root and /usr/local become overlays on a private tmpfs holding
#     /etc/hosts, the image's files (IMAGE: the sshd host keys the test made),
#     the volumes' directories and files (Secrets, ConfigMaps), hostPath
#     volumes (read under NODEROOT, the fake node's root) and
#     /usr/local/bin/railkit (the build tree's; with RAILKIT "-" none, and
#     the container must find no railkit on its PATH), then execs argv with
#     exactly the image's env (IMAGE.env) and the planned env. The host's
#     files are never written: a path outside those trees (an image's /fts,
#     a mount at /hostsysfs, /dev/aperture_devices or an emptyDir's
#     /opt/railkit) is made in a new root built of binds of the host's
#     entries, and the container runs chrooted there. A container whose
#     image IMAGE.roots names ("REF DIR" lines) runs in DIR alone instead:
#     an overlay of it with the pod's /proc and /dev, nothing of the
#     machine's, read-only with readOnlyRootFilesystem, as the planned user.
#     emptyDir volumes are one directory per pod (PODDIR/vol/NAME) bound in
#     every container that mounts them, read-only where the mount says so.
set -uo pipefail
mode=$1 poddir=$2
# PODRUN_TRACE=FILE: every command of the pod runner, with its time, appended
# to FILE.PID (where a slow pod spends its time). FILE must be outside the
# pod's private trees (/tmp, /run): /var/tmp/... will do.
if [[ -n ${PODRUN_TRACE:-} ]] && exec {trace_fd}>>"$PODRUN_TRACE.$$"; then
  BASH_XTRACEFD=$trace_fd PS4='+ $EPOCHREALTIME ${BASH_SOURCE[0]##*/}:$LINENO '
  set -x
fi

overlay() {
  local dir=$1 scratch=$2
  mkdir -p "$scratch/upper$dir" "$scratch/work$dir"
  mount -t overlay podrun -o "lowerdir=$dir,upperdir=$scratch/upper$dir,workdir=$scratch/work$dir" "$dir"
}

# Paths under the trees each container gets privately (overlays, tmpfs).
in_trees() {
  case $1 in /etc/* | /root/* | /usr/local/* | /run/* | /tmp/* | /dev/shm/*) return 0 ;; esac
  return 1
}

# A container may be given a path in those trees or under one of `extras`
# (made in its new root, below); nothing else, so the host is never written.
writable() {
  local e
  [[ -n $own ]] && return 0  # a root of the image's own, all on an overlay
  in_trees "$1" && return 0
  for e in "${extras[@]}"; do [[ $1 == "$e" || $1 == "$e"/* ]] && return 0; done
  echo "pod runner: cannot place $1 in the container (only /etc, /root, /usr/local, /run, /tmp, /dev/shm)" >&2
  return 1
}

# graft SRC DST: DST, a fresh tmpfs, mirrors SRC entry by entry (directories
# bound recursively, files and device nodes bound, symlinks copied), except
# that the directories in `grafted` are mirrored the same way one level
# down: a new entry can then be made in DST without writing SRC.
graft() {
  local src=${1%/} dst=$2 e name g
  mount -t tmpfs -o mode=755 podrun "$dst" || return 1
  for e in "$src"/* "$src"/.[!.]*; do
    [[ -e $e || -L $e ]] || continue
    name=${e##*/}
    g=0
    for x in "${grafted[@]}"; do [[ $x == "$e" ]] && g=1; done
    if [[ -L $e ]]; then
      cp -P "$e" "$dst/$name"
    elif ((g)); then
      mkdir "$dst/$name" && graft "$e" "$dst/$name"
    elif [[ -d $e ]]; then
      mkdir "$dst/$name" && mount --rbind "$e" "$dst/$name"
    else
      touch "$dst/$name" && mount --bind "$e" "$dst/$name"
    fi || return 1
  done
}

if [[ $mode == container ]]; then
  name=$3 rk=$4 image=$5 noderoot=${6:-} c="$poddir/c/$3"
  mkdir -p "$c/ovl"
  mount -t tmpfs podrun "$c/ovl" || exit 126
  # The image's own tree, when the runner has one for the container's image.
  own="" ref=$(cat "$c/image" 2>/dev/null)
  if [[ -n $ref && -f $image.roots ]]; then
    while read -r r dir; do [[ $r == "$ref" ]] && own=$dir; done <"$image.roots"
  fi
  user="" rofs=0
  while read -r key a b; do
    case $key in user) user="$a:$b" ;; read-only-root) rofs=1 ;; esac
  done < <(cat "$c/security" 2>/dev/null)
  [[ -z $own ]] && for dir in /etc /root /usr/local; do overlay "$dir" "$c/ovl" || exit 126; done
  # What lies outside the private trees: the image's directories, the
  # hostPath and emptyDir mount points. Each such path gets a new root whose
  # directories on the way to it are grafted, so it is made on a tmpfs.
  extras=() grafted=() root=""
  if [[ -n $own ]]; then
    root="$c/ovl/root"
    mkdir -p "$root" "$c/ovl/own-upper" "$c/ovl/own-work" &&
      mount -t overlay podrun -o "lowerdir=$own,upperdir=$c/ovl/own-upper,workdir=$c/ovl/own-work" "$root" &&
      mkdir -p "$root/etc" "$root/proc" "$root/dev" && mount --rbind /proc "$root/proc" &&
      mount --rbind /dev "$root/dev" || exit 126
  elif [[ -d $image ]]; then
    while read -r f; do
      f=/${f#./}
      in_trees "$f" && continue
      # A file of the host's there would be written through its bind.
      [[ -e $f || -L $f ]] && { echo "pod runner: the image's $f is also the host's" >&2; exit 126; }
      extras+=("$(dirname "$f")")
    done < <(cd "$image" && find . -mindepth 1 \( -type f -o -type l \))
  fi
  if [[ -z $own ]]; then
    while read -r access host path; do in_trees "$path/" || extras+=("$path"); done <"$c/binds"
    while read -r access vol path; do in_trees "$path/" || extras+=("$path"); done <"$c/volumes"
  fi
  for e in "${extras[@]}"; do
    a=$e
    while [[ ! -d $a || -L $a ]]; do a=$(dirname "$a"); done
    while [[ $a != / ]]; do grafted+=("$a") a=$(dirname "$a"); done
  done
  if ((${#extras[@]})); then
    root="$c/ovl/root"
    mkdir -p "$root" && graft / "$root" || exit 126
    for e in "${extras[@]}"; do mkdir -p "$root$e" || exit 126; done
  fi
  cp "$poddir/hosts" "$root/etc/hosts" && cp "$poddir/hostname" "$root/etc/hostname" || exit 126
  if [[ -z $own ]]; then
    [[ -d $image ]] && cp -a "$image/." "$root/"
    # An image without railkit (RAILKIT "-"): the machine's own
    # /usr/local/bin/railkit, if any, is hidden in the overlay too.
    if [[ $rk == - ]]; then
      rm -f "$root/usr/local/bin/railkit"
    else
      mkdir -p "$root/usr/local/bin" && ln -sf "$rk" "$root/usr/local/bin/railkit"
    fi
  fi
  while read -r m access path; do
    writable "$path" || exit 126
    rm -rf "$root$path" && mkdir -p "$root$path" && chmod "$m" "$root$path" || exit 126
  done <"$c/dirs"
  while read -r m path; do
    writable "$path" || exit 126
    install -D -m "$m" "$c/root$path" "$root$path" || exit 126
  done <"$c/files"
  # Secret and ConfigMap volumes are mounted read-only.
  while read -r m access path; do
    [[ $access == ro ]] || continue
    mount --bind "$root$path" "$root$path" && mount -o remount,bind,ro "$root$path" || exit 126
  done <"$c/dirs"
  # hostPath volumes, from the fake node's root; a missing directory is made
  # there, as the runtime makes a missing hostPath directory on the node.
  while read -r access host path; do
    [[ -n $noderoot ]] || { echo "pod runner: hostPath $host: no fake node root" >&2; exit 126; }
    writable "$path/" || exit 126
    mkdir -p "$noderoot$host" "$root$path" && mount --bind "$noderoot$host" "$root$path" || exit 126
    if [[ $access == ro ]]; then mount -o remount,bind,ro "$root$path" || exit 126; fi
  done <"$c/binds"
  # emptyDir volumes: the pod's directory (mode 0777, as the kubelet makes
  # it), shared by the containers that mount it.
  while read -r access vol path; do
    writable "$path/" || exit 126
    mkdir -p "$poddir/vol/$vol" && chmod 777 "$poddir/vol/$vol" && mkdir -p "$root$path" &&
      mount --bind "$poddir/vol/$vol" "$root$path" || exit 126
    if [[ $access == ro ]]; then mount -o remount,bind,ro "$root$path" || exit 126; fi
  done <"$c/volumes"
  if [[ -n $own ]] && ((rofs)); then mount -o remount,ro "$root" || exit 126; fi
  mapfile -d '' -t env <"$c/env"
  mapfile -d '' -t argv <"$c/argv"
  # The image's own ENV lines (IMAGE.env beside it, one KEY=VALUE a line),
  # which the pod's env overrides, as a container runtime merges them.
  image_env=()
  [[ -f $image.env ]] && mapfile -t image_env <"$image.env"
  cd / || exit 126
  path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  if [[ -n $own ]]; then
    # The image may have no env (railkit's has no shell either): env runs
    # here, chroot (the machine's) enters the image's root as the user.
    exec env -i PATH=$path HOME=/root HOSTNAME="$(hostname)" "${image_env[@]}" "${env[@]}" \
      "$(command -v chroot)" ${user:+--userspec=$user} "$root" "${argv[@]}"
  fi
  chroot=()
  [[ -n $root || -n $user ]] && chroot=(chroot ${user:+--userspec=$user} "${root:-/}")
  if [[ $rk == - ]]; then
    found=$("${chroot[@]}" env -i PATH=$path sh -c 'command -v railkit' 2>/dev/null)
    [[ -z $found ]] || { echo "pod runner: the image has railkit ($found), though this run gives it none" >&2; exit 126; }
  fi
  exec "${chroot[@]}" env -i PATH=$path HOME=/root \
    HOSTNAME="$(hostname)" "${image_env[@]}" "${env[@]}" "${argv[@]}"
fi

rk=$3 image=$4 noderoot=${5:-}
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

# pause SECONDS: sleep without a process of its own (a read that times out
# on a pipe nobody writes): the pollers below sleep often, a fork each time
# cost CPU on a busy machine, and a killed watcher leaves no sleep behind.
exec {pause_fd}<> <(:)
pause() { read -rt "$1" -u "$pause_fd" _; }

# In a subshell (`&` or `( )`), exec makes the subshell the container's first
# process, so its pid is the container's to wait for or stop.
start() {
  exec unshare --mount --propagation private bash "$self" container "$poddir" "$1" "$rk" "$image" "$noderoot" \
    >"$poddir/logs/$1.log" 2>&1 </dev/null {pause_fd}<&-
}

# The processes in mount namespace $1 (each container has its own, named by
# its first process's /proc/PID/ns/mnt; it stands in for its cgroup).
# One find reads every process's link: a readlink per process was a fork
# each, a quarter of a second per listing with 100 processes (Intel Xeon,
# 2 cores, load 4, 2026-11-28) and seconds
# per sidecar stop on a loaded machine. (The brackets of "mnt:[N]" are
# escaped: -lname takes a pattern.)
# The listing is a command substitution, which bash waits for, not a process
# substitution, which it does not: the find of the last listing outlived the
# pod and the runner's leftover check in the node's namespace named it ("pod
# rk-workers-0-0 still has processes after the job: find", a clean-clone run
# with stress-ng beside it).
container_pids() {
  local ns=$1 dir listing
  [[ -n $ns ]] || return 0
  ns=${ns//[/\\[} ns=${ns//]/\\]}
  listing=$(find /proc/[0-9]*/ns/mnt -maxdepth 0 -lname "$ns" -printf '%h\n' 2>/dev/null)
  while read -r dir; do
    [[ -n $dir ]] || continue
    dir=${dir#/proc/}
    echo "${dir%%/*}"
  done <<<"$listing"
}

# stop PID NAME: the kubelet stopping a native sidecar once the main
# containers have ended: SIGTERM, then SIGKILL after the grace period
# (PODRUN_GRACE_S, 10 s). Without a PID namespace the container's shell is
# no PID 1 that would pass the signal on, so every process of the container
# gets it. status/NAME.stop says which ended it.
stop() {
  local pid=$1 name=$2 ns pids t rc how="SIGTERM"
  ns=$(readlink "/proc/$pid/ns/mnt" 2>/dev/null)
  pids=$(container_pids "$ns")
  [[ -n $pids ]] && kill -TERM $pids 2>/dev/null
  for ((t = 0; t < ${PODRUN_GRACE_S:-10} * 5; t++)); do
    [[ -z $(container_pids "$ns") ]] && break
    pause 0.2
  done
  # Again until none is left: a shell may fork a child between the listing
  # and the signal, and that child would outlive it.
  for ((t = 0; t < 50; t++)); do
    pids=$(container_pids "$ns")
    [[ -z $pids ]] && break
    how="SIGKILL after the ${PODRUN_GRACE_S:-10} s grace period"
    kill -KILL $pids 2>/dev/null
    pause 0.1
  done
  wait "$pid"
  rc=$?
  echo "exit $rc after $how" >"$poddir/status/$name.stop"
}

# watch_env PID NAME: what the main container's process runs with, read
# while it lives (the test binary its shell exec'd keeps the pid):
# status/NAME.environ, its name on the first line, then its environment, one
# KEY=VALUE a line. Polled often while the pid is still a shell or the
# runner's exec chain (a short test must not end unseen), then twice a second.
# A record is kept only while the process is known to be alive: once it has
# exited (a zombie until pod.sh waits for it, with its comm still readable)
# the kernel has dropped its memory, /proc/PID/environ reads empty, and an
# empty read must not replace what was seen while it ran. Every container
# runs with PATH set, so a live one never has an empty environment.
watch_env() {
  local pid=$1 out="$poddir/status/$2.environ" comm env
  while read -r comm 2>/dev/null <"/proc/$pid/comm"; do
    case $comm in
      bash | sh | dash | unshare | chroot | env) pause 0.05 ;;
      *)
        env=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null)
        if [[ $env == *PATH=* ]]; then
          printf '%s\n%s\n' "$comm" "$env" >"$out.new" && mv "$out.new" "$out"
        fi
        pause 0.5
        ;;
    esac
  done
  rm -f "$out.new"
}

mains=() names=() sidecars=() sidecar_names=() watchers=() failed=0
while read -r kind name; do
  case $kind in
    init)
      (start "$name")
      rc=$?
      echo "$rc" >"$poddir/status/$name.rc"
      if ((rc != 0)); then echo Failed >"$poddir/status/phase"; exit 1; fi
      ;;
    sidecar) start "$name" & sidecars+=($!) sidecar_names+=("$name") ;;
    main)
      start "$name" &
      mains+=($!) names+=("$name")
      watch_env $! "$name" &
      watchers+=($!)
      ;;
  esac
done <"$poddir/containers"
for k in "${!mains[@]}"; do
  wait "${mains[k]}"
  rc=$?
  echo "$rc" >"$poddir/status/${names[k]}.rc"
  ((rc != 0)) && failed=1
done
# Nothing is left to watch: the watchers would only notice at their next poll.
((${#watchers[@]})) && kill "${watchers[@]}" 2>/dev/null
rm -f "$poddir"/status/*.environ.new
# The main containers have ended: the kubelet stops the native sidecars.
for k in "${!sidecars[@]}"; do stop "${sidecars[k]}" "${sidecar_names[k]}"; done
wait
if ((failed)); then echo Failed >"$poddir/status/phase"; else echo Succeeded >"$poddir/status/phase"; fi
