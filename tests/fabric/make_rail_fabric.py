#!/usr/bin/env python3
"""Writes a rail-optimized InfiniBand fabric as an ibsim net file.

ibsim reads ibnetdiscover's own format: a `Switch N "name"` or `Hca N "name"`
header, then one `[port] "peer"[peerport]` line per cable. Each node of the
cluster has one single-port HCA per rail, named "<node> mlx5_<rail>" (ibsim
makes the name the node description, as rdma-ndd does on a real host). The
nodes are cut into groups of --group nodes; rail r of group g goes to leaf
"leaf-g<g>-r<r>" ("leaf-r<r>" when there is one group), host ports first,
then --uplinks cables to each spine, then --spare free ports (where a test
plugs a cable moved from another leaf). Every leaf reaches every spine.

--pods P cuts the groups into P pods (a 3-tier fabric): the leaves of pod p
reach only that pod's --spines spines ("spine-p<p>-<s>"), and every spine
reaches each of the --cores core switches ("core<c>").

Faults written into the file:
  --degrade NODE:RAIL:w=N  the HCA end of that cable enables only width mask
                           N (1 = 1x), so the link trains at 1x
  --degrade NODE:RAIL:s=N  the same for the speed mask (1 = SDR)
  --speed MASK             the speed mask every port enables (default 7: SDR,
                           DDR, QDR; the link trains at QDR), so that a
                           degraded speed shows

--format ibnetdiscover writes instead what ibnetdiscover prints of such a
fabric (GUIDs, node descriptions, LIDs, 4xNDR links; faults are not written),
for fabrics larger than ibsim holds (benchmarks/fabric_scale.sh).

usage: make_rail_fabric.py --nodes 32 --rails 8 --spines 4 [options] > net
"""
import argparse
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--nodes', type=int, default=32)
    p.add_argument('--rails', type=int, default=8)
    p.add_argument('--spines', type=int, default=4)
    p.add_argument('--group', type=int, default=0, help='nodes per leaf (default: all)')
    p.add_argument('--uplinks', type=int, default=1, help='cables from each leaf to each spine')
    p.add_argument('--spare', type=int, default=2, help='free ports on each leaf')
    p.add_argument('--speed', type=int, default=7, help='speed mask of every port (ibsim: 1 SDR, 3 DDR, 7 QDR)')
    p.add_argument('--degrade', action='append', default=[], metavar='NODE:RAIL:OPT')
    p.add_argument('--pods', type=int, default=1, help='pods of groups, each with its own spines (3 tiers)')
    p.add_argument('--cores', type=int, default=2, help='core switches above the pods\' spines (with --pods)')
    p.add_argument('--format', choices=['ibsim', 'ibnetdiscover'], default='ibsim')
    a = p.parse_args()
    group = a.group or a.nodes
    if a.nodes % group:
        sys.exit('make_rail_fabric: --nodes must be a multiple of --group')
    groups = a.nodes // group
    if a.pods < 1 or groups % a.pods:
        sys.exit('make_rail_fabric: the groups (--nodes / --group) must be a multiple of --pods')
    if a.pods > 1:
        three_tier(a, group, groups)
        return
    degrade = {}
    for d in a.degrade:
        node, rail, opt = d.split(':')
        degrade[(node, int(rail))] = opt

    def node(n):
        return 'node%03d' % (n + 1)

    def hca(n, r):
        return '%s mlx5_%d' % (node(n), r)

    def leaf(g, r):
        return 'leaf-r%d' % r if groups == 1 else 'leaf-g%d-r%d' % (g + 1, r)

    def spine(s):
        return 'spine%d' % (s + 1)

    # Every port enables 1x and 4x (and the --speed mask), so that a port
    # limited to 1x still trains with its peer: ibsim refuses a cable whose
    # ends share no width or speed.
    out = ['width=3']
    if a.speed:
        out.append('speed=%d' % a.speed)
    up_first = group + 1  # a leaf's first uplink port
    leaf_ports = group + a.spines * a.uplinks + a.spare
    leaves = [(g, r) for g in range(groups) for r in range(a.rails)]
    if a.format == 'ibnetdiscover':
        print(ibnetdiscover(a, group, groups, leaves, leaf_ports, up_first, node, hca, leaf, spine))
        return
    # The first record's port is where the SM attaches: a leaf.
    for g, r in leaves:
        out.append('\nSwitch\t%d "%s"' % (leaf_ports, leaf(g, r)))
        for i in range(group):
            n = g * group + i
            out.append('[%d]\t"%s"[1]' % (i + 1, hca(n, r)))
        for s in range(a.spines):
            for u in range(a.uplinks):
                li = leaves.index((g, r))
                out.append('[%d]\t"%s"[%d]' % (up_first + s * a.uplinks + u, spine(s), li * a.uplinks + u + 1))
    spine_ports = len(leaves) * a.uplinks
    for s in range(a.spines):
        out.append('\nSwitch\t%d "%s"' % (spine_ports, spine(s)))
        for li, (g, r) in enumerate(leaves):
            for u in range(a.uplinks):
                out.append('[%d]\t"%s"[%d]' % (li * a.uplinks + u + 1, leaf(g, r), up_first + s * a.uplinks + u))
    for n in range(a.nodes):
        g = n // group
        for r in range(a.rails):
            opt = degrade.get((node(n), r))
            out.append('\nHca\t1 "%s"' % hca(n, r))
            out.append('[1]\t"%s"[%d]%s' % (leaf(g, r), n % group + 1, '\t' + opt if opt else ''))
    print('\n'.join(out).lstrip('\n'))


def ibnetdiscover(a, group, groups, leaves, leaf_ports, up_first, node, hca, leaf, spine):
    """The fabric as ibnetdiscover prints it: a record per switch, then per CA."""
    def sguid(i):
        return '%016x' % (0x2c5eab0300000000 + i)

    def hguid(n, r):
        return '%016x' % (0xe09d730300000000 + n * 16 + r)

    lid = {}
    for i in range(len(leaves) + a.spines):
        lid[('S', i)] = i + 1
    for n in range(a.nodes):
        for r in range(a.rails):
            lid[('H', n, r)] = len(leaves) + a.spines + 1 + n * a.rails + r
    out = ['#', '# Topology file: generated by make_rail_fabric.py', '#']

    def switch(i, name, ports):
        out.extend(['', 'vendid=0x2c9', 'devid=0xd2f2', 'sysimgguid=0x' + sguid(i),
                    'switchguid=0x%s(%s)' % (sguid(i), sguid(i)),
                    'Switch\t%d "S-%s"\t\t# "MF0;%s:MQM9700/U1" enhanced port 0 lid %d lmc 0'
                    % (ports, sguid(i), name, lid[('S', i)])])

    for li, (g, r) in enumerate(leaves):
        switch(li, leaf(g, r), leaf_ports)
        for k in range(group):
            n = g * group + k
            out.append('[%d]\t"H-%s"[1](%s) \t\t# "%s" lid %d 4xNDR'
                       % (k + 1, hguid(n, r), hguid(n, r), hca(n, r), lid[('H', n, r)]))
        for s in range(a.spines):
            for u in range(a.uplinks):
                si = len(leaves) + s
                out.append('[%d]\t"S-%s"[%d]\t\t# "MF0;%s:MQM9700/U1" lid %d 4xNDR'
                           % (up_first + s * a.uplinks + u, sguid(si), li * a.uplinks + u + 1, spine(s), lid[('S', si)]))
    for s in range(a.spines):
        si = len(leaves) + s
        switch(si, spine(s), len(leaves) * a.uplinks)
        for li, (g, r) in enumerate(leaves):
            for u in range(a.uplinks):
                out.append('[%d]\t"S-%s"[%d]\t\t# "MF0;%s:MQM9700/U1" lid %d 4xNDR'
                           % (li * a.uplinks + u + 1, sguid(li), up_first + s * a.uplinks + u, leaf(g, r), lid[('S', li)]))
    for n in range(a.nodes):
        g = n // group
        for r in range(a.rails):
            li = leaves.index((g, r))
            out.extend(['', 'vendid=0x2c9', 'devid=0x1021', 'sysimgguid=0x' + hguid(n, r), 'caguid=0x' + hguid(n, r),
                        'Ca\t1 "H-%s"\t\t# "%s"' % (hguid(n, r), hca(n, r)),
                        '[1](%s) \t"S-%s"[%d]\t\t# lid %d lmc 0 "MF0;%s:MQM9700/U1" lid %d 4xNDR'
                        % (hguid(n, r), sguid(li), n % group + 1, lid[('H', n, r)], leaf(g, r), lid[('S', li)])])
    return '\n'.join(out)


def three_tier(a, group, groups):
    """Pods of groups, each pod's leaves on its own spines, every spine on
    every core: what ibnetdiscover prints of it (GUIDs, LIDs, 4xNDR)."""
    per_pod = groups // a.pods
    leaves = [(g, r) for g in range(groups) for r in range(a.rails)]
    spines = [(p, s) for p in range(a.pods) for s in range(a.spines)]
    index = {}
    names = {}
    for g, r in leaves:
        index[('L', g, r)] = len(index)
        names[('L', g, r)] = 'leaf-g%d-r%d' % (g + 1, r)
    for p, s in spines:
        index[('S', p, s)] = len(index)
        names[('S', p, s)] = 'spine-p%d-%d' % (p + 1, s + 1)
    for c in range(a.cores):
        index[('C', c)] = len(index)
        names[('C', c)] = 'core%d' % (c + 1)

    def sguid(key):
        return '%016x' % (0x2c5eab0300000000 + index[key])

    def hguid(n, r):
        return '%016x' % (0xe09d730300000000 + n * 16 + r)

    def lid(key):
        return index[key] + 1

    def hlid(n, r):
        return len(index) + 1 + n * a.rails + r

    links = {key: [] for key in index}  # key -> [(port, peer key, peer port)]
    for g, r in leaves:
        p = g // per_pod
        for s in range(a.spines):
            li = (g % per_pod) * a.rails + r
            links[('L', g, r)].append((group + 1 + s, ('S', p, s), li + 1))
            links[('S', p, s)].append((li + 1, ('L', g, r), group + 1 + s))
    leaf_ports = per_pod * a.rails
    for p, s in spines:
        for c in range(a.cores):
            si = p * a.spines + s
            links[('S', p, s)].append((leaf_ports + 1 + c, ('C', c), si + 1))
            links[('C', c)].append((si + 1, ('S', p, s), leaf_ports + 1 + c))
    out = ['#', '# Topology file: generated by make_rail_fabric.py --pods', '#']
    for key in index:
        ports = {'L': group + a.spines + a.spare, 'S': leaf_ports + a.cores, 'C': len(spines)}[key[0]]
        out.extend(['', 'vendid=0x2c9', 'devid=0xd2f2', 'sysimgguid=0x' + sguid(key),
                    'switchguid=0x%s(%s)' % (sguid(key), sguid(key)),
                    'Switch\t%d "S-%s"\t\t# "MF0;%s:MQM9700/U1" enhanced port 0 lid %d lmc 0'
                    % (ports, sguid(key), names[key], lid(key))])
        if key[0] == 'L':
            g, r = key[1], key[2]
            for k in range(group):
                n = g * group + k
                out.append('[%d]\t"H-%s"[1](%s) \t\t# "node%03d mlx5_%d" lid %d 4xNDR'
                           % (k + 1, hguid(n, r), hguid(n, r), n + 1, r, hlid(n, r)))
        for port, peer, peer_port in sorted(links[key]):
            out.append('[%d]\t"S-%s"[%d]\t\t# "MF0;%s:MQM9700/U1" lid %d 4xNDR'
                       % (port, sguid(peer), peer_port, names[peer], lid(peer)))
    for n in range(a.nodes):
        g = n // group
        for r in range(a.rails):
            key = ('L', g, r)
            out.extend(['', 'vendid=0x2c9', 'devid=0x1021', 'sysimgguid=0x' + hguid(n, r), 'caguid=0x' + hguid(n, r),
                        'Ca\t1 "H-%s"\t\t# "node%03d mlx5_%d"' % (hguid(n, r), n + 1, r),
                        '[1](%s) \t"S-%s"[%d]\t\t# lid %d lmc 0 "MF0;%s:MQM9700/U1" lid %d 4xNDR'
                        % (hguid(n, r), sguid(key), n % group + 1, hlid(n, r), names[key], lid(key))])
    print('\n'.join(out))


if __name__ == '__main__':
    main()
