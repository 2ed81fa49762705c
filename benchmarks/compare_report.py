#!/usr/bin/env python3
"""Summarises benchmarks/compare.sh's raw results (see that script).

Input lines: RANKS NAME RUN ORDER BYTES VALUE (ORDER f or r: the anchors ran
in forward or reversed order in that run). Prints, per rank count, each
anchor's median with its min-max and spread ((max-min)/median), and the
ratios railkit/anchor as the median of per-run ratios (each run measures
every anchor within the same minute) with their min-max.

A result is flagged, and no ratio is printed from it, when
  - its spread is over SPREAD (20%),
  - the median of the forward-order runs and of the reversed-order runs
    differ by more than SPREAD (the independent re-run disagrees),
  - it is more than 3x off the median the previous compare.sh run recorded
    (STATE file), or it has no data,
  - it has results from fewer runs than its rank count had (an anchor that
    failed in a run: compare.sh says which).
The medians of this run then replace STATE's (flagged ones too: the next
run is compared with what was measured, not with what was hoped).
Usage: compare_report.py RESULTS STATE
"""
import statistics
import sys

SPREAD = 0.20
OFF = 3.0

BW = ["railkit", "rk_ucx", "gloo", "mpi", "ceiling"]
# (label, numerator, denominator): bandwidth, higher is better
BW_RATIOS = [("rk/ceil", "railkit", "ceiling"), ("rk/gloo", "railkit", "gloo"), ("rk/mpi", "railkit", "mpi"),
             ("ucx/rk", "rk_ucx", "railkit")]
LAT = ["rk_p2p_2B", "pp_2B", "rk_ar_8B", "pp_rtt_8B"]
# latency, lower is better: railkit / raw ping-pong
LAT_RATIOS = [("p2p/pp", "rk_p2p_2B", "pp_2B"), ("ar/pp", "rk_ar_8B", "pp_rtt_8B")]


def load(path):
    rows = []
    try:
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) == 6:
                    rows.append((int(p[0]), p[1], int(p[2]), p[3], int(p[4]), float(p[5])))
    except FileNotFoundError:
        pass
    return rows


def load_state(path):
    last = {}
    try:
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) == 4:
                    last[(int(p[0]), p[1], int(p[2]))] = float(p[3])
    except FileNotFoundError:
        pass
    return last


def fmt(v):
    return "-" if v is None else ("%.3g" % v if v < 100 else "%.0f" % v)


class Stat:
    def __init__(self, runs, last, nruns):
        vals = [v for _, _, v in runs]
        self.by_run = {r: v for r, _, v in runs}
        self.flags = []
        self.med = statistics.median(vals) if vals else None
        if not vals or self.med <= 0:
            self.flags.append("no data")
            return
        if len(self.by_run) < nruns:
            self.flags.append("results in %d of %d runs" % (len(self.by_run), nruns))
        self.lo, self.hi = min(vals), max(vals)
        self.spread = (self.hi - self.lo) / self.med
        if self.spread > SPREAD:
            self.flags.append("spread %.0f%%" % (100 * self.spread))
        fwd = [v for _, o, v in runs if o == "f"]
        rev = [v for _, o, v in runs if o == "r"]
        if fwd and rev:
            a, b = statistics.median(fwd), statistics.median(rev)
            diff = abs(a - b) / min(a, b) if min(a, b) > 0 else float("inf")
            if diff > SPREAD:
                self.flags.append("order: forward %s, reversed %s" % (fmt(a), fmt(b)))
        if last is not None and last > 0 and (self.med > OFF * last or self.med * OFF < last):
            self.flags.append("%.1fx the last run's %s" % (self.med / last, fmt(last)))

    def cell(self):
        if self.med is None or self.med <= 0:
            return "-!"
        mark = "!" if self.flags else ""
        return "%s%s [%s-%s] %.0f%%" % (fmt(self.med), mark, fmt(self.lo), fmt(self.hi), 100 * self.spread)


def ratio_cell(num, den):
    if num is None or den is None or num.flags or den.flags:
        return "flagged"
    per_run = [num.by_run[r] / den.by_run[r] for r in num.by_run if r in den.by_run and den.by_run[r] > 0]
    if not per_run:
        return "flagged"
    return "%.2f [%.2f-%.2f]" % (statistics.median(per_run), min(per_run), max(per_run))


def table(title, header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    print(title)
    for r in [header] + rows:
        print("  ".join(str(c).rjust(w) for c, w in zip(r, widths)))


def main():
    results, state = sys.argv[1], sys.argv[2]
    rows = load(results)
    last = load_state(state)
    groups = {}
    for ranks, name, run, order, size, value in rows:
        groups.setdefault((ranks, name, size), []).append((run, order, value))
    runs_of = {ranks: len({r[2] for r in rows if r[0] == ranks}) for ranks in {r[0] for r in rows}}
    stats = {k: Stat(v, last.get(k), runs_of[k[0]]) for k, v in groups.items()}
    flags = []
    for ranks in sorted({k[0] for k in groups}):
        nruns = runs_of[ranks]
        sizes = sorted({k[2] for k in groups if k[0] == ranks and k[1] in BW})
        names = [n for n in BW if any((ranks, n, s) in stats for s in sizes)]
        out = []
        for s in sizes:
            get = lambda n: stats.get((ranks, n, s))
            out.append([s] + [get(n).cell() if get(n) else "-" for n in names] +
                       [ratio_cell(get(a), get(b)) for _, a, b in BW_RATIOS if a in names and b in names])
        header = ["bytes"] + names + [lbl for lbl, a, b in BW_RATIOS if a in names and b in names]
        table("\n# %d ranks: all_reduce float sum in place, busbw GB/s: median! [min-max] spread, %d runs"
              " (! = flagged); ratios: median [min-max] of per-run ratios" % (ranks, nruns), header, out)
        lat = [n for n in LAT if any(k[0] == ranks and k[1] == n for k in stats)]
        if lat:
            sz = {n: [k[2] for k in stats if k[0] == ranks and k[1] == n][0] for n in lat}
            cells = [stats[(ranks, n, sz[n])].cell() for n in lat]
            rat = [ratio_cell(stats.get((ranks, a, sz.get(a))), stats.get((ranks, b, sz.get(b))))
                   for _, a, b in LAT_RATIOS if a in lat and b in lat]
            table("\n# %d ranks: latency us (p2p, pp: one-way median; ar: all_reduce mean; pp_rtt: ping-pong"
                  " mean round trip); ratios railkit/ping-pong" % ranks,
                  lat + [lbl for lbl, a, b in LAT_RATIOS if a in lat and b in lat], [cells + rat])
        for k in sorted(stats):
            if k[0] == ranks and stats[k].flags:
                flags.append("%d ranks %s %d: %s" % (k[0], k[1], k[2], "; ".join(stats[k].flags)))
    print("\n# flagged (not used in ratios): %d" % len(flags))
    for f in flags:
        print("#   " + f)
    for k, st in stats.items():
        if st.med is not None:
            last[k] = st.med
    with open(state, "w") as f:
        for k in sorted(last):
            f.write("%d %s %d %g\n" % (k[0], k[1], k[2], last[k]))


if __name__ == "__main__":
    main()
