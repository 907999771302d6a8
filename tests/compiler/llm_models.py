#!/usr/bin/python3
"""The tiny decoder-only language models of scripts/export_llm.py (issue 39) through the
toolchain: ctest compiler.llm_models.

Exports the Llama and GPT-2 prefill and decode-step graphs at small sizes (8 prompt tokens, a past
of 8, one padded position so the attention mask matters), plus a Llama with every alternative
spelling of the script (RMSNorm as a Div by Sqrt, rotary cos/sin gathered from a table and
applied to interleaved pairs, K/V heads repeated by repeat_interleave, tied embeddings). Then for
every graph:
  - `npu run GRAPH.onnx --calib GRAPH.calib --data GRAPH.data --save-outputs ...` must exit 0
    with every reference input bit-exact against golden (report.json: pass, bit_exact_inputs);
  - every graph output of the fp32 interpreter (NAME.fp32.npy) must match PyTorch's
    (GRAPH.torch/NAME.npy): relative error |fp32 - torch| / |torch| (2-norms over all reference
    inputs) at most --tolerance (default 1e-5; measured about 1e-6).
Prints one line per graph; a failure prints what differs and exits 1.

    tests/compiler/llm_models.py --npu build/npu --work build/llm-models
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
import export_llm  # noqa: E402

SMALL = ["--seq-len", "8", "--past-len", "8", "--pad", "1", "--calib", "4", "--eval", "2"]
EXPORTS = {
    "default": [],
    "llama_alt": ["--rmsnorm", "div", "--rope", "table", "--rope-pairs", "interleaved",
                  "--repeat-kv", "interleave", "--tie-embeddings", "llama"],
}


def run_graph(npu, folder, stem, mode):
    """Runs the graph through npu run; returns (failures, figures text)."""
    base = os.path.join(folder, stem)
    out = base + ".run"
    cmd = [npu, "run", base + ".onnx", "--calib", base + ".calib", "--data", base + ".data",
           "--mode", mode, "--out", out, "--save-outputs", os.path.join(out, "outputs"),
           "--quiet"]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        lines = (result.stdout + result.stderr).strip().splitlines()
        return ["npu run exited %d: %s" % (result.returncode, lines[-1] if lines else "")], ""
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    failures = []
    if not report["pass"] or report["bit_exact_inputs"] != report["inputs"]:
        failures.append("not bit-exact: %d of %d inputs (first mismatch: %s)" % (
            report["bit_exact_inputs"], report["inputs"], report["first_mismatch"]))
    part = report["partition"]
    figures = "%d+%d segments, %d cycles" % (part["npu_segments"], part["host_segments"],
                                              report["performance"]["total_cycles"])
    return failures, figures


# The one line --export-qdq gives for attention on the NPU (docs/quantized-models.md).
HEAD_MATMUL_GAP = (r"npu: error: node '[^']+': a HeadMatMul \(attention's matmul with its head "
                   r"split and merge\) has no QDQ ONNX form yet")


def qdq_round_trip(npu, folder, stem):
    """(failures, figure) of the QDQ round trip: the graph's QDQ export (its RMSNorm and GELU
    chains spelled out again) must compile to the same programs, byte for byte; or, for a graph
    whose attention runs on the NPU, the export must refuse with HEAD_MATMUL_GAP's one line."""
    base = os.path.join(folder, stem)
    first = [npu, "compile", base + ".onnx", "--calib", base + ".calib", "-o", base + ".a.npub",
             "--export-qdq", base + ".qdq.onnx", "--quiet"]
    second = [npu, "compile", base + ".qdq.onnx", "-o", base + ".b.npub", "--quiet"]
    for cmd in (first, second):
        result = subprocess.run(cmd, capture_output=True, text=True)
        lines = (result.stdout + result.stderr).strip().splitlines()
        if result.returncode != 0 and cmd is first and result.returncode == 3 and \
                re.match(HEAD_MATMUL_GAP, lines[-1] if lines else ""):
            return [], "QDQ export refused as documented (attention on the NPU)"
        if result.returncode != 0:
            return ["%s exited %d: %s" % (" ".join(cmd[1:3]), result.returncode,
                                          lines[-1] if lines else "")], ""
    programs = sorted(f for f in os.listdir(folder)
                      if f.startswith(stem + ".a.") and f.endswith(".npub"))
    failures = []
    for program in programs:
        with open(os.path.join(folder, program), "rb") as a, \
                open(os.path.join(folder, program.replace(".a.", ".b.", 1)), "rb") as b:
            if a.read() != b.read():
                failures.append("QDQ round trip: %s differs from its re-import" % program)
    if not programs:
        failures.append("QDQ round trip: no programs written")
    return failures, "QDQ round trip identical"


def compare_outputs(folder, stem, tolerance):
    """Failures of the fp32 interpreter's outputs against PyTorch's; and the worst error."""
    base = os.path.join(folder, stem)
    with open(base + ".json") as f:
        outputs = json.load(f)["outputs"]
    failures, worst = [], 0.0
    for name in outputs:
        expected = np.load(os.path.join(base + ".torch", name + ".npy"))
        path = os.path.join(base + ".run", "outputs", name + ".fp32.npy")
        if not os.path.exists(path):
            failures.append("output '%s': npu run saved no %s" % (name, path))
            continue
        got = np.load(path)
        if got.shape != expected.shape:
            failures.append("output '%s': shape %s, PyTorch's %s" % (name, list(got.shape),
                                                                     list(expected.shape)))
            continue
        error = float(np.linalg.norm(got - expected) / max(np.linalg.norm(expected), 1e-30))
        worst = max(worst, error)
        if not error <= tolerance:
            where = np.unravel_index(np.argmax(np.abs(got - expected)), got.shape)
            failures.append("output '%s': fp32 vs PyTorch relative error %.3g > %g; largest "
                            "difference at %s: %g vs %g" % (name, error, tolerance,
                                                            list(map(int, where)),
                                                            got[where], expected[where]))
    return failures, worst


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--npu", required=True, help="the npu executable")
    parser.add_argument("--work", required=True, help="folder for the exports and runs")
    parser.add_argument("--tolerance", type=float, default=1e-5,
                        help="largest relative error of fp32 vs PyTorch (default 1e-5)")
    parser.add_argument("--mode", choices=["timed", "functional"], default="timed")
    parser.add_argument("--skip-export", action="store_true",
                        help="reuse the exports in --work (to check a deliberately edited file)")
    args = parser.parse_args()
    start = time.monotonic()
    failed = 0
    for name, options in EXPORTS.items():
        folder = os.path.join(args.work, name)
        if args.skip_export:
            stems = sorted(f[:-5] for f in os.listdir(folder) if f.endswith(".onnx"))
        else:
            stems = export_llm.main(["--out", folder] + SMALL + options)
        for stem in stems:
            failures, figures = run_graph(args.npu, folder, stem, args.mode)
            if not failures:
                failures, worst = compare_outputs(folder, stem, args.tolerance)
                figures += ", fp32 vs PyTorch %.2g" % worst
            if not failures and name == "default" and stem.endswith("_decode"):
                failures, qdq = qdq_round_trip(args.npu, folder, stem)
                figures += "" if failures else ", " + qdq
            label = "%s/%s" % (name, stem)
            print("%s %s: %s" % ("FAIL" if failures else "ok", label, figures), flush=True)
            for failure in failures:
                print("  %s: %s" % (label, failure), flush=True)
            failed += bool(failures)
    print("%d graphs failed, %.1f s" % (failed, time.monotonic() - start) if failed else
          "all graphs bit-exact and within %g of PyTorch, %.1f s" %
          (args.tolerance, time.monotonic() - start))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
