#!/usr/bin/env bash
# Packages a built railkit as the release tarball:
#   scripts/dist.sh BUILD_DIR OUT_DIR
# writes OUT_DIR/railkit-VERSION-linux-x86_64.tar.gz and its .sha256. The
# tarball is `cmake --install --strip` of BUILD_DIR (bin/railkit, the docs,
# the examples, the license) plus the copyright files of the libraries linked
# into the binary; it compiles nothing. Its bytes depend only on the build and
# the commit (sorted names, owner 0, mtimes at the commit's time, gzip -n).
set -euo pipefail

die() { echo "dist: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: scripts/dist.sh BUILD_DIR OUT_DIR"
build=$1
out=$2
source_dir=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$build/railkit" ] || die "$build/railkit: not built (expected the binary of a configured build directory)"

# "railkit 0.1.0 (git 0123456789ab)": the version the binary itself reports.
version=$("$build/railkit" --version | awk '{print $2}')
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || die "$build/railkit --version: expected 'railkit X.Y.Z ...', found '$version'"
name="railkit-$version-linux-x86_64"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"
cmake --install "$build" --prefix "$root" --strip >/dev/null

# Notices of what is linked statically: the license of each library travels
# with the binary that contains it.
notices="$root/share/doc/railkit/third-party"
mkdir -p "$notices"
# gcc-12-base holds the copyright of libstdc++ and libgcc (the GCC Runtime
# Library Exception).
for pkg in libyaml-dev libpugixml-dev libarchive-dev zlib1g-dev libssl-dev libfmt-dev \
           nlohmann-json3-dev libcli11-dev libexpected-dev gcc-12-base; do
  copyright=/usr/share/doc/$pkg/copyright
  [ -r "$copyright" ] || die "$copyright: not readable (is the package $pkg installed?)"
  cp "$copyright" "$notices/$pkg.copyright"
done

epoch=$(git -C "$source_dir" log -1 --format=%ct 2>/dev/null || date +%s)
mkdir -p "$out"
tarball="$out/$name.tar.gz"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
    --mode='u+w,go-w' -C "$stage" -cf - "$name" | gzip -n -9 >"$tarball.tmp"
mv "$tarball.tmp" "$tarball"
(cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
echo "dist: wrote $tarball ($(du -k "$tarball" | cut -f1) KiB) and $name.tar.gz.sha256"
