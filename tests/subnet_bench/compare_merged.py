#!/usr/bin/env python3
"""Checks that a merged report folder is byte-identical to one run's apart from wall times and the
shard list (docs/bench.md, "Farms").

Usage: compare_merged.py SINGLE_DIR MERGED_DIR

SINGLE_DIR holds the reports of one run of the whole suite or sweep (`npu bench`, or `npu opcheck
--report`), MERGED_DIR those `npu merge` wrote from the shards of the same run. Every report file
is compared as text after masking exactly these: wall times (seconds, JUnit time attributes, the
time column, the summary line's "; 1.2 s"), the shard label of the summary line (", merged from 3
shards"), the merged report's "Shards:" line and its JSON "shards" list, the JSON "shard"
value, and the time and host of the provenance (the merge stamps its own: the JSON
"provenance" object's time_utc and host, the Markdown/HTML provenance line's " at ... on ...",
the JUnit provenance.time_utc and provenance.host properties). Tool, commit and hardware hash
are compared. Prints the first differing line of each file that differs; exit 1 if any does.
"""
import json
import os
import re
import sys

SHARD_LABEL = re.compile(r", (merged from \d+ shards?|shard \d+/\d+)(?=\))")
SUMMARY_TIME = re.compile(r"; \d+\.\d s(?=\n|<|$)", re.M)
# " at 2026-11-25T16:12:38Z on host" of a Markdown/HTML provenance line.
PROVENANCE_WHEN = re.compile(r" at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ on [^<*\n]*")


def mask_text(name, text):
    text = SHARD_LABEL.sub("", text)
    text = SUMMARY_TIME.sub("; T s", text)
    text = PROVENANCE_WHEN.sub(" at T on H", text)
    if name.endswith(".md"):
        text = re.sub(r"^- Shards: .*\n", "", text, flags=re.M)
        text = re.sub(r"\| \d+\.\d \|$", "| T |", text, flags=re.M)  # the time column
    elif name.endswith(".html"):
        text = re.sub(r"^<p>Shards: .*</p>\n", "", text, flags=re.M)
        text = re.sub(r"<td>\d+\.\d</td></tr>$", "<td>T</td></tr>", text, flags=re.M)
    elif name.endswith(".xml"):
        text = re.sub(r'time="\d+\.\d+"', 'time="T"', text)
        text = re.sub(r'(<property name="shard" value=")[^"]*"', r'\1S"', text)
        text = re.sub(r'(<property name="provenance\.(time_utc|host)" value=")[^"]*"', r'\1X"', text)
    return text


def mask_json(text):
    json.loads(text)  # well-formed
    text = re.sub(r'^  "shards": \[\n(.*\n)*?  \],\n', "", text, flags=re.M)
    text = re.sub(r'^( *"seconds": )[0-9.e+-]+', r"\1T", text, flags=re.M)
    text = re.sub(r'^(    "(time_utc|host)": )"[^"]*"', r'\1"X"', text, flags=re.M)
    return re.sub(r'^( *"shard": )"[^"]*"', r'\1"S"', text, flags=re.M)


def main():
    single, merged = sys.argv[1], sys.argv[2]
    names = sorted(os.listdir(single))
    if sorted(os.listdir(merged)) != names:
        print(f"files differ: {single}: {names}, {merged}: {sorted(os.listdir(merged))}")
        return 1
    status = 0
    for name in names:
        a = open(os.path.join(single, name), encoding="utf-8").read()
        b = open(os.path.join(merged, name), encoding="utf-8").read()
        if name.endswith(".json"):
            a, b = mask_json(a), mask_json(b)
        else:
            a, b = mask_text(name, a), mask_text(name, b)
        if a != b:
            status = 1
            for n, (x, y) in enumerate(zip(a.splitlines() + [""], b.splitlines() + [""]), 1):
                if x != y:
                    print(f"{name}:{n}: single: {x}\n{name}:{n}: merged: {y}")
                    break
    return status


if __name__ == "__main__":
    sys.exit(main())
