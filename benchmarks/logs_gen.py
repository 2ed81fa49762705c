#!/usr/bin/env python3
"""Writes a synthetic NCCL job log for benchmarks/logs_speed.sh.

The file looks like what a many-rank job leaves behind: NCCL_DEBUG=INFO init
lines from every rank (version, bootstrap, NET/IB devices, network choice),
channel connections of every transport (P2P/IPC, SHM, NET/IB with and without
GDRDMA, NET/Socket), ring/tree lines, a few WARN lines, application and Python
traceback lines, mpirun and kubectl timestamp prefixes, CRLF endings, and an
nccl-tests table at the end. Ranks write in bursts of 1-31 lines interleaved
with other ranks, as a shared mpirun/kubectl log does. Deterministic.

usage: logs_gen.py OUTPUT SIZE_MIB [UNIQUE_MIB]
Only the first UNIQUE_MIB (default 64) are drawn line by line; that block is
then repeated up to SIZE_MIB, so a 1 GiB file takes seconds, not minutes.
"""
import random
import sys


def main():
    out_path, size_mib = sys.argv[1], int(sys.argv[2])
    unique_mib = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    target = min(size_mib, unique_mib) << 20
    rng = random.Random(42)
    hosts = [f"gpu-node-{i:03d}" for i in range(128)]
    ranks = len(hosts) * 8

    def head(rank):
        host = hosts[rank // 8]
        return f"{host}:{4000 + rank}:{5000 + rank} [{rank % 8}]"

    init = [
        "NCCL INFO Bootstrap : Using eth0:10.{a}.{b}.{c}<0>",
        "NCCL INFO cudaDriverVersion 12040",
        "NCCL INFO NCCL version 2.21.5+cuda12.4",
        "NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin.",
        "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB ; OOB eth0:10.{a}.{b}.{c}<0>",
        "NCCL INFO Using network IB",
        "NCCL INFO DMA-BUF is available on GPU device {d}",
        "NCCL INFO ncclCommInitRank comm 0x{h:x} rank {r} nranks {n} cudaDev {d} nvmlDev {d} busId {d}000 commId 0x5f1c9d - Init START",
        "NCCL INFO Setting affinity for GPU {d} to ffff,ffffffff",
        "NCCL INFO comm 0x{h:x} rank {r} nRanks {n} nNodes {nn} localRanks 8 localRank {d} MNNVL 0",
        "NCCL INFO Trees [0] {t1}/-1/-1->{r}->{t2} [1] {t2}/-1/-1->{r}->{t1}",
        "NCCL INFO P2P Chunksize set to 131072",
        "NCCL INFO ncclCommInitRank comm 0x{h:x} rank {r} nranks {n} cudaDev {d} nvmlDev {d} busId {d}000 commId 0x5f1c9d - Init COMPLETE",
    ]
    channel = [
        "NCCL INFO Channel {ch:02d}/0 : {r}[{d}] -> {p}[{pd}] via P2P/IPC/read",
        "NCCL INFO Channel {ch:02d}/0 : {r}[{d}] -> {p}[{pd}] via P2P/CUMEM",
        "NCCL INFO Channel {ch:02d}/0 : {r}[{d}] -> {p}[{pd}] via SHM/direct/direct",
        "NCCL INFO Channel {ch:02d}/0 : {q}[{d}] -> {r}[{d}] [receive] via NET/IB/{nic}/GDRDMA",
        "NCCL INFO Channel {ch:02d}/0 : {r}[{d}] -> {q}[{d}] [send] via NET/IB/{nic}/GDRDMA",
        "NCCL INFO Channel {ch:02d}/1 : {r}[{d}] -> {q}[{d}] [send] via NET/IB/{nic}",
        "NCCL INFO Connected all rings",
        "NCCL INFO Connected all trees",
        "NCCL INFO threadThresholds 8/8/64 | 8192/8/64 | 512 | 512",
        "NCCL INFO {ch} coll channels, {ch} collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer",
        "NCCL INFO AllReduce: opCount {op:x} sendbuff 0x7f00{h:x} recvbuff 0x7f00{h:x} count 262144 datatype 7 op 0 root 0 comm 0x{h:x} [nranks={n}] stream 0x55aa",
    ]
    rare = [
        "NCCL WARN NET/IB : Got completion from peer 10.{a}.{b}.{c}<41234> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2",
        "NCCL INFO Channel {ch:02d}/0 : {r}[{d}] -> {q}[{d}] [send] via NET/Socket/0",
        "NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory",
        "NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'",
    ]
    app = [
        "step {op} loss 2.{h} lr 0.0003 tokens/s 183422",
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 212, in <module>',
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
    ]
    prefixes = ["", "", "", "[1,{r}]<stdout>:", "2024-05-01T12:{m:02d}:{s:02d}.123456789Z "]
    table = [
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)",
    ]
    for e in range(10, 34):
        size = 1 << e
        t = 20 + size / 2.4e5
        alg = size / t / 1e3
        table.append(f"{size:>12} {size // 4:>13}     float     sum      -1 {t:>8.1f} {alg:>7.2f} {alg * 2 * (ranks - 1) / ranks:>7.2f}      0 {t:>8.1f} {alg:>7.2f} {alg * 2 * (ranks - 1) / ranks:>7.2f}      0")
    table += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 180.123", "#"]

    written = 0
    with open(out_path, "w", newline="") as out:
        batch = []
        op = 0
        burst = 0
        r = 0
        while written < target:
            # Ranks print in bursts (an init sequence, a round of channel
            # setup), interleaved with other ranks' bursts.
            if burst == 0:
                r = rng.randrange(ranks)
                burst = rng.randrange(1, 32)
            burst -= 1
            k = rng.random()
            if k < 0.08:
                tpl = rng.choice(init)
            elif k < 0.93:
                tpl = rng.choice(channel)
            elif k < 0.935:
                tpl = rng.choice(rare)
            else:
                tpl = rng.choice(app)
            op += 1
            fields = dict(r=r, d=r % 8, n=ranks, nn=len(hosts), p=(r + 1) % ranks, pd=(r + 1) % 8,
                          q=(r + 8) % ranks, nic=r % 4, ch=op % 32, h=op, op=op, t1=(r + 1) % ranks,
                          t2=(r - 1) % ranks, a=r % 250, b=(r // 250) % 250, c=r % 200 + 1,
                          m=(op // 60) % 60, s=op % 60)
            text = tpl.format(**fields)
            if not tpl.startswith(("NCCL", "step")) and tpl in app:
                line = text
            else:
                line = rng.choice(prefixes).format(**fields) + head(r) + " " + text
            line += "\r\n" if k > 0.99 else "\n"
            batch.append(line)
            written += len(line)
            if len(batch) >= 20000:
                out.write("".join(batch))
                batch = []
        out.write("".join(batch))
        out.flush()
        unique = written
        with open(out_path, "rb") as block_file:
            block = block_file.read()
        while written < (size_mib << 20):
            out.buffer.write(block)
            written += unique
        out.write("\n".join(table) + "\n")


if __name__ == "__main__":
    main()
