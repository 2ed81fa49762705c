#!/usr/bin/env bash
# Makes the minbase Debian root that ship_container_bullseye runs the tarball
# in (debootstrap, once per build tree), as a test of its own: it downloads
# and unpacks for a minute or two, and holds no containerd lock meanwhile.
# Usage: debootstrap_test.sh SUITE CACHE_DIR
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
source "$(dirname "$0")/lib.sh"

[[ $# == 2 ]] || { echo "usage: $0 SUITE CACHE_DIR" >&2; exit 2; }
ship_init "debootstrap-$1"
ship_debootstrap_base "$1" "$2"
[[ -x $2/$1/bin/sh && -f $2/$1/var/lib/dpkg/status ]] ||
  fail "$2/$1: expected a Debian root (bin/sh, var/lib/dpkg/status), found: $(ls "$2/$1" | head -c 300)"
note "ok: Debian $1 root in $2/$1, libc6 $(dpkg-query --admindir="$2/$1/var/lib/dpkg" -W -f='${Version}' libc6)"
