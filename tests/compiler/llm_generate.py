#!/usr/bin/python3
"""`npu generate` on the tiny decoder-only models of scripts/export_llm.py (issue 39): ctest
compiler.llm_generate.

Exports the Llama and the GPT-2 at a prefill length of 8 and a past of 23 (a maximum context of
24), and the Llama again with dynamic sequence axes. Then:
  - generates from a 6-token prompt through the decode step alone, and with the prefill graph
    (the prompt left-padded to its 8 tokens), greedy;
  - every run must be bit-exact against golden (report.json "pass"), its logits within cosine
    0.99 of the fp32 model on average and 0.98 at every run;
  - the loop's own fp32 reference is checked against PyTorch, which computes the whole sequence
    (prompt and generated tokens) in one forward pass without any cache: at every run that
    chose a token, PyTorch's highest logit at that position must equal the token exactly when
    the report says fp32 agrees. A cache moved wrongly between steps, a wrong mask or wrong
    position ids make PyTorch and the loop disagree;
  - the dynamic decode step, bound by --max-context, must generate the same tokens as the fixed
    one (and with its dynamic prefill, bound to the prompt, must pass the checks above);
  - the first decode step of the Llama co-simulates on the RTL (--rtl) with cycle delta 0;
  - top-k sampling with one seed must repeat itself;
  - bad requests (a generation longer than the context, float token ids, a --kv-pairs name that
    is no input) must fail with one line naming the problem, and leave no report folder.
Prints one line per case; a failure prints what differs and exits 1.

    tests/compiler/llm_generate.py --npu build/npu --work build/llm-generate
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
import export_llm  # noqa: E402

EXPORT = ["--seq-len", "8", "--past-len", "23", "--calib", "1", "--eval", "1"]
PROMPT = [5, 17, 99, 3, 42, 7]
NEW_TOKENS = 10


def export(folder, extra):
    if not os.path.exists(os.path.join(folder, "llama_decode.onnx")):
        export_llm.main(["--out", folder] + EXPORT + extra)


def generate(npu, args, out):
    """Runs npu generate; returns (exit code, report or None, last output line)."""
    shutil.rmtree(out, ignore_errors=True)
    result = subprocess.run([npu, "generate"] + args + ["--out", out, "--quiet"],
                            capture_output=True, text=True)
    lines = (result.stdout + result.stderr).strip().splitlines()
    report = None
    if os.path.exists(os.path.join(out, "report.json")):
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
    return result.returncode, report, lines[-1] if lines else ""


def torch_argmax(model_name, tokens):
    """PyTorch's highest logit at every position of `tokens`, the whole sequence at once."""
    opts = export_llm.parse_args(["--out", "unused"] + EXPORT)
    model = export_llm.build_model(model_name, opts)
    ids = torch.tensor([tokens], dtype=torch.int64)
    with torch.no_grad():
        logits = model(ids, torch.ones_like(ids), torch.arange(len(tokens)).unsqueeze(0))[0]
    return logits[0].argmax(-1).tolist()


def check_report(model_name, report):
    """Failures of one greedy report: verification, cosine, and the fp32 reference vs PyTorch."""
    failures = []
    if not report["pass"]:
        failures.append("not bit-exact: " + "; ".join(
            s["first_mismatch"] for s in report["steps"] if not s["bit_exact"]))
    if report["prompt"] != PROMPT or len(report["generated"]) != NEW_TOKENS:
        failures.append("prompt %s, %d generated" % (report["prompt"], len(report["generated"])))
    if report["logits"]["mean_cosine"] < 0.99 or report["logits"]["min_cosine"] < 0.98:
        failures.append("logit cosine mean %.5f (< 0.99?), min %.5f (< 0.98?)" % (
            report["logits"]["mean_cosine"], report["logits"]["min_cosine"]))
    expected = torch_argmax(model_name, PROMPT + report["generated"])
    for step in report["steps"]:
        if step["next"] < 0:
            continue
        torch_next = expected[step["position"]]
        if (torch_next == step["next"]) != step["fp32_agrees"]:
            failures.append("position %d: PyTorch's next token %d, the loop chose %d and says fp32 "
                            "%s" % (step["position"], torch_next, step["next"],
                                    "agrees" if step["fp32_agrees"] else "differs"))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--npu", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    torch.set_num_threads(2)
    fixed = os.path.join(args.work, "fixed")
    dynamic = os.path.join(args.work, "dynamic")
    export(fixed, [])
    export(dynamic, ["--dynamic", "llama"])
    prompt = os.path.join(args.work, "prompt.npy")
    np.save(prompt, np.array(PROMPT, dtype=np.int64))
    base = ["--prompt", prompt, "--max-new-tokens", str(NEW_TOKENS)]
    failures = []
    tokens = {}

    def case(name, model_name, cli):
        code, report, last = generate(args.npu, cli + base, os.path.join(args.work, name))
        problems = ["exit %d: %s" % (code, last)] if code != 0 or report is None else \
            check_report(model_name, report)
        if report is not None:
            tokens[name] = report["generated"]
            print("%-16s %s; %d runs, %.0f cycles per decode token, cosine %.5f" % (
                name, "ok" if not problems else "FAILED", len(report["steps"]),
                report["decode"]["cycles_per_token"], report["logits"]["min_cosine"]))
        failures.extend("%s: %s" % (name, p) for p in problems)

    def graph(folder, stem):
        return os.path.join(folder, stem + ".onnx")

    case("llama_decode", "llama", [graph(fixed, "llama_decode"), "--rtl"])
    rtl = [] if "llama_decode" not in tokens else json.load(
        open(os.path.join(args.work, "llama_decode", "report.json")))["rtl"]
    if not rtl or not all(s["matches"] and s["cycle_delta"] == 0 for s in rtl):
        failures.append("llama_decode --rtl: the first decode step's co-simulation: %s" % rtl)
    case("llama_prefill", "llama",
         [graph(fixed, "llama_decode"), "--prefill", graph(fixed, "llama_prefill")])
    case("gpt2_prefill", "gpt2",
         [graph(fixed, "gpt2_decode"), "--prefill", graph(fixed, "gpt2_prefill")])
    case("llama_dynamic", "llama", [graph(dynamic, "llama_decode"), "--max-context", "24"])
    if tokens.get("llama_dynamic") != tokens.get("llama_decode"):
        failures.append("the dynamic decode step generated %s, the fixed one %s" % (
            tokens.get("llama_dynamic"), tokens.get("llama_decode")))
    case("llama_dynamic_prefill", "llama",
         [graph(dynamic, "llama_decode"), "--prefill", graph(dynamic, "llama_prefill"),
          "--max-context", "24"])

    topk = [graph(fixed, "llama_decode"), "--sample", "top-k", "--top-k", "8", "--seed", "7"]
    draws = [generate(args.npu, topk + base, os.path.join(args.work, "topk%d" % i))[1]
             for i in range(2)]
    if None in draws or draws[0]["generated"] != draws[1]["generated"]:
        failures.append("top-k with one seed: %s" % [d and d["generated"] for d in draws])
    print("top-k            %s" % (draws[0] and draws[0]["generated"]))

    float_prompt = os.path.join(args.work, "float_prompt.npy")
    np.save(float_prompt, np.array(PROMPT, dtype=np.float32))
    decode = graph(fixed, "llama_decode")
    bad = {
        "context": ([decode, "--prompt", prompt, "--max-new-tokens", "30"], "need a context of 36"),
        "float_ids": ([decode, "--prompt", float_prompt], "int64 or int32"),
        "kv_pairs": ([decode, "--prompt", prompt, "--kv-pairs", "past.key=present.key"],
                     "past.key"),
    }
    for name, (cli, wanted) in bad.items():
        out = os.path.join(args.work, "bad_" + name)
        code, report, last = generate(args.npu, cli, out)
        ok = code != 0 and wanted in last and last.startswith("npu: error:") and \
            not os.path.exists(out)
        print("error %-10s %s: %s" % (name, "ok" if ok else "FAILED", last))
        if not ok:
            failures.append("%s: exit %d, '%s' (wanted an error with '%s' and no --out)" % (
                name, code, last, wanted))
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
