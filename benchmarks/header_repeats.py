#!/usr/bin/env python3
"""How often an NCCL line comes from the same printer as the line before.

railkit's reader thread reuses the header parse of the line before when the
line comes from the same process and device (docs/logs.md, Speed). This
counts, over NCCL INFO/WARN lines with a `host:pid:tid [dev]` header (behind
any launcher prefix), the share whose whole header repeats the previous
line's and the share whose process and device do (the tid may differ). A
line without such a header breaks the run.

usage: header_repeats.py FILE... [--max-bytes N]   (N: read at most N bytes of each file)
"""
import re
import sys

HEADER = re.compile(rb"^(.*?\S+:\d+:)(\d+)( \[\d+\]) NCCL (?:INFO|WARN)")


def main():
    args = sys.argv[1:]
    limit = None
    if "--max-bytes" in args:
        at = args.index("--max-bytes")
        limit = int(args[at + 1])
        del args[at : at + 2]
    if not args:
        sys.exit(__doc__.strip().splitlines()[-1])
    lines = same_header = same_process = 0
    for path in args:
        previous = None
        read = 0
        with open(path, "rb") as f:
            for line in f:
                read += len(line)
                if limit is not None and read > limit:
                    break
                m = HEADER.match(line)
                if not m:
                    previous = None
                    continue
                lines += 1
                current = (m.group(1), m.group(2), m.group(3))
                if previous is not None:
                    same_header += current == previous
                    same_process += (current[0], current[2]) == (previous[0], previous[2])
                previous = current
    if lines == 0:
        sys.exit("header_repeats: no NCCL lines with a host:pid:tid [dev] header")
    print(f"{lines} NCCL lines with a header in {len(args)} file(s)")
    print(f"  whole header as the line before:       {100 * same_header / lines:.1f} %")
    print(f"  same process and device (tid may vary): {100 * same_process / lines:.1f} %")


if __name__ == "__main__":
    main()
