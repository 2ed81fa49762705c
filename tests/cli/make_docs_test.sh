#!/usr/bin/env bash
# The README's `make docs` works and finds the committed tables current: it
# rewrites docs/'s generated reference tables from their declarations with
# the suite's own build tree, and no file of docs/ may change (the
# cli_rule_tables_test.ReferenceTables.* cases say which table drifted).
# Usage: make_docs_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1 build=$2
command -v make >/dev/null || { echo "SKIP: make not installed"; exit 77; }
sums() { (cd "$src" && find docs -type f -print0 | sort -z | xargs -0 sha256sum); }
before=$(sums)
out=$(make -C "$src" --no-print-directory docs BUILD="$build" 2>&1)
rc=$?
echo "$out" | tail -n 20
((rc == 0)) || { echo "FAIL: make docs BUILD=$build exited $rc" >&2; exit 1; }
after=$(sums)
if [[ $before != "$after" ]]; then
  echo "FAIL: make docs changed files of docs/ (the committed tables are stale; commit what it wrote):" >&2
  diff <(echo "$before") <(echo "$after") | sed -n 's/^> [0-9a-f]*  //p' >&2
  exit 1
fi
echo "ok: make docs rewrote the generated tables; docs/ is unchanged"
