#!/usr/bin/env python3
"""Checks that every path of the tree a comment or a document names exists.

Usage: check-paths.py [ROOT]

Reads the comments of the C sources and headers (runner/, reporters/,
tests/, fixtures/), the comment lines of the shell, Python and make files,
and the whole text of the Markdown files (docs/, README.md, the folders'
own README files), and takes every word that starts with a top folder of
the tree (runner/, reporters/, tests/, docs/, scripts/, mk/, fixtures/):
that path must exist under ROOT, as a file or a folder. A path with a
placeholder in it (NAME, N, X, <...>, {...}, *, $VAR, ...) names a kind
of file, not one, and is left alone, and so is a path followed by one (tests/e2e/test_*.sh);
a module or program may be named by its stem (runner/results/store).
A few paths of a skill's repository named as examples (a skill's own
tests/suite.yaml) are listed in ELSEWHERE. Prints "FILE:LINE: PATH does not
exist" for each, and "paths ok (N checked)" when there is none; exits 1
when any is missing.
"""
import os
import re
import sys

TOPS = ("runner", "reporters", "tests", "docs", "scripts", "mk", "fixtures")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[A-Za-z0-9_./+-]*)" % "|".join(TOPS))
PLACEHOLDER = re.compile(r"[*$<>{}]|\.\.\.|…|(?:^|[/._-])(?:[A-Z]+|N|X|x|k|i)(?=$|[/._-])")
# Paths of a skill's repository, not of this tree, that the docs and
# comments name as examples (a skill's tests/, scripts/, fixtures/).
ELSEWHERE = {"tests/suite.yaml", "tests/suite.json", "tests/cases.json", "tests/commit.json",
             "tests/list.json", "scripts/run.sh", "scripts/stamp.sh", "fixtures/silu-bf16/"}
SKIP_DIRS = {".git", "build", "build-asan", "build-tsan", "node_modules", "corpus", "golden"}


def comments_c(text):
    """(line, text) of each comment of a C file, line by line."""
    out = []
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k, part in enumerate(text[i:j].split("\n")):
                out.append((line + k, part))
            line += text.count("\n", i, j)
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i:j]))
            i = j
        elif c in "\"'":
            # a string or character literal: skip it, escapes included
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        else:
            i += 1
    return out


def comments_hash(text):
    """(line, text) of the part after # of each line (shell, Python, make)."""
    out = []
    for k, l in enumerate(text.split("\n")):
        s = l.lstrip()
        if s.startswith("#"):
            out.append((k + 1, s))
        elif " # " in l:
            out.append((k + 1, l[l.index(" # "):]))
    return out


def whole(text):
    return [(k + 1, l) for k, l in enumerate(text.split("\n"))]


def files(root):
    for top in TOPS + (".",):
        base = os.path.join(root, top)
        if top == ".":
            for f in os.listdir(root):
                if f.endswith(".md") or f == "Makefile":
                    yield os.path.join(root, f)
            continue
        for d, dirs, names in os.walk(base):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
            for f in sorted(names):
                yield os.path.join(d, f)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    bad = checked = 0
    for path in files(root):
        rel = os.path.relpath(path, root)
        ext = os.path.splitext(path)[1]
        if ext in (".c", ".h", ".cu"):
            reader = comments_c
        elif ext in (".sh", ".py", ".mk") or os.path.basename(path) == "Makefile":
            reader = comments_hash
        elif ext == ".md":
            reader = whole
        else:
            continue
        try:
            text = open(path, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for line, part in reader(text):
            for m in PATH.finditer(part):
                p = m.group(1).rstrip(".,:;)")
                after = part[m.end():m.end() + 1]
                if PLACEHOLDER.search(p) or after in ("*", "<", "{", "$") or p in ELSEWHERE:
                    continue
                checked += 1
                full = os.path.join(root, p)
                # a module or a program named by its stem: runner/results/store,
                # tests/bench/bench_providers
                if not any(os.path.exists(full + e) for e in ("", ".c", ".h", ".sh", ".py")):
                    print("%s:%d: %s does not exist" % (rel, line, p))
                    bad += 1
    if bad:
        print("%d path%s named in comments and docs do not exist" % (bad, "" if bad == 1 else "s"))
        return 1
    print("paths ok (%d checked)" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
