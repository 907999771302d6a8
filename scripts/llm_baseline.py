#!/usr/bin/python3
"""Where the graphs of scripts/export_llm.py run under a partition strategy (issue 39): per graph
the segments, the NPU and host op counts by op type of the folded IR, cycles and MAC utilization
as `npu run` reports them, and every host op with the partitioner's reason, as Markdown.

For each GRAPH (default: llama_decode llama_prefill gpt2_decode) it runs, in --work:
    NPU import GRAPH.onnx --dump > GRAPH.ir.txt                (the op type of every node)
    NPU run GRAPH.onnx --calib GRAPH.calib --data GRAPH.data --out GRAPH.run [--config CONFIG]
and reads GRAPH.run/report.json (partition, performance, layers) and the "On the host" list of
GRAPH.run/report.md (each host op's reason). A host node of several layers is listed once with
their indices (/layers.{0,1}/self_attn/Neg). Missing exports are made first with
scripts/export_llm.py's defaults.

    scripts/export_llm.py --out build/llm
    scripts/llm_baseline.py --npu build/npu --work build/llm > baseline.md
"""
import argparse
import collections
import contextlib
import json
import os
import re
import subprocess
import sys

import export_llm

GRAPHS = ["llama_decode", "llama_prefill", "gpt2_decode"]
NODE_LINE = re.compile(r"\s+%.*? = (\w+)\[(.+?)\]\(")
HOST_LINE = re.compile(r"^  (\S+) \((\w+)\): (.*)$")
LAYER = re.compile(r"/(layers|h)\.\d+/")


def run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        lines = (result.stdout + result.stderr).strip().splitlines()
        sys.exit("%s: exit %d: %s" % (" ".join(cmd[:3]), result.returncode,
                                      lines[-1] if lines else ""))
    return result.stdout


def op_types(npu, model):
    """Node name -> op type in the IR after the front-end passes."""
    return {m.group(2): m.group(1) for m in map(NODE_LINE.match, run([npu, "import", model,
                                                                      "--dump"]).splitlines())
            if m}


def host_reasons(report_md):
    """Host node name -> (op, reason), from the partition section of report.md."""
    reasons, inside = {}, False
    with open(report_md) as f:
        for line in f:
            if line.startswith("On the host"):
                inside = True
            elif inside:
                m = HOST_LINE.match(line.rstrip("\n"))
                if not m:
                    break
                reasons[m.group(1)] = (m.group(2), m.group(3))
    return reasons


def graph_section(npu, work, graph, config):
    base = os.path.join(work, graph)
    types = op_types(npu, base + ".onnx")
    cmd = [npu, "run", base + ".onnx", "--calib", base + ".calib", "--data", base + ".data",
           "--out", base + ".run"] + (["--config", config] if config else [])
    run(cmd)
    with open(os.path.join(base + ".run", "report.json")) as f:
        report = json.load(f)
    part, perf = report["partition"], report["performance"]
    counts = collections.Counter((types.get(l["layer"], l["kind"]), l["device"])
                                 for l in report["layers"])
    lines = ["## %s" % graph, "", "```", " ".join(cmd), "```", ""]
    lines.append("- segments: %d (%d NPU, %d host); ops: %d NPU, %d host; MACs on the NPU: "
                 "%d of %d (%.1f%%)" % (
                     part["npu_segments"] + part["host_segments"], part["npu_segments"],
                     part["host_segments"], part["npu_ops"], part["host_ops"], part["npu_macs"],
                     part["npu_macs"] + part["host_macs"],
                     100.0 * part["npu_macs"] / max(1, part["npu_macs"] + part["host_macs"])))
    lines.append("- NPU: %d cycles, %d MACs, %.1f%% MAC utilization, %d DDR bytes; host: %d "
                 "modelled cycles (%d of them NPU/host borders)" % (
                     perf["total_cycles"], perf["total_macs"], 100 * perf["mac_utilization"],
                     perf["ddr_bytes"], perf["host_cycles"], perf["border_cycles"]))
    lines.append("- verification: %s, %d of %d inputs bit-exact" % (
        "PASS" if report["pass"] else "FAIL", report["bit_exact_inputs"], report["inputs"]))
    lines += ["", "| op type (IR after the passes) | NPU | host |", "|---|---:|---:|"]
    for op in sorted({op for op, _ in counts}):
        lines.append("| %s | %d | %d |" % (op, counts[(op, "npu")], counts[(op, "host")]))
    groups = collections.OrderedDict()
    for name, (op, reason) in host_reasons(os.path.join(base + ".run", "report.md")).items():
        m = LAYER.search(name)
        pattern = name[:m.start()] + "/%s.{}/" % m.group(1) + name[m.end():] if m else name
        layers = groups.setdefault((op, reason), collections.OrderedDict()).setdefault(
            pattern, [])
        if m:
            layers.append(m.group(0).split(".")[1].rstrip("/"))
    lines += ["", "Host ops (report.md's \"On the host\", in graph order; a node of several "
              "layers once, /layers.{0,1}/...):", "", "| op | reason | nodes |", "|---|---|---|"]
    for (op, reason), patterns in groups.items():
        text = ", ".join("`%s`" % (p.replace("{}", "{%s}" % ",".join(ls) if len(ls) > 1 else
                                             ls[0]) if ls else p)
                         for p, ls in patterns.items())
        lines.append("| %s | %s | %s |" % (op, reason, text))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--npu", default="build/npu", help="the npu executable")
    parser.add_argument("--work", default="build/llm", help="the exports of export_llm.py")
    parser.add_argument("--config", help="quantization config YAML for npu run (strategy)")
    parser.add_argument("graphs", nargs="*", metavar="GRAPH", default=GRAPHS,
                        help="graphs (default: %s)" % " ".join(GRAPHS))
    args = parser.parse_args()
    for graph in args.graphs:
        if not os.path.exists(os.path.join(args.work, graph + ".onnx")):
            model, _, kind = graph.rpartition("_")
            if model not in export_llm.MODELS or kind not in export_llm.GRAPHS:
                parser.error("unknown graph '%s' (MODEL_prefill or MODEL_decode, MODEL one of "
                             "%s)" % (graph, ", ".join(export_llm.MODELS)))
            with contextlib.redirect_stdout(sys.stderr):
                export_llm.main(["--out", args.work, "--graph", kind, model])
    for graph in args.graphs:
        sys.stdout.write(graph_section(args.npu, args.work, graph, args.config) + "\n")


if __name__ == "__main__":
    main()
