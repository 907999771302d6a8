#!/usr/bin/env python3
"""Merges JUnit XML files (e.g. the junit.xml of each `npu bench --shard i/n` run) into one.

Usage: scripts/merge_junit.py -o merged.xml shard1/junit.xml shard2/junit.xml ...

Every <testsuite> of every input (under a <testsuites> root or as the root itself) goes under
one <testsuites> root whose tests/failures/errors/skipped/time are the sums. Prints one summary
line; with --check, exits 1 when any test failed or errored (a CI gate after the matrix).
"""
import argparse
import sys
import xml.etree.ElementTree as ET


def suites_of(path):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        sys.exit(f"merge_junit: {path}: {e}")
    if root.tag == "testsuite":
        return [root]
    if root.tag == "testsuites":
        return list(root.iter("testsuite"))
    sys.exit(f"merge_junit: {path}: root element is <{root.tag}>, not <testsuites> or <testsuite>")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", required=True, help="merged file to write")
    parser.add_argument("--name", default="npu bench", help="name of the merged <testsuites>")
    parser.add_argument("--check", action="store_true", help="exit 1 on any failure or error")
    parser.add_argument("inputs", nargs="+", help="JUnit XML files")
    args = parser.parse_args()

    merged = ET.Element("testsuites", name=args.name)
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    time = 0.0
    for path in args.inputs:
        for suite in suites_of(path):
            cases = suite.findall("testcase")
            # Counts from the attributes when present, else from the test cases themselves.
            counted = {
                "tests": len(cases),
                "failures": sum(1 for c in cases if c.find("failure") is not None),
                "errors": sum(1 for c in cases if c.find("error") is not None),
                "skipped": sum(1 for c in cases if c.find("skipped") is not None),
            }
            for key in totals:
                totals[key] += int(suite.get(key, counted[key]))
            time += float(suite.get("time", 0.0))
            merged.append(suite)
    for key, value in totals.items():
        merged.set(key, str(value))
    merged.set("time", f"{time:.3f}")
    ET.indent(merged)
    ET.ElementTree(merged).write(args.output, encoding="UTF-8", xml_declaration=True)
    print(f"{args.output}: {len(args.inputs)} files, {totals['tests']} tests, "
          f"{totals['failures']} failures, {totals['errors']} errors")
    if args.check and (totals["failures"] or totals["errors"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
