#!/usr/bin/env python3
"""Every command example README.md shows is run, and its output's shape
compared with what the README shows.

Usage: readme_examples_test.py RAILKIT SOURCE_DIR SHARED_DIR

README.md's fenced ``` blocks hold terminal sessions: a line starting with
"$ " is a command, the lines after it (up to the next "$ " line or the end of
the block) are its shown output. The README is parsed here, at test time, so a
new example is run without anyone touching this file. Every command not named
in SKIPS (with its reason) is run, so an example that can not run here fails
until it is listed there; an entry that matches no command fails too.

Each block runs in a fresh scratch directory (SCRATCH/block-LINE) whose
parent also holds `shared` (a link to SHARED_DIR), so the README's
`../shared/...` paths work, and links to the repository's examples/, docs/,
benchmarks/, schemas/ and tests/fixtures/ (real captures); `build` is a folder holding only the railkit under
test, which is also first on PATH. What a command writes (snapshot --output,
mkfifo, zeros.tar.gz) lands in the scratch directory and goes with it.

Shape, not numbers: both sides are normalised (numbers, addresses, ports,
durations, hex ids, the host name, the scratch path) before they are
compared line by line, so a missing or extra line, a changed message or
column header fails while a measured bandwidth or a PID does not. Elision as
the README writes it: a line that is just "..." stands for any number of
lines, a line ending in "..." for any line that starts with what precedes it.
The exit status that an `echo $?` prints is compared exactly.

Exit status: 0 all run examples match, 1 a mismatch or an unlisted or stale
entry, 77 (CTest's skip) when no example could run at all.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from readme_shape import (README_HOST, compare, describe, ends_with_echo_status, is_background, parse_readme,
                          strip_comment)

# How long one command may take. Every example runs in well under a second
# today; a minute leaves room for a loaded 2-core CI machine, not for a hang.
COMMAND_TIMEOUT_S = 60

# Examples not run here, keyed by a substring of the command that stays stable
# when the README's wording around it changes. Each entry must match at least
# one command of the README (a stale entry fails the test).
SKIPS = [
    ("make run", "tests/cli/make_run_test.sh (make_run) runs it with the suite's build tree"),
    ("make test", "is the test suite itself (this test is one of its entries)"),
    ("make dist", "builds the release tarball: tests/dist (dist_package, dist_portable) runs scripts/dist.sh, "
     "and tests/ship/image_test.sh runs `make image`, which runs `make dist`"),
    ("tar -xzf dist/", "unpacks `make dist`'s tarball into /opt: dist_package unpacks it into the build tree"),
    ("bin/railkit --version", "runs the tarball unpacked in /opt: dist_portable checks the unpacked "
     "binary's --version, dist_install the installed one's"),
    ("readelf -d /opt/", "reads the tarball unpacked in /opt: dist_portable checks every NEEDED library"),
    ("make image", "builds the OCI image: tests/ship/image_test.sh (ship_image) runs `make image`"),
    ("skopeo inspect --config oci-archive:dist/", "reads `make image`'s archive: ship_image reads it with skopeo"),
    ("skopeo copy", "pushes to a registry (docker://REGISTRY), which a test has no access to"),
    ("--hostfile /etc/mpi/hostfile", "needs an MPIJob launcher pod: cluster DNS, /etc/mpi/hostfile and mpirun"),
    ("benchmarks/logs_speed.sh", "a benchmark, not a test: builds 1 GiB logs and times 7 runs (minutes)"),
    ("MASTER_ADDR=198.18.10.11", "needs the two network-namespace nodes of tests/bench/netns (root, "
     "198.18.x addresses): bench_netns_env_tcp_* run the env bootstrap there"),
    ("railkit logs out.txt", "reads out.txt, which the netns bench example just above it writes; "
     "tests/logs/cli_test.cc grades nccl-tests tables with --expect-busbw"),
]


def have_tool(name):
    return shutil.which(name) is not None


def real_nccl_without_driver():
    """The README's nccl example is a machine with NCCL and the CUDA runtime
    installed but no NVIDIA driver: the runtime's own complaint, exit 2."""
    try:
        libs = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "libnccl.so.2 " in libs and "libcudart.so" in libs and not os.path.exists("/proc/driver/nvidia")


# Examples run only where what they need is here; elsewhere they are reported
# skipped (never passed). Keyed like SKIPS, plus the ../shared rule in main().
CONDITIONS = [
    ("curl -s", lambda: have_tool("curl"), "curl is not installed (scripts/install-deps.sh installs it)"),
    ("promtool check", lambda: have_tool("promtool"),
     "promtool is not installed (scripts/install-deps.sh installs prometheus)"),
    ("--backend nccl", real_nccl_without_driver,
     "its message depends on the machine; the README's is NCCL and the CUDA runtime without a driver, "
     "which this machine is not (tests/bench/nccl/nccl_cli_test.cc checks each case)"),
]

# The directories of the repository the examples read, linked into each
# block's scratch directory.
REPO_LINKS = ["examples", "docs", "benchmarks", "schemas", "tests/fixtures"]

# Files an example starts with that the README describes in words only:
# written into the block's scratch directory before it runs, keyed like SKIPS.
# (A `$ cat FILE` of a file no command wrote is the other source: see
# seed_files_from_cat.)
FIXTURE_FILES = [
    # "only worker-0 in hosts", at the address the example prints for it.
    ("--etc-hosts hosts", {"hosts": "10.244.1.7 worker-0.allreduce.ml-team.svc\n"}),
]

# The exporter example listens on the default 127.0.0.1:9877; another test or a
# real exporter may hold that port, so the block gets a free one instead (the
# port is normalised away in the output anyway).
EXPORTER_ADDR = "127.0.0.1:9877"


# --- running --------------------------------------------------------------


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kill_group(proc):
    """Kills the command's process group (a pipeline, a `&` child), only while
    its leader is unreaped, so the group id can not belong to anyone else."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_foreground(command, cwd, env, prev_status):
    """Runs the command as a shell would after a command that exited with
    prev_status (so a lone `echo $?` prints that). stdout and stderr go to one
    pipe, as the README's sessions show both."""
    proc = subprocess.Popen(["bash", "-c", f"(exit {prev_status}); {command}"], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=COMMAND_TIMEOUT_S)
        timed_out = False
    except subprocess.TimeoutExpired:
        kill_group(proc)
        try:
            out, _ = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:  # a straggler outside the group holds the pipe
            out = b""
        timed_out = True
    return out.decode("utf-8", "replace"), proc.returncode, timed_out


class Background:
    """A `command &`: started, then waited on until it prints its first line
    (the exporter's "serving ..."), so the next command finds it ready; killed
    at the end of its block, when its output is compared."""

    def __init__(self, command, cwd, env):
        self.log = tempfile.TemporaryFile()
        body = strip_comment(command)[:-1]
        self.proc = subprocess.Popen(["bash", "-c", body], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + COMMAND_TIMEOUT_S
        self.ready = False
        while time.monotonic() < deadline and self.proc.poll() is None:
            if b"\n" in self.read():
                self.ready = True
                break
            time.sleep(0.02)

    def read(self):
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        kill_group(self.proc)
        self.proc.wait()
        out = self.read().decode("utf-8", "replace")
        self.log.close()
        return out


def seed_files_from_cat(block, cwd):
    """`$ cat FILE` of a file that no earlier command of the block mentions
    shows the file the example starts with: write it from the shown output."""
    for i, example in enumerate(block):
        m = re.fullmatch(r"cat (\S+)", strip_comment(example.command))
        if not m:
            continue
        name = m.group(1)
        if any(name in earlier.command for earlier in block[:i]):
            continue
        target = os.path.join(cwd, name)
        if os.path.dirname(os.path.normpath(name)) or os.path.exists(target):
            continue
        with open(target, "w", encoding="utf-8") as f:
            f.write("\n".join(example.shown) + "\n")


def lookup(table, command):
    """The first entry of a table keyed by command substring that matches."""
    for entry in table:
        if entry[0] in command:
            return entry
    return None


def clean_env(bindir):
    """The environment the examples run in: the caller's, with railkit under
    test first on PATH and nothing that would change what the README shows.
    A suite started inside an MPI or Kubernetes job must not hand the bench
    examples its own launcher variables, nor the others its NCCL/UCX settings."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMIX_", "NCCL_", "UCX_", "RAILKIT_"))
           and k not in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["LC_ALL"] = "C"  # ls sorts as the README shows
    return env


class Session:
    """Runs the README's blocks and keeps what ran, what was skipped and why,
    and what failed."""

    def __init__(self, source, shared, scratch_root, env):
        self.source = source
        self.shared = shared
        self.have_shared = bool(shared) and os.path.isdir(shared)
        self.scratch_root = scratch_root
        self.env = env
        # The README's host is `vm`; where this machine's name shows, it
        # stands for the same thing. Both become <host> on both sides.
        self.hosts = {README_HOST, socket.gethostname().split(".")[0]} - {""}
        self.ran, self.skipped, self.failures = [], [], []

    def skip_reason(self, example, prev_skipped):
        command = example.command
        entry = lookup(SKIPS, command)
        if entry:
            return entry[1]
        if "../shared" in command and not self.have_shared:
            return f"../shared ({self.shared or 'RAILKIT_SHARED_DIR'}) is absent"
        if strip_comment(command) == "echo $?" and prev_skipped:
            return "prints the exit status of the skipped command before it"
        entry = lookup(CONDITIONS, command)
        if entry and not entry[1]():
            return entry[2]
        return None

    def prepare(self, block):
        """A fresh scratch directory for the block, beside ../shared, with the
        repository's directories and `build` linked in."""
        cwd = os.path.join(self.scratch_root, f"block-{block[0].line}")
        os.mkdir(cwd)
        for name in REPO_LINKS:
            os.makedirs(os.path.dirname(os.path.join(cwd, name)), exist_ok=True)
            os.symlink(os.path.join(self.source, name), os.path.join(cwd, name))
        os.symlink(os.path.join(self.scratch_root, "bin"), os.path.join(cwd, "build"))
        seed_files_from_cat(block, cwd)
        for example in block:
            entry = lookup(FIXTURE_FILES, example.command)
            for name, text in (entry[1].items() if entry else ()):
                with open(os.path.join(cwd, name), "w", encoding="utf-8") as f:
                    f.write(text)
        return cwd

    def run_block(self, block):
        """The block's commands in README order in one directory, each with the
        exit status of the one before it in `$?`, as in the shell session the
        README shows."""
        cwd = self.prepare(block)
        port = None
        prev_status, prev_skipped = 0, False
        backgrounds = []
        try:
            for example in block:
                reason = self.skip_reason(example, prev_skipped)
                prev_skipped = reason is not None
                if reason:
                    self.skipped.append((example, reason))
                    continue
                command = example.command
                if EXPORTER_ADDR in command:
                    port = port or free_port()
                    command = command.replace(EXPORTER_ADDR, f"127.0.0.1:{port}")
                self.ran.append(example)
                if is_background(command):
                    backgrounds.append((example, Background(command, cwd, self.env)))
                    prev_status = 0
                    continue
                out, prev_status, timed_out = run_foreground(command, cwd, self.env, prev_status)
                if timed_out:
                    self.failures.append(describe(example, f"timed out after {COMMAND_TIMEOUT_S} s", out))
                else:
                    self.check(example, out, cwd)
        finally:
            for example, background in backgrounds:
                ready = background.ready
                out = background.stop()
                if not ready:
                    self.failures.append(describe(example, "printed no line before the next command ran", out))
                else:
                    self.check(example, out, cwd)

    def check(self, example, out, cwd):
        failure = compare(example, out, self.hosts, cwd)
        if failure:
            self.failures.append(failure)


def stale_entries(examples):
    """Table entries that match no command of the README: the tables must
    stay in step with it."""
    stale = []
    for name, table in (("SKIPS", SKIPS), ("CONDITIONS", CONDITIONS), ("FIXTURE_FILES", FIXTURE_FILES)):
        for entry in table:
            if not any(entry[0] in e.command for e in examples):
                stale.append(f"{name} entry {entry[0]!r} matches no command of README.md: remove it")
    return stale


def main(argv):
    if len(argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    railkit, source, shared = os.path.abspath(argv[1]), os.path.abspath(argv[2]), argv[3]
    if not os.access(railkit, os.X_OK):
        print(f"FAIL: {railkit}: not an executable railkit")
        return 1
    blocks = parse_readme(os.path.join(source, "README.md"))

    scratch_root = tempfile.mkdtemp(prefix="railkit-readme-")
    try:
        bindir = os.path.join(scratch_root, "bin")
        os.mkdir(bindir)
        os.symlink(railkit, os.path.join(bindir, "railkit"))
        session = Session(source, shared, scratch_root, clean_env(bindir))
        if session.have_shared:
            os.symlink(os.path.abspath(shared), os.path.join(scratch_root, "shared"))
        session.failures.extend(stale_entries([e for block in blocks for e in block]))
        started = time.monotonic()
        for block in blocks:
            session.run_block(block)
        elapsed = time.monotonic() - started
    finally:
        shutil.rmtree(scratch_root, ignore_errors=True)

    # Every command not in SKIPS was run (and an unlisted one that can not run
    # here fails); what is left to say is which ran and why the others did not.
    for example, reason in session.skipped:
        print(f"SKIP README.md:{example.line}: {example.command}\n     ({reason})")
    for example in session.ran:
        print(f"RUN  README.md:{example.line}: {example.command}")
    for failure in session.failures:
        print("\nFAIL " + failure)
    print(f"\n{len(session.ran)} example(s) run in {elapsed:.1f} s, {len(session.skipped)} skipped, "
          f"{len(session.failures)} failure(s)")
    if session.failures:
        return 1
    if not session.ran:
        print("SKIP: no README example could run here")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
