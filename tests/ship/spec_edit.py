#!/usr/bin/env python3
"""Edits an OCI runtime spec (config.json) for the tests/ship drivers.

python3, not jq: jq 1.6 turns 18446744073709551615 (RLIMIT_INFINITY, the
value of an unlimited rlimit) into a double, which runc then refuses.

Usage: spec_edit.py IN OUT [--root DIR] [--cgroup PATH] [--user UID:GID]
         [--proc-mount DEST] [--memlock BYTES] [--caps-add A,B] [--caps-drop A,B|ALL]
         [--shm-bytes N] [--print-rlimits] [--args CMD ARG...]
--caps-add/--caps-drop take Kubernetes names (IPC_LOCK) and apply them as
the CRI does: the spec's set, minus drop (ALL: everything), plus add, in
the bounding, effective and permitted sets. --shm-bytes makes /dev/shm a
tmpfs of that size (a memory-backed emptyDir with that sizeLimit).
--print-rlimits prints process.rlimits of IN as compact JSON and writes nothing.
"""
import argparse
import json
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("input")
    p.add_argument("output", nargs="?")
    p.add_argument("--root")
    p.add_argument("--cgroup")
    p.add_argument("--user")
    p.add_argument("--proc-mount")
    p.add_argument("--memlock", type=int)
    p.add_argument("--caps-add", default="")
    p.add_argument("--caps-drop", default="")
    p.add_argument("--shm-bytes", type=int)
    p.add_argument("--print-rlimits", action="store_true")
    p.add_argument("--args", nargs=argparse.REMAINDER)
    a = p.parse_args()

    with open(a.input) as f:
        spec = json.load(f)
    if a.print_rlimits:
        print(json.dumps(spec.get("process", {}).get("rlimits"), separators=(",", ":")))
        return 0
    if not a.output:
        sys.exit("spec_edit.py: no OUT")
    proc = spec.setdefault("process", {})
    if a.root:
        spec["root"] = {"path": a.root}
    if a.cgroup:
        spec.setdefault("linux", {})["cgroupsPath"] = a.cgroup
    if a.user:
        uid, gid = a.user.split(":")
        proc["user"] = {"uid": int(uid), "gid": int(gid)}
    if a.args:
        proc["args"] = a.args
    if a.proc_mount:
        spec.setdefault("mounts", []).append(
            {"destination": a.proc_mount, "type": "proc", "source": "proc",
             "options": ["nosuid", "noexec", "nodev"]})
    if a.memlock is not None:
        limits = [r for r in proc.get("rlimits", []) if r["type"] == "RLIMIT_MEMLOCK"]
        if not limits:
            sys.exit("spec_edit.py: --memlock: the spec has no RLIMIT_MEMLOCK to change")
        for r in limits:
            r["hard"] = r["soft"] = a.memlock
    add = ["CAP_" + c for c in a.caps_add.split(",") if c]
    drop = ["CAP_" + c for c in a.caps_drop.split(",") if c and c != "-"]
    if add or drop:
        caps = proc.setdefault("capabilities", {})
        for key in ("bounding", "effective", "permitted"):
            have = [] if "CAP_ALL" in drop else [c for c in caps.get(key, []) if c not in drop]
            caps[key] = have + [c for c in add if c not in have]
    if a.shm_bytes is not None:
        shm = [m for m in spec.get("mounts", []) if m.get("destination") == "/dev/shm"]
        if not shm:
            sys.exit("spec_edit.py: --shm-bytes: the spec mounts nothing at /dev/shm")
        for m in shm:
            m.update({"type": "tmpfs", "source": "shm",
                      "options": ["nosuid", "noexec", "nodev", "mode=1777", f"size={a.shm_bytes}"]})
    with open(a.output, "w") as f:
        json.dump(spec, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
