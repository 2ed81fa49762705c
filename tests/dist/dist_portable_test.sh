#!/usr/bin/env bash
# The release tarball needs nothing but glibc >= 2.17 at run time:
#   dist_portable_test.sh TARBALL VERSION
# - its .sha256 matches, it has one top directory with bin/railkit, the docs,
#   the examples, the license and the third-party notices;
# - every ELF file in it NEEDs only glibc's own libraries, or libraries
#   shipped in its lib/ and found through RUNPATH $ORIGIN/../lib;
# - the newest GLIBC_ symbol version any of them references is at most 2.17
#   (deps/glibc_floor.inc; ship_container_bullseye runs it on glibc 2.31);
# - the unpacked binary runs from an empty environment.
# The ELF check is first shown to reject a binary that needs more (curl).
set -euo pipefail

tarball=$1
version=$2
max_glibc=2.17
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -r "$tarball" ] || fail "$tarball: no tarball (the dist_package test makes it)"
command -v readelf >/dev/null && command -v objdump >/dev/null || fail "readelf/objdump (binutils) missing"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

(cd "$(dirname "$tarball")" && sha256sum --quiet -c "$(basename "$tarball").sha256") ||
  fail "$tarball.sha256 does not match the tarball"

name=railkit-$version-linux-x86_64
tops=$(tar -tzf "$tarball" | cut -d/ -f1 | sort -u)
[ "$tops" = "$name" ] || fail "expected one top directory $name, found: $tops"
tar -xzf "$tarball" -C "$scratch"
top=$scratch/$name
for f in bin/railkit share/doc/railkit/README.md share/doc/railkit/LICENSE share/doc/railkit/docs/bench.md \
         share/doc/railkit/docs/install.md share/doc/railkit/third-party/libyaml-dev.copyright \
         share/doc/railkit/third-party/gcc-12-base.copyright share/railkit/examples/dgx-h100-8gpu/proc/self/limits; do
  [ -e "$top/$f" ] || fail "$name/$f: missing from the tarball"
done

glibc_libs=" libc.so.6 libm.so.6 ld-linux-x86-64.so.2 libpthread.so.0 libdl.so.2 librt.so.1 libanl.so.1 "
is_elf() { [ "$(head -c4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

# Prints one line per problem of ELF file $1 (whose tree's lib/ is $2).
elf_problems() {
  local file=$1 libdir=$2 lib runpath newest
  runpath=$(readelf -d "$file" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
  for lib in $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case "$glibc_libs" in *" $lib "*) continue ;; esac
    if [ -e "$libdir/$lib" ] && [[ ":$runpath:" == *':$ORIGIN/../lib:'* ]]; then continue; fi
    echo "$file needs $lib, which is neither glibc nor in lib/ through RUNPATH \$ORIGIN/../lib (RUNPATH '$runpath')"
  done
  newest=$(objdump -T "$file" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)
  if [ -n "$newest" ] && [ "$(printf '%s\n%s\n' "$newest" "$max_glibc" | sort -V | tail -1)" != "$max_glibc" ]; then
    echo "$file references GLIBC_$newest, newer than GLIBC_$max_glibc: $(objdump -T "$file" |
      grep -o "[^ ]*GLIBC_$newest.*" | head -3 | tr -s ' ' | tr '\n' ';')"
  fi
}

# The check can fail: curl needs libcurl.
if [ -x /usr/bin/curl ]; then
  [ -n "$(elf_problems /usr/bin/curl /nonexistent)" ] || fail "the ELF check accepted /usr/bin/curl, which needs libcurl"
fi

elves=0
problems=""
while IFS= read -r -d '' f; do
  is_elf "$f" || continue
  elves=$((elves + 1))
  problems+=$(elf_problems "$f" "$top/lib")
done < <(find "$top" -type f -print0)
[ "$elves" -ge 1 ] || fail "no ELF file in the tarball"
[ -z "$problems" ] || fail "$problems"
newest=$(objdump -T "$top/bin/railkit" | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -1)
echo "ok: $elves ELF file(s), only glibc needed, newest symbol version $newest (limit GLIBC_$max_glibc)"

# From an empty environment: no LD_LIBRARY_PATH, no PATH.
out=$(env -i "$top/bin/railkit" --version) || fail "bin/railkit --version failed: $out"
[[ $out == "railkit $version (git "* ]] || fail "bin/railkit --version: expected 'railkit $version (git ...)', found '$out'"
set +e
out=$(env -i "$top/bin/railkit" doctor --root "$top/share/railkit/examples/dgx-h100-8gpu" 2>&1)
status=$?
set -e
[ "$status" -eq 1 ] || fail "doctor on the shipped example: expected exit 1 (it has an error finding), got $status: $out"
[[ $out == *"[shm-too-small]"* ]] || fail "doctor on the shipped example: expected [shm-too-small], found: $out"
echo "ok: $out" | head -1
echo "ok: the unpacked tarball runs: $(env -i "$top/bin/railkit" --version)"
