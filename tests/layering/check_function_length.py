#!/usr/bin/env python3
"""Fails naming each function in the given tree longer than the limit.

STYLE.md keeps functions under 80 lines. This reads the sources, not a
compiler's view of them: it blanks comments, string and character literals
(raw strings included) and preprocessor lines, then matches braces. A brace
opened at namespace, class or extern "C" scope after a head holding a
parameter list (or a lambda assigned at that scope) is a function body; its
length runs from the line of its opening brace to the line of its closing one,
so a lambda counts toward the function that holds it. Brace-initialised data
(tables) is not a function and is not counted.

usage: check_function_length.py [--limit N] DIR...
"""
import os
import re
import sys

LIMIT = 80
SUFFIXES = ('.cc', '.cpp', '.h', '.hpp')
IDENT = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')
RAW_PREFIX = re.compile(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(')


def blank(text):
    """Returns text with comments, literals and directives replaced by spaces,
    newlines kept so line numbers still hold."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == '#':
            # A directive runs to an unescaped end of line.
            while i < n and not (text[i] == '\n' and text[i - 1] != '\\'):
                out.append('\n' if text[i] == '\n' else ' ')
                i += 1
            continue
        if c == '\n':
            out.append(c)
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith('//', i):
            while i < n and text[i] != '\n':
                out.append(' ')
                i += 1
            continue
        if text.startswith('/*', i):
            end = text.find('*/', i + 2)
            end = n if end < 0 else end + 2
            out.extend('\n' if ch == '\n' else ' ' for ch in text[i:end])
            i = end
            continue
        m = RAW_PREFIX.match(text, i)
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            close = ')' + m.group(1) + '"'
            end = text.find(close, m.end())
            end = n if end < 0 else end + len(close)
            out.append('""')
            out.extend('\n' if ch == '\n' else ' ' for ch in text[i + 2:end])
            i = end
            continue
        if c.isdigit():
            # A pp-number, digit separators (1'000) included.
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "._'" or
                             (text[j] in '+-' and text[j - 1] in 'eEpP')):
                j += 1
            out.append(text[i:j].replace("'", ' '))
            i = j
            continue
        if c.isalpha() or c == '_':
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == '_'):
                j += 1
            out.append(text[i:j])
            i = j
            continue
        if c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(c + ' ' * (min(j, n) - i - 1) + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return ''.join(out)


def head_kind(head):
    """What a brace opened at declaration scope after `head` opens."""
    words = IDENT.findall(head)
    if 'namespace' in words:
        return 'scope', None
    if re.search(r'\bextern\s*"\s*"\s*$', head):
        return 'scope', None
    depth = 0
    angles = 0  # template parameter lists: `template <typename T = int>`
    first_paren = None
    has_eq = False
    for k, ch in enumerate(head):
        if ch == '(' and depth == 0 and first_paren is None:
            first_paren = k
        if ch == '(':
            depth += 1
        elif ch == ')':
            depth -= 1
        elif ch == '<' and first_paren is None:
            angles += 1
        elif ch == '>' and first_paren is None and angles > 0:
            angles -= 1
        elif ch == '=' and depth == 0 and angles == 0 and first_paren is None:
            prev = head[k - 1] if k else ''
            nxt = head[k + 1] if k + 1 < len(head) else ''
            if prev not in '=!<>' and nxt != '=' and 'operator' not in words:
                has_eq = True
    if has_eq:
        lam = re.search(r'=\s*\[[^\]]*\]', head)
        if lam:
            name = IDENT.findall(head[:lam.start()])
            return 'function', (name[-1] if name else '<lambda>')
        return 'data', None
    if first_paren is None:
        if re.search(r'\b(class|struct|union)\b', head) and not re.search(r'\benum\b', head):
            return 'scope', None
        return 'data', None
    before = head[:first_paren].rstrip()
    m = re.search(r'(operator\s*\S+|~?[A-Za-z_][A-Za-z0-9_]*)$', before)
    qual = re.search(r'((?:[A-Za-z_][A-Za-z0-9_]*\s*(?:<[^<>]*>)?\s*::\s*)*)$', before[:m.start()] if m else '')
    name = (qual.group(1).replace(' ', '') if qual else '') + (m.group(1) if m else '?')
    return 'function', name


LAMBDA_HEAD = re.compile(r'\[[^\[\]]*\]\s*(\([^()]*(\([^()]*\)[^()]*)*\))?[^(){}\[\]]*$')
MEMBER_INIT = re.compile(r'\)[^()]*?:(?!:)')


def matching(src, k):
    """Index of the brace closing the one at k."""
    depth = 0
    for j in range(k, len(src)):
        if src[j] == '{':
            depth += 1
        elif src[j] == '}':
            depth -= 1
            if depth == 0:
                return j
    return len(src) - 1


def functions(text):
    """Yields (name, first line, last line) of each function body."""
    src = blank(text)
    line_of = [0] * (len(src) + 1)
    line = 1
    for k, ch in enumerate(src):
        line_of[k] = line
        if ch == '\n':
            line += 1
    stack = []  # kinds of the open braces: scope or data
    head_start = 0
    k = 0
    while k < len(src):
        ch = src[k]
        in_data = bool(stack) and stack[-1] == 'data'
        if ch == ';' or (in_data and ch == ','):
            head_start = k + 1
        elif ch == '{':
            head = src[head_start:k]
            if in_data:
                lam = LAMBDA_HEAD.search(head)
                kind, name = ('function', '<lambda>') if lam else ('data', None)
            else:
                kind, name = head_kind(head)
            if kind == 'function' and MEMBER_INIT.search(head) and re.search(r'[\w>]\s*$', head):
                # A member's brace initialiser in a constructor's list
                # (`: a_{1}, b_(2) {`): still the head.
                k = matching(src, k) + 1
                continue
            if kind == 'function':
                end = matching(src, k)
                yield name, line_of[k], line_of[end]
                k = end + 1
                head_start = k
                continue
            stack.append(kind)
            head_start = k + 1
        elif ch == '}':
            if stack:
                stack.pop()
            head_start = k + 1
        k += 1


def scan(root, limit):
    long_ones = []
    for dirpath, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(SUFFIXES):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding='utf-8', errors='replace') as fh:
                text = fh.read()
            for name, first, last in functions(text):
                if last - first + 1 > limit:
                    long_ones.append((os.path.relpath(path, root), first, name, last - first + 1))
    return long_ones


def main(argv):
    limit = LIMIT
    if len(argv) > 2 and argv[1] == '--limit':
        limit = int(argv[2])
        argv = argv[2:]
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    found = []
    for root in argv[1:]:
        found += [(root,) + r for r in scan(root, limit)]
    for root, path, first, name, n in sorted(found, key=lambda r: -r[4]):
        print(f'function over {limit} lines: {name} ({n} lines) at {os.path.join(root, path)}:{first}')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
