#!/usr/bin/env python3
"""Unpacks a ttar text archive (the format prometheus/procfs keeps its sysfs
fixture in) under a directory, so tests can run exporters on it.

Usage: ttar_extract.py ARCHIVE DEST [STRIP]
STRIP leading path components are dropped from every entry (as tar's
--strip-components). The format: records separated by '# ttar - - -' lines;
'Directory: P' and 'Mode: M', or 'Path: P', 'Lines: N', N lines of content
('EOF' at the end of the last one: no trailing newline; 'NULLBYTE' a NUL) and
'Mode: M', or 'Path: P' and 'SymlinkTo: T'. Anything else is an error naming
the line, so a damaged fixture fails the test instead of shrinking it.
"""
import os
import re
import sys


def fail(msg):
    print(f"ttar_extract: {msg}", file=sys.stderr)
    sys.exit(2)


def unescape(line):
    line = re.sub(r"(?<!\\)NULLBYTE", "\0", line).replace("\\NULLBYTE", "NULLBYTE")
    return line


def target(dest, path, strip, where):
    parts = path.split("/")[strip:]
    if not parts or path.startswith("/") or ".." in parts:
        fail(f"{where}: path {path!r} is empty after stripping {strip} or leaves the archive")
    return os.path.join(dest, *parts)


def write_file(out, lines, mode):
    data = "".join(unescape(line) + "\n" for line in lines)
    if data.endswith("EOF\n") and not data.endswith("\\EOF\n"):
        data = data[: -len("EOF\n")]
    data = data.replace("\\EOF", "EOF")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="") as f:
        f.write(data)
    os.chmod(out, mode)


def extract(archive, dest, strip):
    with open(archive, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i, files = 0, 0
    while i < len(lines):
        where = f"{archive}:{i + 1}"
        line = lines[i]
        i += 1
        if line.startswith("# ttar ") or line == "":
            continue
        if line.startswith("Directory: "):
            os.makedirs(target(dest, line[len("Directory: "):], strip, where), exist_ok=True)
            continue
        if line.startswith("Mode: "):
            continue
        if not line.startswith("Path: "):
            fail(f"{where}: expected 'Path:', 'Directory:' or 'Mode:', found {line!r}")
        out = target(dest, line[len("Path: "):], strip, where)
        if i >= len(lines):
            fail(f"{where}: 'Path:' with nothing after it")
        kind = lines[i]
        i += 1
        if kind.startswith("SymlinkTo: "):
            os.makedirs(os.path.dirname(out), exist_ok=True)
            os.symlink(kind[len("SymlinkTo: "):], out)
            continue
        m = re.fullmatch(r"Lines: (\d+)", kind)
        if not m:
            fail(f"{where}: expected 'Lines: N' or 'SymlinkTo:', found {kind!r}")
        n = int(m.group(1))
        body = lines[i : i + n]
        i += n
        mode_line = lines[i] if i < len(lines) else ""
        m = re.fullmatch(r"Mode: ([0-7]+)", mode_line)
        if len(body) != n or not m:
            fail(f"{where}: {n} lines then 'Mode:' expected, found {mode_line!r}")
        i += 1
        write_file(out, body, int(m.group(1), 8))
        files += 1
    if files == 0:
        fail(f"{archive}: no files")
    return files


def main():
    if len(sys.argv) not in (3, 4):
        fail("usage: ttar_extract.py ARCHIVE DEST [STRIP]")
    strip = int(sys.argv[3]) if len(sys.argv) == 4 else 0
    print(extract(sys.argv[1], sys.argv[2], strip))


if __name__ == "__main__":
    main()
