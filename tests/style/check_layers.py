#!/usr/bin/python3
"""Holds the library link graph to docs/architecture.md's layer table.

usage: check_layers.py LINK_GRAPH ARCHITECTURE_MD

LINK_GRAPH is the build's link_graph.txt ("npu_x: npu_y npu_z" per library, written by the top
CMakeLists.txt). The layer table lists one library per row, in order; every library may link only
libraries of rows above its own, and every library of the graph must have a row. Exits 1 with one
line per violation.
"""
import re
import sys


def table_order(markdown):
    order = []
    in_table = False
    for line in markdown.splitlines():
        if line.startswith("## Layers"):
            in_table = True
            continue
        if in_table and line.startswith("## "):
            break
        match = re.match(r"\|\s*`[^`]+`\s*\|\s*`(npu_\w+)`", line)
        if in_table and match:
            order.append(match.group(1))
    return order


def main():
    graph_path, doc_path = sys.argv[1], sys.argv[2]
    order = table_order(open(doc_path).read())
    problems = []
    if not order:
        problems.append(f"{doc_path}: no layer table found")
    for line in open(graph_path):
        library, _, deps = line.strip().partition(":")
        if not library:
            continue
        if library not in order:
            problems.append(f"{library} has no row in the layer table of {doc_path}")
            continue
        for dep in deps.split():
            if dep not in order:
                problems.append(f"{library} links {dep}, which has no row in the layer table")
            elif order.index(dep) >= order.index(library):
                problems.append(f"{library} links {dep}, which the layer table lists below it")
    for problem in problems:
        print(problem)
    if not problems:
        print(f"layers: {len(order)} libraries, every link points up the table")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
