# shellcheck shell=bash
# Shared by the tests/ship drivers: a scratch folder, skip/fail, a private
# containerd (its own config, --root, --state and socket under the scratch
# folder), the railkit root file system from scripts/build-rootfs.sh, and
# commands run in containers with `ctr run --rootfs`. Every container,
# task, shim, mount and process a driver starts is stopped by the EXIT trap,
# on success and on failure alike.
#
# A driver sources this file after `set -euo pipefail`, then calls
# ship_init NAME and uses the functions below. skip exits 77 with one line.

SHIP_SOURCE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=""
CTRD_PID=""
CTRD_ADDR=""
CTR_NS=""
SHIP_BG_PIDS=()
SHIP_CONTAINERS=()
SHIP_IMAGES=()

skip() {
  echo "SKIP: $*" >&2
  exit 77
}
fail() {
  echo "FAIL: $*" >&2
  if [[ -n $WORK && -f $WORK/containerd.log ]]; then
    grep -E 'level=(error|fatal)' "$WORK/containerd.log" | tail -n 5 | sed 's/^/containerd: /' >&2
  fi
  exit 1
}
note() { echo "$*"; }

# ship_init NAME: the scratch folder and the cleanup trap.
ship_init() {
  [[ $(id -u) == 0 ]] || skip "needs root (containerd and runc run containers)"
  WORK=$(mktemp -d "/tmp/rk-ship-$1.XXXXXX")
  chmod 0755 "$WORK"
  CTR_NS="railkit-ship-$1-$$"
  export LC_ALL=C
  trap ship_cleanup EXIT
  # A signal (ctest's timeout, Ctrl-C) ends the script through exit, so the
  # EXIT trap still stops containerd and removes the scratch folder.
  trap 'exit 143' TERM
  trap 'exit 130' INT
  trap 'exit 129' HUP
}

ship_ctr() { ctr --address "$CTRD_ADDR" --namespace "$CTR_NS" "$@"; }

ship_cleanup() {
  local rc=$? id pid mnt i
  set +e
  for pid in "${SHIP_BG_PIDS[@]}"; do
    [[ -n $pid ]] && kill "$pid" 2>/dev/null
  done
  if [[ -n $CTRD_PID ]] && kill -0 "$CTRD_PID" 2>/dev/null; then
    for id in "${SHIP_CONTAINERS[@]}"; do
      ship_ctr task kill -s KILL "$id" >/dev/null 2>&1
      for ((i = 0; i < 30; i++)); do
        ship_ctr task delete "$id" >/dev/null 2>&1 && break
        ship_ctr task ls -q 2>/dev/null | grep -qxF "$id" || break
        sleep 0.1
      done
      ship_ctr container delete "$id" >/dev/null 2>&1
    done
    for id in "${SHIP_IMAGES[@]}"; do
      ship_ctr image rm "$id" >/dev/null 2>&1
    done
    kill -TERM "$CTRD_PID" 2>/dev/null
    for ((i = 0; i < 100; i++)); do
      kill -0 "$CTRD_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$CTRD_PID" 2>/dev/null
  fi
  for pid in "${SHIP_BG_PIDS[@]}"; do
    [[ -n $pid ]] && wait "$pid" 2>/dev/null
  done
  [[ -n $CTRD_PID ]] && wait "$CTRD_PID" 2>/dev/null
  if [[ -n $CTRD_ADDR ]]; then
    # Shims outlive their containerd by design: end the ones of this
    # containerd (their command line names its socket), by pid.
    for pid in $(pgrep -f -- "-address $CTRD_ADDR( |$)" 2>/dev/null); do
      kill -KILL "$pid" 2>/dev/null
    done
  fi
  if [[ -n $WORK ]]; then
    # Whatever is still mounted under the scratch folder (a snapshot, a
    # rootfs that runc left behind), deepest first.
    while read -r mnt; do
      umount -l "$mnt" 2>/dev/null
    done < <(awk -v w="$WORK" '$5 == w || index($5, w "/") == 1 {print $5}' /proc/self/mountinfo | sort -r)
    if [[ ${RAILKIT_SHIP_KEEP:-0} == 1 ]]; then
      echo "kept the scratch folder $WORK (RAILKIT_SHIP_KEEP=1)" >&2
    else
      rm -rf "$WORK"
    fi
  fi
  exit "$rc"
}

# ship_start_containerd: a containerd of this test's own, skipping (one line)
# where it cannot start. The CRI plugin is off: ctr needs none of it.
ship_start_containerd() {
  command -v containerd >/dev/null || skip "containerd not installed (scripts/install-deps.sh installs it)"
  command -v ctr >/dev/null || skip "ctr not installed (package containerd)"
  command -v runc >/dev/null || skip "runc not installed (package runc)"
  local d=$WORK/containerd i
  mkdir -p "$d"
  CTRD_ADDR=$d/containerd.sock
  cat >"$d/config.toml" <<EOF
version = 2
root = "$d/root"
state = "$d/state"
disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs"]

[grpc]
  address = "$CTRD_ADDR"

[ttrpc]
  address = "$CTRD_ADDR.ttrpc"

[debug]
  address = ""

[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = "$d/opt"
EOF
  containerd --config "$d/config.toml" >"$WORK/containerd.log" 2>&1 &
  CTRD_PID=$!
  for ((i = 0; i < 200; i++)); do
    if ! kill -0 "$CTRD_PID" 2>/dev/null; then
      skip "containerd could not start: $(grep -m1 -iE 'level=(fatal|error)|failed' "$WORK/containerd.log" || tail -n1 "$WORK/containerd.log")"
    fi
    ctr --address "$CTRD_ADDR" version >/dev/null 2>&1 && break
    sleep 0.1
  done
  ctr --address "$CTRD_ADDR" version >/dev/null 2>&1 ||
    skip "containerd did not answer on $CTRD_ADDR within 20 s: $(tail -n1 "$WORK/containerd.log")"
  note "containerd $(containerd --version | awk '{print $3}') started (pid $CTRD_PID, socket $CTRD_ADDR, namespace $CTR_NS)"
}

# ship_tarball [PATH]: the dist tarball to test, from the argument or
# RAILKIT_DIST_TARBALL; skips with one line when it is absent.
ship_tarball() {
  local t=${RAILKIT_DIST_TARBALL:-${1:-}}
  [[ -n $t ]] || skip "no dist tarball given (argument or RAILKIT_DIST_TARBALL; \`make dist\` writes dist/railkit-VERSION-linux-x86_64.tar.gz)"
  [[ -f $t ]] || skip "no dist tarball at $t (run \`make dist\` first)"
  DIST_TARBALL=$(cd "$(dirname "$t")" && pwd)/$(basename "$t")
}

# ship_build_rootfs DIR [--ca-certificates]: scripts/build-rootfs.sh over
# the dist tarball into DIR.
ship_build_rootfs() {
  local dir=$1
  shift
  bash "$SHIP_SOURCE_DIR/scripts/build-rootfs.sh" "$@" "$DIST_TARBALL" "$dir" >"$WORK/build-rootfs.log" 2>&1 ||
    fail "scripts/build-rootfs.sh $* $DIST_TARBALL $dir: $(cat "$WORK/build-rootfs.log")"
  ship_glibc_only "$dir"
}

# ship_debian_mirror: the Debian mirror this machine's apt uses (the first
# URIs: or deb line naming bookworm), deb.debian.org when none is found.
ship_debian_mirror() {
  local mirror
  mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk '/^URIs:/ {uri = $2} /^Suites:/ && / bookworm( |$)/ && uri != "" {print uri; exit}')
  [[ -n $mirror ]] ||
    mirror=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  echo "${mirror:-http://deb.debian.org/debian}"
}

# ship_debootstrap_base SUITE CACHE_DIR: a minbase root of Debian SUITE made
# with debootstrap from the machine's mirror, kept as CACHE_DIR/SUITE (made
# once per cache). Skips with one line where debootstrap is missing or the
# mirror does not serve SUITE.
ship_debootstrap_base() {
  local suite=$1 cache=$2 mirror base
  base=$cache/$suite
  [[ -f $base/.railkit-complete ]] && return 0
  command -v debootstrap >/dev/null || skip "debootstrap not installed (scripts/install-deps.sh installs it)"
  mirror=$(ship_debian_mirror)
  curl -fsI --max-time 30 "$mirror/dists/$suite/Release" >/dev/null ||
    skip "the package mirror $mirror does not serve $suite ($mirror/dists/$suite/Release): no $suite root can be made with debootstrap"
  mkdir -p "$cache"
  rm -rf "$base.partial"
  debootstrap --variant=minbase "$suite" "$base.partial" "$mirror" >"$WORK/debootstrap.log" 2>&1 ||
    fail "debootstrap --variant=minbase $suite from $mirror: $(tail -n 5 "$WORK/debootstrap.log")"
  touch "$base.partial/.railkit-complete"
  mv "$base.partial" "$base"
  note "debootstrap: a minbase $suite root from $mirror in $base ($(du -sh "$base" | cut -f1))"
}

# ship_debootstrap_rootfs SUITE CACHE_DIR DIR: a copy of that root in DIR with
# the dist tarball unpacked under /usr/local, as build-rootfs.sh does.
ship_debootstrap_rootfs() {
  local suite=$1 cache=$2 dir=$3
  ship_debootstrap_base "$suite" "$cache"
  mkdir -p "$dir"
  cp -a "$cache/$suite/." "$dir/"
  tar -xzf "$DIST_TARBALL" -C "$dir/usr/local" --strip-components=1 ||
    fail "unpacking $DIST_TARBALL under $dir/usr/local failed"
}

# ship_glibc_only DIR: bin/railkit in the root file system DIR needs no
# library outside libc6 (ldd on the host, whose glibc is the one copied in);
# else the test fails naming them, before a container says less clearly why.
ship_glibc_only() {
  local dir=$1 bin=$1/usr/local/bin/railkit lib real glibc_dir extra=()
  glibc_dir=$(readlink -f /lib/x86_64-linux-gnu)
  while read -r lib; do
    [[ -n $lib ]] || continue
    real=$(readlink -f "$lib")
    [[ $(dirname "$real") == "$glibc_dir" && -e $dir$glibc_dir/$(basename "$lib") ]] && continue
    extra+=("$lib")
  done < <(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $3}')
  ((${#extra[@]} == 0)) ||
    fail "bin/railkit of $DIST_TARBALL needs libraries that are not glibc's: ${extra[*]} (expected a binary that needs only libc6)"
}

# ship_id WHAT: a container id unique to this run.
ship_id() { echo "rk-ship-$1-$$-$RANDOM"; }

# ship_run OUT ERR ROOTFS [ctr run flags...] -- CMD ARGS...: runs CMD in a
# new container on ROOTFS (ctr run --rm), stdout to OUT and stderr to ERR;
# returns the command's exit status.
ship_run() {
  local out=$1 err=$2 rootfs=$3 id flags=() rc=0
  shift 3
  while [[ $# -gt 0 && $1 != -- ]]; do
    flags+=("$1")
    shift
  done
  [[ ${1:-} == -- ]] || fail "ship_run: no -- before the command"
  shift
  id=$(ship_id run)
  SHIP_CONTAINERS+=("$id")
  ship_ctr run --rm "${flags[@]}" --rootfs "$rootfs" "$id" "$@" >"$out" 2>"$err" || rc=$?
  return "$rc"
}

# ship_wait_line FILE REGEX TENTHS PID: prints the first line of FILE that
# matches REGEX (sed -E), waiting up to TENTHS tenths of a second; 1 when PID
# exits first, 2 on timeout.
ship_wait_line() {
  local file=$1 re=$2 tenths=$3 pid=$4 line i
  for ((i = 0; i < tenths; i++)); do
    line=$(grep -m1 -E "$re" "$file" 2>/dev/null || true)
    if [[ -n $line ]]; then
      printf '%s\n' "$line"
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 2
}

# json_ok FILE FILTER: FILE is a non-empty JSON document for which FILTER
# is true (jq -e alone passes on an empty file).
json_ok() { [[ -s $1 ]] && jq -e "$2" "$1" >/dev/null 2>&1; }

# expect_grep FILE WHAT PATTERN: fails unless FILE has a line matching the
# extended regex PATTERN, saying WHAT was expected and what FILE held.
expect_grep() {
  local file=$1 what=$2 pattern=$3
  grep -qE -- "$pattern" "$file" ||
    fail "$what: expected a line matching /$pattern/, found: $(head -c 600 "$file")"
}
expect_no_grep() {
  local file=$1 what=$2 pattern=$3
  if grep -qE -- "$pattern" "$file"; then
    fail "$what: expected no line matching /$pattern/, found: $(grep -m3 -E -- "$pattern" "$file")"
  fi
}

# ship_cap_mask CAP_NAME...: the CapEff mask (16 hex digits, as
# /proc/PID/status and inspect --json print it) of these capabilities.
ship_cap_mask() {
  local names=(CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP
    LINUX_IMMUTABLE NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER
    SYS_MODULE SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE
    SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP
    MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ PERFMON BPF
    CHECKPOINT_RESTORE)
  local mask=0 cap i found
  for cap in "$@"; do
    found=0
    for i in "${!names[@]}"; do
      if [[ CAP_${names[$i]} == "$cap" ]]; then
        mask=$((mask | (1 << i)))
        found=1
      fi
    done
    ((found)) || fail "ship_cap_mask: unknown capability $cap"
  done
  printf '%016x\n' "$mask"
}

# ship_stop_exporter ID PID WHAT: SIGTERM to the container's exporter (PID
# is the `ctr run` that holds it); it must end within 10 s with 143, or 0:
# as a container's pid 1 the signal railkit re-raises to end "as the signal
# would" is ignored by the kernel (init is immune to default actions), so
# the exporter then returns its own status, 0 after a clean stop.
ship_stop_exporter() {
  local id=$1 pid=$2 what=$3 i rc=0
  ship_ctr task kill -s TERM "$id" >/dev/null || fail "$what: ctr task kill -s TERM $id failed"
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && fail "$what: still running 10 s after SIGTERM"
  wait "$pid" || rc=$?
  for i in "${!SHIP_BG_PIDS[@]}"; do
    [[ ${SHIP_BG_PIDS[$i]} == "$pid" ]] && SHIP_BG_PIDS[i]=""
  done
  [[ $rc == 143 || $rc == 0 ]] || fail "$what: exit status $rc after SIGTERM, expected 143 (or 0 as pid 1)"
}
