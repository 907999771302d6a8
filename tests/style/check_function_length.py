#!/usr/bin/python3
"""Holds functions to a length a reader can take in: at most LIMIT lines.

usage: check_function_length.py SOURCE_DIR ALLOWLIST [DIR ...]

Scans the .cpp files under each DIR of SOURCE_DIR (default: compiler simulator runtime). A
function definition is a clang-formatted one: its signature starts at column 0 (or, for a member
function defined in a class body, two spaces in) and its body ends at the first line that is a
lone "}" at that indentation after it. Generated tables and data tables are
excepted by name in ALLOWLIST, with every function still over the limit: one line
"path:function lines" each. A function over the limit that is not listed, or longer than its
listed length, fails; so does a listed one that is now short enough (take it off the list).
Exits 1 with one line per problem.
"""
import os
import re
import sys

LIMIT = 120
# A definition's first line: a return type and a name at column 0, not a declaration, macro,
# namespace, class, or a statement.
START = re.compile(r"^(?!namespace|class|struct|enum|using|template|typedef|#|//|}|static_assert)"
                   r"[A-Za-z_].*\b([A-Za-z_][\w:~<>]*)\(")


KEYWORDS = {"if", "for", "while", "switch", "return", "else", "do", "catch", "case", "sizeof"}


def class_bodies(lines):
    """Line ranges [first, last) of the bodies of classes and structs defined at column 0."""
    ranges = []
    i = 0
    while i < len(lines):
        if re.match(r"^(class|struct) \w+[^;]*\{$", lines[i]):
            end = i + 1
            while end < len(lines) and not lines[end].startswith("};"):
                end += 1
            ranges.append((i + 1, end))
            i = end
        i += 1
    return ranges


def definitions(lines, first, last, indent):
    """(name, first line, length) of the definitions at `indent` between lines first and last."""
    i = first
    while i < last:
        line = lines[i]
        body = line[len(indent):]
        match = START.match(body) if line.startswith(indent) else None
        if not match or body[:1].isspace() or line.rstrip().endswith(";") or \
                match.group(1) in KEYWORDS:
            i += 1
            continue
        # The signature may span lines: it ends at a line ending in "{" (the body) or ";".
        j = i
        while j < last and not lines[j].rstrip().endswith(("{", ";")):
            j += 1
        if j >= last or lines[j].rstrip().endswith(";") or lines[j].rstrip().endswith("= {"):
            i = j + 1
            continue
        end = j + 1
        while end < last and lines[end] != indent + "}":
            end += 1
        yield match.group(1).split("::")[-1], i + 1, end - i + 1
        i = end + 1


def functions(path):
    """(name, first line, length) of every function defined at column 0, and of every member
    function defined inside a class or struct body at column 0 (two spaces in)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    yield from definitions(lines, 0, len(lines), "")
    for first, last in class_bodies(lines):
        yield from definitions(lines, first, last, "  ")


def main():
    source, allowlist_path = sys.argv[1], sys.argv[2]
    dirs = sys.argv[3:] or ["compiler", "simulator", "runtime"]
    allowed = {}
    for line in open(allowlist_path, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if line:
            key, length = line.rsplit(" ", 1)
            allowed[key] = int(length)
    problems = []
    seen = set()
    for top in dirs:
        for dirpath, _, names in os.walk(os.path.join(source, top)):
            for name in sorted(names):
                if not name.endswith(".cpp"):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, source)
                for function, first, length in functions(path):
                    key = f"{rel}:{function}"
                    if length <= LIMIT:
                        continue
                    seen.add(key)
                    if key not in allowed:
                        problems.append(f"{rel}:{first}: {function} is {length} lines "
                                        f"(limit {LIMIT}): split it")
                    elif length > allowed[key]:
                        problems.append(f"{rel}:{first}: {function} grew to {length} lines "
                                        f"(listed at {allowed[key]}): split it")
    for key in sorted(set(allowed) - seen):
        problems.append(f"{allowlist_path}: {key} is within {LIMIT} lines now: remove its line")
    for problem in problems:
        print(problem)
    if not problems:
        print(f"function length: none over {LIMIT} lines but the {len(allowed)} listed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
