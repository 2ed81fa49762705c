#!/usr/bin/env python3
"""Test-only stand-in for perftest's ib_write_bw in the pod runner
(docs/render.md, "Proof: the pod runner"): netns nodes have no RDMA device,
so the runner gives each pod a fake /sys/class/infiniband device behind its
data interface and installs this script as /usr/local/bin/ib_write_bw.

It takes perftest's flags and does what the real tool needs from the pod:
  - the device (-d) and port (-i) must be this pod's (ACTIVE, in
    /sys/class/infiniband), and the GID index (-x) a RoCE v2 GID of it that
    holds an IPv4 address of the device's netdev; otherwise it fails as
    perftest fails on a missing device;
  - without a host argument it is the server: it listens on the control
    port (-p, default 18515) of every address, as perftest's out-of-band
    exchange does; with one it is the client and connects there by name;
  - the two sides then exchange their GIDs and move the bytes between the
    GIDs' IPv4 addresses, so the data crosses the interface behind the
    device (the pod's net1), not the control network.
Each side prints one "ib_write_bw stand-in:" line with its role, rank,
host, device, data address and the command that bounds it (its parent, the
render's `timeout N`), then a perftest-shaped table.
"""
import os
import socket
import sys
import time

IB = "/sys/class/infiniband"
MAX_BYTES_PER_SIZE = 4 << 20  # enough to show which interface carried the bytes


def fail(msg):
    print("ib_write_bw stand-in: " + msg, file=sys.stderr)
    sys.exit(1)


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def parse(argv):
    opts = {"dev": None, "port": 1, "gid": None, "tcp": 18515, "size": 65536, "all": False,
            "iters": 5000, "gbits": False, "duration": None, "host": None}
    with_value = {"-d": "dev", "--ib-dev": "dev", "-i": "port", "--ib-port": "port", "-x": "gid",
                  "--gid-index": "gid", "-p": "tcp", "--port": "tcp", "-s": "size", "--size": "size",
                  "-n": "iters", "--iters": "iters", "-D": "duration", "--duration": "duration",
                  "-q": None, "--qp": None, "-m": None, "--mtu": None, "-c": None, "--connection": None,
                  "-t": None, "--tx-depth": None}
    flags = {"-a": "all", "--all": "all", "--report_gbits": "gbits", "-F": None,
             "--CPU-freq": None, "-R": None, "--rdma_cm": None, "-b": None, "--bidirectional": None}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in with_value:
            if i + 1 >= len(argv):
                fail("option %s needs a value" % arg)
            key = with_value[arg]
            if key:
                opts[key] = argv[i + 1] if key == "dev" else int(argv[i + 1])
            i += 2
        elif arg in flags:
            if flags[arg]:
                opts[flags[arg]] = True
            i += 1
        elif arg.startswith("-"):
            fail("unknown option %s (the stand-in knows the flags the renders use)" % arg)
        elif opts["host"] is None:
            opts["host"] = arg
            i += 1
        else:
            fail("more than one host: %s" % arg)
    return opts


def gid_ipv4(gid):
    groups = gid.lower().split(":")
    if len(groups) != 8 or groups[:6] != ["0000"] * 5 + ["ffff"]:
        return None
    hi, lo = int(groups[6], 16), int(groups[7], 16)
    return "%d.%d.%d.%d" % (hi >> 8, hi & 0xff, lo >> 8, lo & 0xff)


def device_gid(opts):
    """This pod's GID for -d/-i/-x: (gid, ipv4, netdev), or exit 1."""
    dev = opts["dev"]
    if not dev:
        fail("no -d device given")
    devices = sorted(os.listdir(IB)) if os.path.isdir(IB) else []
    if dev not in devices:
        fail("Couldn't find IB device %s: this pod has %s" % (dev, ", ".join(devices) or "none"))
    port_dir = "%s/%s/ports/%d" % (IB, dev, opts["port"])
    state = read(port_dir + "/state")
    if state is None or "ACTIVE" not in state:
        fail("port %d of %s is not ACTIVE (%s)" % (opts["port"], dev, state))
    if opts["gid"] is None:
        fail("no -x GID index: RoCE needs one")
    x = str(opts["gid"])
    gid, gtype, netdev = (read(port_dir + "/gids/" + x), read(port_dir + "/gid_attrs/types/" + x),
                          read(port_dir + "/gid_attrs/ndevs/" + x))
    ipv4 = gid_ipv4(gid or "")
    if gtype != "RoCE v2" or not ipv4 or not netdev:
        fail("GID index %s of %s:%d is not an IPv4 RoCE v2 GID (%s, %s)" % (x, dev, opts["port"], gid, gtype))
    return gid, ipv4, netdev


def bounded_by():
    """The parent's command line: the render runs ib_write_bw under `timeout N`."""
    cmdline = read("/proc/%d/cmdline" % os.getppid()) or ""
    return " ".join(w for w in cmdline.split("\0") if w)


def rank():
    for name in ("RANK", "OMPI_COMM_WORLD_RANK", "PET_NODE_RANK"):
        if os.environ.get(name):
            return os.environ[name]
    return "?"


def recv_line(sock):
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(1)
        if not chunk:
            fail("peer closed the exchange")
        data += chunk
    return data.decode().strip()


def sizes(opts):
    return [1 << k for k in range(1, 24)] if opts["all"] else [opts["size"]]


def move(sock, opts, sending):
    rows = []
    for size in sizes(opts):
        total = min(size * opts["iters"], max(size, MAX_BYTES_PER_SIZE))
        start, done, buf = time.monotonic(), 0, b"\xa5" * min(size, 1 << 20)
        while done < total:
            if sending:
                done += sock.send(buf[:min(len(buf), total - done)])
            else:
                chunk = sock.recv(min(1 << 20, total - done))
                if not chunk:
                    fail("peer closed the data connection at size %d" % size)
                done += len(chunk)
        sock.sendall(b"k") if not sending else sock.recv(1)  # size done on both sides
        seconds = max(time.monotonic() - start, 1e-9)
        rows.append((size, total // size, total * 8 / seconds / 1e9))
    return rows


def table(opts, rows, local_gid, remote_gid):
    line = "-" * 87
    print(line + "\n                    RDMA_Write BW Test (stand-in over TCP)\n" + line)
    print(" local address: GID %s\n remote address: GID %s\n%s" % (local_gid, remote_gid, line))
    unit = "Gb/sec" if opts["gbits"] else "MB/sec"
    print(" #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]" % (unit, unit))
    for size, iters, gbps in rows:
        bw = gbps if opts["gbits"] else gbps * 1e3 / 8
        print(" %-10d %-16d %-18.2f %-20.2f %.6f" % (size, iters, bw, bw, gbps * 1e9 / 8 / size / 1e6))
    print(line)


def main():
    opts = parse(sys.argv[1:])
    gid, ipv4, netdev = device_gid(opts)
    role = "client" if opts["host"] else "server"
    print("ib_write_bw stand-in: %s rank %s on %s device %s:%d gid-index %s data %s (%s) bounded by: %s" %
          (role, rank(), socket.gethostname(), opts["dev"], opts["port"], opts["gid"], ipv4, netdev,
           bounded_by() or "-"), flush=True)
    me = "%s %s %s" % (socket.gethostname(), opts["dev"], gid)
    if role == "server":
        ctrl = socket.create_server(("", opts["tcp"]), reuse_port=False)
        data = socket.create_server((ipv4, 0))
        conn, peer = ctrl.accept()
        client = recv_line(conn).split()
        conn.sendall(("%s %d\n" % (me, data.getsockname()[1])).encode())
        dconn, dpeer = data.accept()
        if gid_ipv4(client[2]) != dpeer[0]:
            fail("data connection from %s, not from the client's GID %s" % (dpeer[0], client[2]))
        print("ib_write_bw stand-in: server accepted client %s (device %s) from %s, data from %s" %
              (client[0], client[1], peer[0], dpeer[0]), flush=True)
        rows = move(dconn, opts, sending=False)
        remote = client[2]
    else:
        try:
            addr = socket.gethostbyname(opts["host"])
        except OSError as e:
            fail("cannot resolve %s: %s" % (opts["host"], e))
        try:
            conn = socket.create_connection((addr, opts["tcp"]), timeout=5)
        except OSError as e:
            # perftest's client fails the same way when the server is not up yet.
            fail("Couldn't connect to %s:%d (%s)" % (opts["host"], opts["tcp"], e))
        conn.settimeout(None)
        conn.sendall((me + "\n").encode())
        server = recv_line(conn).split()
        dconn = socket.create_connection((gid_ipv4(server[2]), int(server[3])), source_address=(ipv4, 0))
        print("ib_write_bw stand-in: client connected to server %s (%s) host %s device %s, data to %s" %
              (opts["host"], addr, server[0], server[1], gid_ipv4(server[2])), flush=True)
        rows = move(dconn, opts, sending=True)
        remote = server[2]
    table(opts, rows, gid, remote)


if __name__ == "__main__":
    main()
