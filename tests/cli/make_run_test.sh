#!/usr/bin/env bash
# The README's `make run`, with the suite's own build tree (railkit is up to
# date: make only checks it): it exits 0, runs its three commands, and says
# each one's exit status in words on a line of its own (1: findings, which
# the example node has on purpose), never make's "Error 1 (ignored)".
# Usage: make_run_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1 build=$2
command -v make >/dev/null || { echo "SKIP: make not installed"; exit 77; }
out=$(make -C "$src" --no-print-directory run BUILD="$build" 2>&1)
rc=$?
echo "$out" | grep -E '^(==|\(exit|VERDICT|[0-9]+ error)'
fail() { echo "FAIL: make run: $*" >&2; exit 1; }
((rc == 0)) || fail "exited $rc: $(tail -n 20 <<<"$out")"
grep -q 'Error [0-9]* (ignored)' <<<"$out" && fail "make still reports an ignored error: $(grep 'ignored' <<<"$out")"
(($(grep -c '^== railkit ' <<<"$out") == 3)) || fail "want three '== railkit ...' headings"
want='(exit 1: railkit ran and reported the findings above; make run goes on)'
# The example node has findings: doctor --root and validate end 1; this
# machine's doctor ends 0 or 1 (no RDMA device is an error here).
(($(grep -cxF "$want" <<<"$out") >= 2)) || fail "want the example's two commands to end with '$want'"
grep -q '^VERDICT: FAIL (4 of 4 node(s) fail)' <<<"$out" || fail "validate's verdict on the example node is missing"
echo "ok: make run exits 0 and explains each command's exit status"
