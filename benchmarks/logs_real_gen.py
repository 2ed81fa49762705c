#!/usr/bin/env python3
"""Writes an NCCL job log for benchmarks/logs_speed.sh built from real lines.

Every line's text comes from ../shared/data/nccl-logs/*.log (verbatim lines
users posted; resolved from this script's location, never copied into the
project). What is rewritten is who printed it: the `host:pid:tid [dev]`
header, so the file looks like many jobs of many ranks sharing one log.

The lines are sorted into kinds:
  info     NCCL INFO lines with a header (their text after `[dev] `),
           except the `-> N` frames of a failure
  failure  a WARN line (`file.cc:N NCCL WARN ...`) and the `-> N` frames
           after it, as NCCL prints them when a call fails
  table    nccl-tests output: runs of `#` lines and result rows, and the
           Func/Proto/Algo matrix, kept as the blocks they were in
  other    the rest (tracebacks, TensorFlow lines, headerless NCCL lines)
and the file is a sequence of jobs, in the proportions a real job has: a job
of R ranks (8 to 512, 4 or 8 per host) has each rank print 10-50 info lines
drawn from the real ones (so common kinds such as channel lines come up as
often as in the real logs), in bursts of 1-8 lines interleaved with other
ranks' bursts as a shared mpirun/kubectl log is; one job in four has a
failure, where 1-4 ranks end with a real failure sequence; about one line
in 150 is an `other` line; and the job ends with one nccl-tests table (one
of the real ones). A fifth of the jobs carry mpirun's `[1,rank]<stdout>:` in front, as
035.log does. Host names follow the real logs' naming schemes with the node
number changed; pids and tids are new for every process and thread.

Deterministic (seeded). usage: logs_real_gen.py OUTPUT SIZE_MIB [UNIQUE_MIB]
Only the first UNIQUE_MIB (default 64) are drawn line by line; that block is
then repeated up to SIZE_MIB, so a 1 GiB file takes seconds, not minutes.
"""
import glob
import os
import random
import re
import sys

HEADER = re.compile(r"^(?:\[\d+,\d+\]<std(?:out|err)>:)?([A-Za-z0-9._-]+):(\d+):(\d+) \[(\d+)\] (.*)$")
ROW = re.compile(r"^\s+\d+\s+\d+\s+\S+\s+\S+\s+-?\d+\s")
MATRIX = re.compile(r"^\s*\w+ \|")
# "transport/net.cc:1008 -> 6": a frame of the failure NCCL unwinds after a WARN.
TRACE = re.compile(r" -> \d+(?: \[.*\])?$")


def load(log_dir):
    """Splits the real logs into info and other lines, failure sequences and
    table blocks."""
    info, failures, other, tables = [], [], [], []
    hosts = set()
    for path in sorted(glob.glob(os.path.join(log_dir, "*.log"))):
        block, failure = [], []
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = [l.rstrip("\r\n") for l in f]
        for line in lines + [""]:
            if line.startswith("#") or ROW.match(line) or MATRIX.match(line):
                block.append(line)
                continue
            if block:
                tables.append(block)
                block = []
            m = HEADER.match(line)
            if m:
                hosts.add(m.group(1))
                body = m.group(5)
                if " WARN " in " " + body:
                    if failure:
                        failures.append(failure)
                    failure = [body]
                elif TRACE.search(body):
                    failure.append(body)
                else:
                    info.append(body)
            elif line.strip() and line.strip() != "...":
                other.append(line)
        if failure:
            failures.append(failure)
    return info, failures, other, tables, sorted(hosts)


def host_namer(real_host):
    """node index -> a name in the style of `real_host` (its last number changed)."""
    m = re.search(r"\d+(?!.*\d)", real_host)
    if not m:
        return lambda i: f"{real_host}-{i}"
    head, tail = real_host[: m.start()], real_host[m.end():]
    return lambda i: f"{head}{i}{tail}"


def job_lines(rng, info, failures, other, tables, hosts):
    ranks = rng.choice([8, 16, 32, 64, 128, 256, 512])
    per_host = rng.choice([4, 8])
    name = host_namer(rng.choice(hosts))
    base = rng.randrange(1, 900)
    mpirun = rng.random() < 0.2
    failing = rng.random() < 0.25
    heads = []
    for r in range(ranks):
        host = name(base + r // per_host)
        pid = rng.randrange(1000, 4000000)
        # NCCL's main thread and a few proxy/init threads print.
        tids = [pid] + [pid + rng.randrange(1, 300) for _ in range(3)]
        pre = f"[1,{r}]<stdout>:" if mpirun else ""
        heads.append([f"{pre}{host}:{pid}:{tid} [{r % per_host}] " for tid in tids])
    left = [rng.randrange(10, 51) for _ in range(ranks)]
    live = list(range(ranks))
    # A failing rank prints one real failure (a WARN and the `-> N` frames
    # NCCL unwinds with) once its init lines are out.
    bad = {r: rng.choice(failures) for r in rng.sample(range(ranks), min(ranks, rng.randrange(1, 5)))} if failing else {}
    out = []
    while live:
        i = rng.randrange(len(live))
        r = live[i]
        for _ in range(min(left[r], rng.randrange(1, 9))):
            left[r] -= 1
            head = rng.choice(heads[r])
            if r in bad and left[r] == 0:
                out.extend(head + body for body in bad[r])
            elif rng.random() < 1 / 150:
                out.append(rng.choice(other))
            else:
                out.append(head + rng.choice(info))
        if left[r] == 0:
            live[i] = live[-1]
            live.pop()
    out.extend(rng.choice(tables))
    return out


def main():
    out_path, size_mib = sys.argv[1], int(sys.argv[2])
    unique_mib = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    here = os.path.dirname(os.path.abspath(__file__))
    log_dir = os.path.normpath(os.path.join(here, "..", "..", "shared", "data", "nccl-logs"))
    info, failures, other, tables, hosts = load(log_dir)
    if not info or not failures or not tables:
        sys.exit(f"logs_real_gen: no real NCCL logs under {log_dir}")
    rng = random.Random(42)
    target = min(size_mib, unique_mib) << 20
    written = 0
    with open(out_path, "wb") as out:
        while written < target:
            text = ("\n".join(job_lines(rng, info, failures, other, tables, hosts)) + "\n").encode()
            out.write(text)
            written += len(text)
        out.flush()
        unique = written
        with open(out_path, "rb") as block_file:
            block = block_file.read()
        while written < (size_mib << 20):
            out.write(block)
            written += unique


if __name__ == "__main__":
    main()
