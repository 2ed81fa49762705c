#!/usr/bin/env bash
# `cmake --install` puts railkit where GNUInstallDirs says:
#   install_test.sh BUILD_DIR VERSION
# bin/railkit, share/doc/railkit/{README.md,LICENSE,docs/}, share/railkit/examples/.
set -euo pipefail

build=$1
version=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/railkit share/doc/railkit/README.md share/doc/railkit/LICENSE share/doc/railkit/docs/doctor.md \
         share/railkit/examples/dgx-h100-8gpu/proc/self/limits; do
  [ -e "$prefix/$f" ] || fail "$f: not installed under the prefix (found: $(cd "$prefix" && find . -maxdepth 3 | head -20 | tr '\n' ' '))"
done
[ -x "$prefix/bin/railkit" ] || fail "bin/railkit is not executable"
out=$("$prefix/bin/railkit" --version)
[[ $out == "railkit $version (git "* ]] || fail "installed railkit --version: expected 'railkit $version (git ...)', found '$out'"
# Nothing outside the prefix, nothing the tests built.
extra=$(cd "$prefix" && find . -type f ! -path './bin/railkit' ! -path './share/doc/railkit/*' ! -path './share/railkit/examples/*')
[ -z "$extra" ] || fail "unexpected installed files: $extra"
echo "ok: installed under $prefix: $(cd "$prefix" && find . -type f | wc -l) files; $out"
