#!/usr/bin/env bash
# Assembles a container root file system for railkit from what this Debian
# machine already has, nothing downloaded:
#   - every file of the libc6 package (`dpkg-query -L libc6`: the loader,
#     libc, libm, the NSS modules, gconv; its copyright under /usr/share/doc),
#     on a merged-/usr layout (bin, sbin, lib, lib64 link into usr/);
#   - /etc/nsswitch.conf and /etc/hosts, so name lookups work without
#     /etc/passwd, /etc/group or a resolver configuration (no user database
#     is shipped: railkit looks up no user), and /tmp (mode 1777);
#   - with --ca-certificates, the CA bundle of Debian's ca-certificates
#     package (/etc/ssl/certs/ca-certificates.crt) and its copyright;
#   - the dist tarball (railkit-VERSION-linux-x86_64.tar.gz, one top
#     directory holding bin/ and share/) unpacked under /usr/local, so the
#     binary is /usr/local/bin/railkit, the docs /usr/local/share/doc/railkit
#     and the examples /usr/local/share/railkit/examples.
# Nothing else: no shell, no coreutils. The container tests (tests/ship) and
# the OCI image (scripts/make-image.sh, packaging/Dockerfile) all use this
# script, so what is tested is what ships.
#
# Usage: build-rootfs.sh [--ca-certificates] DIST_TARBALL OUT_DIR
# OUT_DIR must not exist or be empty. Run as root (files keep root owners).
set -euo pipefail

usage() {
  echo "usage: $0 [--ca-certificates] DIST_TARBALL OUT_DIR" >&2
  exit 2
}
die() {
  echo "build-rootfs: $*" >&2
  exit 1
}

ca=0
if [[ ${1:-} == --ca-certificates ]]; then
  ca=1
  shift
fi
[[ $# == 2 ]] || usage
tarball=$1
out=$2

[[ -f $tarball ]] || die "no dist tarball at $tarball"
dpkg-query -W -f='${Status}' libc6 2>/dev/null | grep -q "install ok installed" ||
  die "the Debian package libc6 is not installed"
if [[ -e $out ]]; then
  [[ -d $out && -z "$(ls -A "$out")" ]] || die "$out exists and is not an empty directory"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Merged /usr, as Debian 12 lays it out: the package lists /lib/... and
# /lib64/..., which land under usr/ through these links.
mkdir -p "$out/usr/bin" "$out/usr/sbin" "$out/usr/lib" "$out/usr/lib64"
ln -s usr/bin "$out/bin"
ln -s usr/sbin "$out/sbin"
ln -s usr/lib "$out/lib"
ln -s usr/lib64 "$out/lib64"

# Copies one host path into the root under its merged-/usr name (the parent
# directories resolved on the host, which is merged-/usr too; the last
# component kept as it is, so the package's own symlinks stay symlinks).
copied=0
missing=0
copy_path() {
  local path=$1 parent name
  if [[ -d $path && ! -L $path ]]; then
    mkdir -p "$out$(readlink -f "$path")"
    return
  fi
  if [[ ! -e $path && ! -L $path ]]; then
    missing=$((missing + 1))
    return
  fi
  [[ -d $path ]] && return # a link to a directory: bin, lib, lib64, sbin above
  parent=$(readlink -f "$(dirname "$path")")
  name=$(basename "$path")
  mkdir -p "$out$parent"
  cp -a "$path" "$out$parent/$name"
  copied=$((copied + 1))
}

while IFS= read -r path; do
  [[ $path == /* && $path != /. ]] || continue
  copy_path "$path"
done < <(dpkg-query -L libc6)
((copied > 0)) || die "dpkg-query -L libc6 listed no file"
# The loader must be where every x86-64 binary asks for it.
[[ -e $out/lib64/ld-linux-x86-64.so.2 ]] || die "no /lib64/ld-linux-x86-64.so.2 from libc6"

mkdir -p "$out/etc" "$out/tmp" "$out/root" "$out/proc" "$out/sys" "$out/dev"
chmod 1777 "$out/tmp"
chmod 0700 "$out/root"
cat >"$out/etc/nsswitch.conf" <<'EOF'
# railkit image: no user database is shipped (railkit looks up no user).
passwd:    files
group:     files
hosts:     files dns
networks:  files
EOF
cat >"$out/etc/hosts" <<'EOF'
127.0.0.1	localhost
::1	localhost ip6-localhost ip6-loopback
EOF

if ((ca)); then
  bundle=/etc/ssl/certs/ca-certificates.crt
  dpkg-query -W -f='${Status}' ca-certificates 2>/dev/null | grep -q "install ok installed" ||
    die "--ca-certificates: the Debian package ca-certificates is not installed"
  [[ -s $bundle ]] || die "--ca-certificates: $bundle is missing or empty (update-ca-certificates writes it)"
  mkdir -p "$out/etc/ssl/certs" "$out/usr/share/doc/ca-certificates"
  cp "$bundle" "$out/etc/ssl/certs/ca-certificates.crt"
  chmod 0644 "$out/etc/ssl/certs/ca-certificates.crt"
  if [[ -f /usr/share/doc/ca-certificates/copyright ]]; then
    cp /usr/share/doc/ca-certificates/copyright "$out/usr/share/doc/ca-certificates/copyright"
  fi
fi

# The dist tarball: exactly one top directory, railkit-*-linux-x86_64/, with
# bin/railkit in it.
mapfile -t tops < <(tar -tzf "$tarball" | sed -e 's|^\./||' -e 's|/.*||' | sort -u)
[[ ${#tops[@]} == 1 && ${tops[0]} == railkit-*-linux-x86_64 ]] ||
  die "$tarball: expected one top directory railkit-VERSION-linux-x86_64/, found: ${tops[*]:-nothing}"
# grep without -q reads the whole list: -q would stop early, tar would die of
# SIGPIPE and pipefail would call the tarball broken.
tar -tzf "$tarball" | sed 's|^\./||' | grep -x "${tops[0]}/bin/railkit" >/dev/null ||
  die "$tarball: no ${tops[0]}/bin/railkit"
mkdir -p "$out/usr/local"
tar -xzf "$tarball" -C "$out/usr/local" --strip-components=1 --no-same-owner \
  --exclude='*/..' --exclude='../*'
[[ -f $out/usr/local/bin/railkit && -x $out/usr/local/bin/railkit ]] ||
  die "$tarball: bin/railkit did not unpack as an executable file"

echo "build-rootfs: $out: libc6 ($copied files$( ((missing)) && echo ", $missing listed but absent on this machine")),$( ((ca)) && echo " CA certificates,") ${tops[0]} under /usr/local"
