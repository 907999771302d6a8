#!/usr/bin/env python3
"""Generates the output folders of N shards from one real run's, to measure `npu merge` at scale
(docs/farm.md, "Scale").

Usage: make_shards.py bench|opcheck TEMPLATE N OUT

TEMPLATE is the output folder of one unsharded run (`npu bench --out TEMPLATE`, or `npu opcheck
... --report TEMPLATE`). OUT/shard-1 .. OUT/shard-N become the shards of a run N times as large:
for bench, every shard holds the template's subnets under new names (a suite of N x k subnets);
for opcheck, every shard holds the template's counts (a sweep of N x count cases). Each shard
carries the template's tools, suite and settings, so `npu merge OUT/shard-* --out M` takes them.
"""
import json
import os
import sys


def bench_shards(template, count, out):
    base = json.load(open(os.path.join(template, "bench.json")))
    subnets = base["subnets"]
    k = len(subnets)
    for i in range(1, count + 1):
        shard = dict(base, shard=f"{i}/{count}", filtered_subnets=count * k)
        shard["subnets"] = [
            dict(s, name=f"{s['name']}_{i}", index=j * count + i - 1) for j, s in enumerate(subnets)
        ]
        write(out, i, "bench.json", shard)


def opcheck_shards(template, count, out):
    base = json.load(open(os.path.join(template, "opcheck.json")))
    for i in range(1, count + 1):
        write(out, i, "opcheck.json", dict(base, shard=f"{i}/{count}", count=count * base["count"]))


def write(out, i, name, data):
    folder = os.path.join(out, f"shard-{i}")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("bench", "opcheck"):
        sys.exit(__doc__.split("\n\n")[1])
    kind, template, count, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    (bench_shards if kind == "bench" else opcheck_shards)(template, count, out)


if __name__ == "__main__":
    main()
