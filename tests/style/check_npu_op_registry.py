#!/usr/bin/python3
"""Checks the NPU op registry's rows against what the compiler cannot check itself.

usage: check_npu_op_registry.py SOURCE_DIR

compiler/include/npu/compiler/target/npu_ops.def: every NPU_OP row's docs anchor names a heading
of that docs/ file (GitHub's heading slugs), every NPU_OP family is an NPU_FAMILY row and every
family sweeps at least one op, every name is unique, every NPU_QOP type is some NPU_OP row's
type, and every lowering a row names is declared in compiler/codegen/lowering.h. (The compiler
checks the rest: the QOp variant and codegen's std::visit are generated from the rows.)
Exits 1 with one line per problem.
"""
import os
import re
import sys


def slug(heading):
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def headings(path):
    slugs = set()
    for line in open(path, encoding="utf-8"):
        match = re.match(r"^#+\s+(.*)$", line)
        if match:
            slugs.add(slug(match.group(1)))
    return slugs


def rows(text, macro):
    return [[c.strip().strip('"') for c in m.group(1).split(",")]
            for m in re.finditer(rf"^{macro}\((.*)\)", text, re.M)]


def main():
    source = sys.argv[1]
    registry = os.path.join(source, "compiler/include/npu/compiler/target/npu_ops.def")
    text = open(registry, encoding="utf-8").read()
    qops, ops, families = rows(text, "NPU_QOP"), rows(text, "NPU_OP"), rows(text, "NPU_FAMILY")
    lowering_h = open(os.path.join(source, "compiler/codegen/lowering.h"), encoding="utf-8").read()
    problems = []
    family_names = [f[0] for f in families]
    for op, name, qtype, family, anchor in ops:
        doc, _, fragment = anchor.partition("#")
        path = os.path.join(source, "docs", doc)
        if not os.path.exists(path):
            problems.append(f"{registry}: op {op}: docs/{doc} does not exist")
        elif fragment not in headings(path):
            problems.append(f"{registry}: op {op}: docs/{doc} has no heading '#{fragment}'")
        if family not in family_names:
            problems.append(f"{registry}: op {op}: family {family} has no NPU_FAMILY row")
        if qtype not in [q[0] for q in qops]:
            problems.append(f"{registry}: op {op}: type {qtype} has no NPU_QOP row")
    for kind, column in (("op", 0), ("name", 1)):
        values = [o[column] for o in ops]
        for value in sorted({v for v in values if values.count(v) > 1}):
            problems.append(f"{registry}: {kind} '{value}' has two NPU_OP rows")
    for family in family_names:
        if family not in [o[3] for o in ops]:
            problems.append(f"{registry}: family {family} sweeps no NPU_OP row")
    for qtype, lowering in qops:
        if qtype not in [o[2] for o in ops]:
            problems.append(f"{registry}: type {qtype} is no NPU_OP row's type")
        if not re.search(rf"\bvoid {lowering}\(LoweringContext& ctx, const {qtype}&", lowering_h):
            problems.append(f"{registry}: {qtype}'s lowering {lowering} is not declared in "
                            f"compiler/codegen/lowering.h")
    for problem in problems:
        print(problem)
    if not problems:
        print(f"npu op registry: {len(ops)} ops, {len(qops)} quantized types, "
              f"{len(families)} families, every anchor found")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
