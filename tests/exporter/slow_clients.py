#!/usr/bin/env python3
"""Slow and hostile clients against `railkit exporter`, beside scrapes.

For --seconds it holds the given numbers of:
  pipeliners  GET /metrics over and over on one connection, never reading
              (a 16 KiB receive buffer, so the server's writes stall at once);
  slowloris   half a request, then one more byte a second;
  idle        one request, its answer read, then nothing (keep-alive);
  strangers   bytes that are not HTTP (a TLS ClientHello's first bytes).
A client the server closes or resets comes back half a second later, so the
slots stay contended for the whole run. Meanwhile a thread scrapes /metrics
on a fresh connection every --interval seconds; each scrape must be a 200
carrying REFERENCE's bytes within --max-latency seconds (latency counts from
connect to the last byte, this harness's own time on a loaded machine
included).

It reads the exporter's VmRSS, VmHWM and open descriptors (/proc/PID) as it
runs: VmHWM must stay under --hwm-limit-kb, the descriptors under
--fd-baseline + --slots + 1 (one accepted before the eviction that makes room
for it), and once the clients have gone the descriptors must be back to
--fd-baseline within 10 s (an evicted socket not closed is a leak). The
pipeliners leave with a FIN and then a reset, which the server's next write
meets as EPIPE; the exporter must still be running at the end (a SIGPIPE
would have ended it).

Prints what it measured on one line ("key=value ..."); exits 1 naming the
first broken expectation.

usage: slow_clients.py HOST:PORT PID REFERENCE --fd-baseline N --hwm-limit-kb N
         [--pipeliners N] [--slowloris N] [--idle N] [--strangers N]
         [--seconds S] [--interval S] [--max-latency S] [--slots N] [--name NAME]
"""
import argparse
import errno
import os
import select
import socket
import struct
import sys
import threading
import time

REQUEST = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
HALF = b"GET /metrics HTTP/1.1\r\nHo"
STRANGE = bytes.fromhex("16030100a5010000a10303") + bytes(range(32))
RECONNECT_S = 0.5
TRICKLE_S = 1.0
PIPELINED = 600  # requests each pipeliner sends: 25 KB, which the server's buffers take whole; owed 600 pages (7 MB), past any kernel buffer
HUP = select.POLLHUP | select.POLLERR


class Client:
    """One connection of one kind; `events` is what the loop polls it for."""

    def __init__(self, kind, address):
        self.kind = kind
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if kind == "pipeliners":
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
        self.sock.setblocking(False)
        self.connected = False
        self.out = {"pipeliners": REQUEST * PIPELINED, "slowloris": HALF, "idle": REQUEST,
                    "strangers": STRANGE}[kind]
        self.next_trickle = 0.0
        self.polled = None  # the events the poller has for it
        err = self.sock.connect_ex(address)
        if err not in (0, errno.EINPROGRESS):
            raise OSError(err, os.strerror(err))

    @property
    def events(self):
        if not self.connected or self.out:
            return select.POLLOUT
        # A pipeliner never reads: only a hang-up is of interest.
        return 0 if self.kind == "pipeliners" else select.POLLIN

    def on_ready(self, revents):
        """Does what the socket allows; False once the server has closed it."""
        if not self.connected:
            if self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                return False
            self.connected = True
        if revents & HUP and self.kind == "pipeliners":
            return False
        try:
            if self.out and revents & (select.POLLOUT | select.POLLIN | HUP):
                sent = self.sock.send(self.out)
                self.out = self.out[sent:]
            if revents & (select.POLLIN | HUP) and self.kind != "pipeliners":
                while True:
                    data = self.sock.recv(65536)
                    if not data:
                        return False
        except BlockingIOError:
            return True
        except OSError:  # ECONNRESET, EPIPE: evicted or refused
            return False
        return True

    def tick(self, now):
        if self.kind == "slowloris" and self.connected and not self.out and now >= self.next_trickle:
            self.out = b"o"
            self.next_trickle = now + TRICKLE_S


class Scraper(threading.Thread):
    def __init__(self, address, reference, interval, max_wait):
        super().__init__(daemon=True)
        self.address, self.reference, self.interval, self.max_wait = address, reference, interval, max_wait
        self.stop = threading.Event()
        self.results = []  # (seconds, None) or (seconds, why it failed)

    def scrape(self):
        begin = time.monotonic()
        try:
            with socket.create_connection(self.address, timeout=self.max_wait) as s:
                s.sendall(REQUEST.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
                data = b""
                while True:
                    if time.monotonic() - begin > self.max_wait:
                        raise TimeoutError("no whole answer")
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
        except OSError as e:
            return time.monotonic() - begin, f"{type(e).__name__}: {e}"
        took = time.monotonic() - begin
        head, _, body = data.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200 "):
            return took, f"answered {head[:40]!r}"
        if body != self.reference:
            return took, f"a {len(body)}-byte body, not the {len(self.reference)}-byte page"
        return took, None

    def run(self):
        while not self.stop.is_set():
            self.results.append(self.scrape())
            self.stop.wait(self.interval)


def proc_status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0])
    return fields


def alive(pid):
    """Running: not gone, and not a zombie its parent has yet to reap."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("hostport")
    p.add_argument("pid", type=int)
    p.add_argument("reference")
    p.add_argument("--fd-baseline", type=int, required=True)
    p.add_argument("--hwm-limit-kb", type=int, required=True)
    p.add_argument("--slots", type=int, default=512)
    for kind in ("pipeliners", "slowloris", "idle", "strangers"):
        p.add_argument(f"--{kind}", type=int, default=0)
    p.add_argument("--seconds", type=float, default=8)
    p.add_argument("--interval", type=float, default=0.5)
    p.add_argument("--max-latency", type=float, default=10)
    p.add_argument("--name", default="run")
    return p.parse_args()


def hold_clients(args, address, deadline, watch):
    """The poll loop over the slow clients until `deadline`; counts closes."""
    wanted = {k: getattr(args, k) for k in ("pipeliners", "slowloris", "idle", "strangers")}
    clients, comeback, closed = {}, [], 0  # fd -> Client; (time, kind)
    for kind, n in wanted.items():
        comeback += [(0.0, kind)] * n
    poller = select.poll()
    while time.monotonic() < deadline:
        now = time.monotonic()
        due = [kind for at, kind in comeback if at <= now]
        comeback = [(at, kind) for at, kind in comeback if at > now]
        for kind in due:
            try:
                c = Client(kind, address)
            except OSError:
                comeback.append((now + RECONNECT_S, kind))
                continue
            clients[c.sock.fileno()] = c
            c.polled = c.events
            poller.register(c.sock, c.polled)
        for c in clients.values():
            c.tick(now)
            if c.events != c.polled:
                c.polled = c.events
                poller.modify(c.sock, c.polled)
        for fd, revents in poller.poll(100):
            c = clients[fd]
            if not c.on_ready(revents):
                poller.unregister(fd)
                c.sock.close()
                del clients[fd]
                closed += 1
                comeback.append((time.monotonic() + RECONNECT_S, c.kind))
        watch()
    for c in clients.values():
        if c.kind == "pipeliners" and c.connected:
            leave_with_epipe(c.sock)
        c.sock.close()
    return closed


def leave_with_epipe(sock):
    """A FIN, then a reset: the server, still writing, meets the reset in
    CLOSE_WAIT, where the kernel reports EPIPE (not ECONNRESET) to its next
    send, the error that raises SIGPIPE unless the send says MSG_NOSIGNAL."""
    try:
        sock.shutdown(socket.SHUT_WR)
        time.sleep(0.001)  # not an ordering: the FIN first, on loopback at once
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass  # already reset by the server


def main():
    args = parse_args()
    host, _, port = args.hostport.rpartition(":")
    address = (host, int(port))
    with open(args.reference, "rb") as f:
        reference = f.read()
    peak = {"VmRSS": 0, "VmHWM": 0, "fds": 0, "closed": 0, "watched": 0.0, "error": None}

    def watch(every=0.1):
        if time.monotonic() - peak["watched"] < every:
            return
        peak["watched"] = time.monotonic()
        try:
            status = proc_status(args.pid)
            fds = open_fds(args.pid)
        except FileNotFoundError:
            return  # the exporter is gone: main() says so
        if "VmRSS" not in status:
            return  # a zombie (killed, not yet reaped): main() says so
        for key in ("VmRSS", "VmHWM"):
            peak[key] = max(peak[key], status[key])
        peak["fds"] = max(peak["fds"], fds)

    def hold():
        try:
            peak["closed"] = hold_clients(args, address, start + args.seconds, watch)
        except Exception as e:  # reported below, not lost in the thread
            peak["error"] = f"the client loop failed: {type(e).__name__}: {e}"

    scraper = Scraper(address, reference, args.interval, max(args.max_latency, 15))
    start = time.monotonic()
    # The clients first: the scrapes begin once they have had a second to
    # take the slots.
    holder = threading.Thread(target=hold)
    holder.start()
    time.sleep(min(1.0, args.seconds / 4))
    scraper.start()
    holder.join()
    scraper.stop.set()
    scraper.join()

    settle = time.monotonic() + 10
    fds_after = -1
    while time.monotonic() < settle:
        try:
            fds_after = open_fds(args.pid)
        except FileNotFoundError:
            break
        if fds_after <= args.fd_baseline:
            break
        time.sleep(0.1)
    watch(every=0)

    times = sorted(t for t, _ in scraper.results)
    failed = [(t, why) for t, why in scraper.results if why is not None]
    late = [t for t, why in scraper.results if why is None and t >= args.max_latency]
    def percentile(p):
        return times[min(len(times) - 1, int(len(times) * p / 100))] * 1000 if times else float("nan")

    print(f"{args.name}: scrapes={len(times)} failed={len(failed)} p50_ms={percentile(50):.1f} "
          f"p99_ms={percentile(99):.1f} "
          f"max_ms={(times[-1] if times else float('nan')) * 1000:.1f} closed_by_server={peak['closed']} "
          f"peak_fds={peak['fds']} fds_after={fds_after} fd_baseline={args.fd_baseline} "
          f"peak_rss_kb={peak['VmRSS']} hwm_kb={peak['VmHWM']} hwm_limit_kb={args.hwm_limit_kb}")
    problems = [peak["error"]] if peak["error"] else []
    if not times:
        problems.append("no scrape ran")
    problems += [f"a scrape failed after {t:.2f} s: {why}" for t, why in failed[:3]]
    problems += [f"a scrape took {t:.2f} s (limit {args.max_latency} s)" for t in late[:3]]
    if peak["VmHWM"] > args.hwm_limit_kb:
        problems.append(f"VmHWM {peak['VmHWM']} kB is over {args.hwm_limit_kb} kB")
    if peak["fds"] > args.fd_baseline + args.slots + 1:
        problems.append(f"{peak['fds']} descriptors open, more than {args.slots} slots allow")
    if fds_after > args.fd_baseline:
        problems.append(f"{fds_after} descriptors 10 s after the clients went, {args.fd_baseline} before")
    if not alive(args.pid):
        problems.append("the exporter is gone (a SIGPIPE ends it)")
    for problem in problems:
        print(f"{args.name}: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
