#!/usr/bin/env bash
# A 1024-node, 8-rail fabric in ibnetdiscover's form (8192 HCAs, 128 leaves,
# 32 spines, 3.2 MB; make_rail_fabric.py --format ibnetdiscover) is read and
# checked in under 2 s: it takes about 0.05 s (benchmarks/fabric_scale.sh,
# docs/fabric.md), so the bound holds with a wide margin on a loaded machine.
# Then the same fabric with one cable moved: named, exit 1.
# Usage: fabric_scale_test.sh RAILKIT MAKE_RAIL_FABRIC
set -uo pipefail
railkit=$1 generate=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed" >&2; exit 77; }
work=$(mktemp -d /tmp/railkit-fabric-scale.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 "$generate" --nodes 1024 --rails 8 --group 64 --spines 32 --format ibnetdiscover >"$work/fabric.txt" ||
  fail "make_rail_fabric.py failed"
start=$(date +%s%N)
"$railkit" fabric "$work/fabric.txt" >"$work/out.txt" 2>"$work/err.txt"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
echo "railkit fabric on 1024 nodes x 8 rails: ${ms} ms, exit $rc"
head -2 "$work/out.txt"
[[ $rc -eq 0 ]] || { cat "$work/err.txt" >&2; fail "expected exit 0, found $rc"; }
grep -q "^160 switches (128 leaves, 32 above them), 1024 hosts with 8192 HCA ports on 8 rails$" "$work/out.txt" ||
  fail "the fabric's shape is not what was generated"
grep -q "^no problems found$" "$work/out.txt" || fail "a healthy fabric has findings"
((ms < 2000)) || fail "took ${ms} ms, more than 2 s"
# node1000's rail-7 cable moved into a free port of its group's rail-0 leaf
# (port 97: after 64 hosts and 32 uplinks): the same file with that cable's
# two lines changed.
python3 - "$work/fabric.txt" "$work/moved.txt" <<'PY' || fail "could not move the cable"
import re, sys
text = open(sys.argv[1]).read()
# The leaves of group 16 (nodes 961..1024) are leaf-g16-r0..7; node1000 is host 40 there.
leaf_guid = {m.group(2): m.group(1) for m in re.finditer(r'Switch\t\d+ "S-([0-9a-f]+)"\t\t# "MF0;(leaf-g16-r[07]):', text)}
r0, r7 = leaf_guid['leaf-g16-r0'], leaf_guid['leaf-g16-r7']
hca = re.search(r'\[40\]\t"H-([0-9a-f]+)"\[1\]\(\1\) \t\t# "node1000 mlx5_7"', text).group(1)
line = re.search(r'\n(\[40\]\t"H-%s"\[1\][^\n]*)' % hca, text).group(1)
text = text.replace('\n' + line, '')  # off leaf-g16-r7 port 40
rec = re.search(r'(Switch\t\d+ "S-%s"[^\n]*\n(?:\[[^\n]*\n)*)' % r0, text).group(1)
text = text.replace(rec, rec + line.replace('[40]', '[97]') + '\n')  # onto leaf-g16-r0 port 97
text = re.sub(r'(\[1\]\(%s\) \t"S-)%s"\[40\]' % (hca, r7), r'\g<1>%s"[97]' % r0, text)
open(sys.argv[2], 'w').write(text)
PY
"$railkit" fabric --json "$work/moved.txt" >"$work/moved.json"
rc=$?
[[ $rc -eq 1 ]] || fail "a moved cable: expected exit 1, found $rc"
python3 - "$work/moved.json" <<'PY' || fail "the moved cable is not named exactly"
import json, sys
doc = json.load(open(sys.argv[1]))
msgs = [(f['id'], f['message']) for f in doc['findings']]
want = ('rail-miscabled', 'node1000 mlx5_7 (rail 7) is on leaf-g16-r0 port 97; leaf-g16-r0 holds rail 0 '
        '(64 of its HCAs are mlx5_0); the 63 other nodes\' rail 7 are on leaf-g16-r7')
print(msgs)
sys.exit(0 if msgs == [want] else 1)
PY
echo "ok: 1024 x 8 read and checked in ${ms} ms; a moved cable named"
