#!/usr/bin/python3
"""Holds the includes inside compiler/ to docs/architecture.md's table of compiler stages.

usage: check_compiler_stages.py COMPILER_DIR ARCHITECTURE_MD

The table "Inside compiler/" lists one stage folder per row, from the bottom up (as the library
table does). A file of stage S (compiler/S/... or compiler/include/npu/compiler/S/...) may include
`npu/compiler/T/...` only when T is S or a row above S: partition may read the op registry in
target/, never codegen. Every stage folder must have a row. Exits 1 with one line per violation.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"npu/compiler/(\w+)/')


def stage_order(markdown):
    order = []
    in_table = False
    for line in markdown.splitlines():
        if line.startswith("### Inside compiler/"):
            in_table = True
            continue
        if in_table and line.startswith("#"):
            break
        match = re.match(r"\|\s*`(\w+)/`\s*\|", line)
        if in_table and match:
            order.append(match.group(1))
    return order


def stage_files(compiler_dir):
    """(stage, path) for every source and header of a stage folder."""
    roots = [(compiler_dir, 0), (os.path.join(compiler_dir, "include", "npu", "compiler"), 0)]
    for root, _ in roots:
        for stage in sorted(os.listdir(root)):
            folder = os.path.join(root, stage)
            if not os.path.isdir(folder) or stage == "include":
                continue
            for dirpath, _, names in os.walk(folder):
                for name in sorted(names):
                    if name.endswith((".h", ".cpp", ".def")):
                        yield stage, os.path.join(dirpath, name)


def main():
    compiler_dir, doc_path = sys.argv[1], sys.argv[2]
    order = stage_order(open(doc_path).read())
    problems = []
    if not order:
        problems.append(f"{doc_path}: no 'Inside compiler/' table found")
    files = 0
    for stage, path in stage_files(compiler_dir):
        files += 1
        if stage not in order:
            problems.append(f"{path}: stage '{stage}' has no row in {doc_path}")
            continue
        for number, line in enumerate(open(path, encoding="utf-8"), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = match.group(1)
            if target not in order:
                problems.append(f"{path}:{number}: includes stage '{target}', which has no row")
            elif order.index(target) > order.index(stage):
                problems.append(f"{path}:{number}: {stage} includes {target}, a stage below it "
                                f"in the table (includes run up the table only)")
    for problem in problems:
        print(problem)
    if not problems:
        print(f"compiler stages: {len(order)} stages, {files} files, every include runs up")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
