"""README.md's examples and their output's shape (readme_examples_test.py).

parse_readme reads the fenced blocks into examples ("$ " command, the lines
shown after it); compare says whether what a command printed has the shape
the README shows: numbers, addresses, ports, durations, hex ids, the host
name and the scratch path normalised away on both sides, a "..." line for
any number of lines, a line ending in "..." for any line starting so, and
the status an `echo $?` prints compared exactly.
"""

import re
import sys

class Example:
    def __init__(self, line, command, shown, shown_lines):
        self.line = line            # README line of the "$ " command
        self.command = command
        self.shown = shown          # shown output lines
        self.shown_lines = shown_lines  # README line of each shown output line


def parse_readme(path):
    """Blocks of examples: [[Example, ...], ...] in README order."""
    blocks = []
    in_fence = False
    current = None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for number, text in enumerate(lines, start=1):
        if text.startswith("```"):
            if in_fence:
                if current:
                    blocks.append(current)
                current = None
            in_fence = not in_fence
            current = [] if in_fence else None
            continue
        if not in_fence:
            continue
        if text.startswith("$ "):
            command = text[2:]
            # "$ # ..." is a comment in the session, not a command.
            if command.lstrip().startswith("#"):
                current.append(None)  # ends the previous command's output
                continue
            current.append(Example(number, command, [], []))
        elif current and current[-1] is not None:
            current[-1].shown.append(text)
            current[-1].shown_lines.append(number)
    return [[e for e in block if e is not None] for block in blocks if any(block)]


def strip_comment(command):
    """The command without a trailing `# comment` (outside quotes: good enough
    for deciding what the command ends with)."""
    return re.sub(r"\s+#[^'\"]*$", "", command).rstrip()


def ends_with_echo_status(command):
    return strip_comment(command).endswith("echo $?")


def is_background(command):
    stripped = strip_comment(command)
    return stripped.endswith("&") and not stripped.endswith("&&")


# --- normalisation --------------------------------------------------------

HEX_ID = re.compile(r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b")
HEX_NUMBER = re.compile(r"\b0x[0-9a-fA-F]+\b")
# A number standing alone (not part of a name such as mlx5_0, ib0 or gpu7):
# integers, decimals, dotted versions and addresses with a port, exponents, and
# a duration's or ratio's unit glued to it (1.0s, 5000ms, 1.41x, 80%).
NUMBER = re.compile(r"(?<![\w.])\d+(?:[.:]\d+)*(?:[eE][-+]?\d+)?(?:ns|us|ms|s|x|%)?(?!\w)")
README_HOST = "vm"


def normalise(line, hosts, scratch):
    line = line.rstrip("\r").rstrip()
    if scratch:
        line = line.replace(scratch, "<scratch>")
    for host in hosts:
        line = re.sub(r"(?<![\w.-])" + re.escape(host) + r"(?![\w-])", "<host>", line)
    line = HEX_NUMBER.sub("<n>", line)
    line = HEX_ID.sub("<hex>", line)
    line = NUMBER.sub("<n>", line)
    body = line.lstrip()
    indent = line[: len(line) - len(body)]
    # Columns are padded to their widest value, so runs of blanks vary with
    # the numbers: one blank stands for any run. Indentation is kept (YAML
    # nesting is shape), except before a table row that starts with a number:
    # nccl-tests right-aligns it.
    body = re.sub(r"\s+", " ", body)
    if body.startswith("<n>"):
        indent = ""
    return indent + body


class Pattern:
    """One shown output line: "..." any lines, "text..." a line starting with
    text, else the line itself."""

    def __init__(self, raw, readme_line, hosts):
        self.raw = raw
        self.readme_line = readme_line
        stripped = raw.strip()
        if stripped == "...":
            self.kind, self.text = "any", ""
        elif raw.rstrip().endswith("..."):
            self.kind = "prefix"
            self.text = normalise(raw.rstrip()[:-3], hosts, None)
        else:
            self.kind, self.text = "exact", normalise(raw, hosts, None)

    def matches(self, found):
        if self.kind == "prefix":
            return found.startswith(self.text)
        return found == self.text


def match(patterns, found):
    """Whether the found lines match the patterns. On a mismatch, also the
    furthest pattern any attempt reached and the first found line it was tried
    on: where the output stops looking like the README."""
    memo = {}
    furthest = [0, 0]  # pattern index, found index

    def go(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i > furthest[0] or (i == furthest[0] and j < furthest[1]):
            furthest[:] = [i, j]
        if i == len(patterns):
            result = j == len(found)
        elif patterns[i].kind == "any":
            result = any(go(i + 1, k) for k in range(j, len(found) + 1))
        else:
            result = j < len(found) and patterns[i].matches(found[j]) and go(i + 1, j + 1)
        memo[key] = result
        return result

    sys.setrecursionlimit(max(10000, 4 * (len(patterns) + len(found))))
    ok = go(0, 0)
    return ok, tuple(furthest)


def describe(example, what, out, limit=40):
    lines = out.rstrip("\n").split("\n") if out else []
    text = f"README.md:{example.line}: $ {example.command}\n  {what}"
    if lines:
        text += f"\n  its output (first {min(limit, len(lines))} of {len(lines)} line(s)):\n"
        text += "\n".join("    | " + line for line in lines[:limit])
    return text


def without_trailing_blanks(lines):
    lines = list(lines)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def compare(example, out, hosts, cwd):
    """None when the output has the shown output's shape, else what differs."""
    # Blank lines at the end are invisible in a terminal and in the README.
    found_raw = without_trailing_blanks(out.split("\n"))
    shown = without_trailing_blanks(example.shown)
    patterns = [Pattern(raw, n, hosts) for raw, n in zip(shown, example.shown_lines)]
    found = [normalise(line, hosts, cwd) for line in found_raw]
    ok, (i, j) = match(patterns, found)
    if not ok:
        if i < len(patterns):
            p = patterns[i]
            where = f"shown line README.md:{p.readme_line}"
            expected = p.text + ("..." if p.kind == "prefix" else "")
        else:
            where, expected = "after the last shown line", "<end of output>"
        if 0 < i <= len(patterns) and patterns[i - 1].kind == "any":
            got = f"no line from output line {j + 1} on matches"
        elif j < len(found):
            got = f"{found[j]}   (output line {j + 1})"
        else:
            got = "<end of output>"
        return describe(example, f"first difference ({where}, normalised):\n"
                                 f"    expected: {expected}\n    found:    {got}", out)
    # `echo $?` prints an exit status: that number is the point, compared as is.
    if ends_with_echo_status(example.command):
        want = shown[-1].strip() if shown else "<nothing>"
        got = found_raw[-1].strip() if found_raw else "<nothing>"
        if want != got:
            return describe(example, f"exit status printed by `echo $?`: README shows {want}, found {got}", out)
    return None
