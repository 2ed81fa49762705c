#!/usr/bin/env python3
"""Compares railkit exporter's /metrics with node_exporter's infiniband
collector scraped from the same sysfs tree.

Usage: node_exporter_compare.py MAPPING_DOC RAILKIT_METRICS NODE_METRICS

The name mapping is the table in MAPPING_DOC (docs/exporter.md, "Beside
node_exporter"): rows '| `railkit_name` | `node_infiniband_name` | LEGACY |',
'| — | `node_infiniband_name` | |' for a family railkit does not serve.
LEGACY names node_exporter's family for the counters_ext/ copy of older
kernels, which railkit serves under the same metric: known, not compared
(the procfs tree has no counters_ext/). Every node_infiniband sample must
belong to a family of the table;
every sample of a mapped family must be in both scrapes, per (device, port),
with the same value; node_infiniband_info's firmware_version must be the
fw_ver of every port of that device in railkit_rdma_port_info. Prints one
line per compared value and exits 1 on the first list of differences.
"""
import re
import sys

ROW = re.compile(r"^\| (`railkit_[a-z0-9_]+`|—) \| `(node_infiniband_[a-z0-9_]+)`[^|]*\|([^|]*)\|")
LEGACY = re.compile(r"`(node_infiniband_legacy_[a-z0-9_]+)`")
SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def read_mapping(path):
    """({node_exporter name: railkit name or None}, {legacy names})"""
    mapping, legacy = {}, set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line)
            if m:
                mapping[m.group(2)] = None if m.group(1) == "—" else m.group(1).strip("`")
                legacy.update(LEGACY.findall(m.group(3)))
    if not mapping:
        sys.exit(f"node_exporter_compare: {path}: no '| `railkit_...` | `node_infiniband_...` |' rows")
    return mapping, legacy


def read_samples(path, prefix):
    """{name: {frozenset(labels): value}} for the names starting with prefix."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.startswith(prefix):
                continue
            m = SAMPLE.match(line)
            if not m:
                sys.exit(f"node_exporter_compare: {path}:{n}: not a sample line: {line!r}")
            labels = frozenset(LABEL.findall(m.group(2) or ""))
            out.setdefault(m.group(1), {})[labels] = float(m.group(3))
    return out


def by_port(series):
    return {(dict(k)["device"], dict(k)["port"]): v for k, v in series.items()}


def compare_info(ours, theirs, problems):
    fw = {}
    for labels in ours.get("railkit_rdma_port_info", {}):
        d = dict(labels)
        fw.setdefault(d["device"], set()).add(d["fw_ver"])
    compared = 0
    for labels in theirs.get("node_infiniband_info", {}):
        d = dict(labels)
        mine = fw.get(d["device"], set())
        if mine != {d["firmware_version"]}:
            problems.append(f"{d['device']}: firmware_version {d['firmware_version']!r}, railkit fw_ver {mine}")
        else:
            print(f"  {d['device']:8} fw_ver = firmware_version = {d['firmware_version']}")
            compared += 1
    return compared


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: node_exporter_compare.py MAPPING_DOC RAILKIT_METRICS NODE_METRICS")
    mapping, legacy = read_mapping(sys.argv[1])
    ours = read_samples(sys.argv[2], "railkit_rdma_")
    theirs = read_samples(sys.argv[3], "node_infiniband_")
    if not theirs:
        sys.exit("node_exporter_compare: node_exporter served no node_infiniband_* sample")
    problems = []
    for name in sorted(theirs):
        if name in legacy:
            print(f"  note: {name} (counters_ext/) served by node_exporter, not compared")
        elif name not in mapping:
            problems.append(f"node_exporter's {name} is not in the mapping table of {sys.argv[1]}")
    compared = compare_info(ours, theirs, problems)
    for their_name, our_name in sorted(mapping.items()):
        if our_name is None or their_name == "node_infiniband_info":
            continue
        mine = by_port(ours.get(our_name, {}))
        other = by_port(theirs.get(their_name, {}))
        for key in sorted(set(mine) | set(other)):
            where = f"{key[0]}/{key[1]}"
            if key not in mine:
                problems.append(f"{where}: node_exporter has {their_name} {other[key]:.17g}, railkit no {our_name}")
            elif key not in other:
                problems.append(f"{where}: railkit has {our_name} {mine[key]:.17g}, node_exporter no {their_name}")
            elif mine[key] != other[key]:
                problems.append(f"{where}: {our_name} {mine[key]:.17g} != {their_name} {other[key]:.17g}")
            else:
                print(f"  {where:10} {our_name} = {their_name} = {mine[key]:.17g}")
                compared += 1
    if problems:
        print("\n".join(f"DIFFERS: {p}" for p in problems), file=sys.stderr)
        sys.exit(1)
    print(f"compared {compared} values, all equal")


if __name__ == "__main__":
    main()
