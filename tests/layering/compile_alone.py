#!/usr/bin/env python3
"""Every file of src/ that changed lately compiles on its own.

The Release build compiles each layer of src/ in batches of files (a unity
build): a file that forgot an include still builds there when a file before
it in its batch made the include. This check compiles files alone, with the
exact flags of their layer (taken from the build's compile_commands.json)
and -fsyntax-only:

  - every .cc and .h of src/ that changed in the last COMMITS commits
    (RAILKIT_ALONE_COMMITS, default 30: a session's submission and more) or
    is changed in the working tree. A file that compiled alone when it last
    changed goes on doing so, unless a header it includes drops an include
    it relied on: that header's includers are not followed (for a core
    header that is most of src/); --all checks every file.

A header is compiled as a one-line file that includes it, unless its own
.cc (same directory and name) is checked too and includes it first: that
compile already starts with the header alone, so a second one would prove
nothing more (a third of the files of a typical run, each a second or more
of CPU). Outside a git
checkout (a tarball) every file is checked. With --files FILE... only those
files are checked, as files of the layer named by --layer (the test that
shows the check can fail).

Usage: compile_alone.py SOURCE_DIR BUILD_DIR [--all] [--layer L --files F...]
Exit: 0 all compile alone, 1 one does not, 2 bad usage or no flags to use.
"""

import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import time

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    """src/<layer>/... -> <layer>."""
    return rel.split("/")[1]


def target_dir(layer):
    # cli's target is the railkit binary; every other layer is railkit_<layer>.
    return "railkit.dir" if layer == "cli" else "railkit_%s.dir" % layer


def layer_commands(build):
    """The compile command of each layer: a unity batch's, or any file's."""
    path = os.path.join(build, "compile_commands.json")
    try:
        with open(path) as f:
            entries = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("compile_alone: cannot read %s: %s (a configured build tree has it)" % (path, e))
    out = {}
    for e in entries:
        m = re.search(r"CMakeFiles/(railkit(?:_[a-z0-9]+)?)\.dir/", e.get("command", ""))
        if not m or "/src/" not in e["directory"] + "/":
            continue
        name = m.group(1)
        layer = "cli" if name == "railkit" else name[len("railkit_"):]
        args = shlex.split(e["command"])
        kept, skip = [], False
        for a in args:
            if skip:
                skip = False
                continue
            if a in ("-o", "-c"):
                skip = True
                continue
            kept.append(a)
        out.setdefault(layer, (e["directory"], kept))
    return out


def git_changed(source, commits):
    def git(*args):
        r = subprocess.run(["git", "-C", source] + list(args), capture_output=True, text=True)
        return r.stdout.split("\n") if r.returncode == 0 else None

    if git("rev-parse", "--git-dir") is None:
        return None
    changed = set()
    count = int(subprocess.run(["git", "-C", source, "rev-list", "--count", "HEAD"],
                               capture_output=True, text=True).stdout.strip() or 0)
    log = git("log", "-%d" % min(commits, count), "--name-only", "--format=")
    for lines in (log or [], git("diff", "--name-only", "HEAD") or [],
                  git("ls-files", "--others", "--exclude-standard", "src") or []):
        changed.update(l.strip() for l in lines if l.strip().startswith("src/"))
    return changed


def covered_by_its_source(rel, wanted, texts):
    """A header whose .cc is checked and includes it before anything else."""
    if not rel.endswith(".h"):
        return False
    source = rel[:-2] + ".cc"
    if source not in wanted or source not in texts:
        return False
    first = INCLUDE.search(texts[source])
    first_any = re.search(r'^\s*#\s*include\b', texts[source], re.M)
    return (first is not None and first_any is not None and first.start() == first_any.start()
            and first.group(1) == rel[len("src/"):])


def main(argv):
    args = argv[1:]
    check_all = "--all" in args
    args = [a for a in args if a != "--all"]
    files_arg, layer_arg = None, None
    if "--files" in args:
        i = args.index("--files")
        files_arg = args[i + 1:]
        args = args[:i]
    if "--layer" in args:
        i = args.index("--layer")
        layer_arg = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    source, build = (os.path.abspath(a) for a in args)
    commands = layer_commands(build)
    if not commands:
        print("compile_alone: %s/compile_commands.json names no layer of src/" % build, file=sys.stderr)
        return 2

    every = []
    for root, _, names in os.walk(os.path.join(source, "src")):
        for n in names:
            if n.endswith((".cc", ".h")):
                every.append(os.path.relpath(os.path.join(root, n), source))
    every.sort()
    texts = {}
    for rel in every:
        with open(os.path.join(source, rel), errors="replace") as f:
            texts[rel] = f.read()

    if files_arg is not None:
        todo = [(os.path.abspath(f), layer_arg) for f in files_arg]
        why = "given"
    else:
        commits = int(os.environ.get("RAILKIT_ALONE_COMMITS", "30"))
        changed = None if check_all else git_changed(source, commits)
        if changed is None:
            wanted = set(every)
            why = "every file of src/" + ("" if check_all else " (no git history here)")
        else:
            wanted = {c for c in changed if c in texts}
            why = "changed in the last %d commits or the working tree" % commits
        wanted = {rel for rel in wanted if not covered_by_its_source(rel, wanted, texts)}
        todo = [(os.path.join(source, rel), layer_of(rel)) for rel in sorted(wanted)]

    missing = sorted({layer for _, layer in todo if layer not in commands})
    if missing:
        print("compile_alone: no compile command for layer(s) %s in %s/compile_commands.json"
              % (", ".join(missing), build), file=sys.stderr)
        return 2

    def check(item):
        path, layer = item
        directory, flags = commands[layer]
        if path.endswith(".h"):
            rel = os.path.relpath(path, os.path.join(source, "src"))
            cmd = flags + ["-fsyntax-only", "-x", "c++", "-"]
            stdin = '#include "%s"\n' % rel
        else:
            cmd = flags + ["-fsyntax-only", path]
            stdin = ""
        r = subprocess.run(cmd, cwd=directory, input=stdin, capture_output=True, text=True)
        return path, r.returncode, r.stderr

    started = time.time()
    failed = []
    workers = os.cpu_count() or 2
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        for path, rc, err in pool.map(check, todo):
            if rc != 0:
                failed.append((path, err))
    took = time.time() - started
    for path, err in failed:
        print("FAIL: %s does not compile on its own:" % os.path.relpath(path, source))
        print("\n".join(err.splitlines()[:30]))
    print("compile_alone: %d file(s) (%s), %d failed, %.1f s"
          % (len(todo), why, len(failed), took))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
