#!/usr/bin/python3
"""The model zoo: one command for the model-coverage table of docs/models.md.

For each model: exports it with scripts/export_torchvision.py (random seed-0 weights, BatchNorm
statistics re-estimated, the per-model reduced input size; an export already in --work is kept),
writes to --work

    NAME.calib.npy   --calib calibration images [N, 3, S, S], standard normal (seed 1)
    NAME.eval.npy    --eval evaluation images [N, 3, S, S], standard normal (seed 2)

and runs `NPU run NAME.onnx --calib NAME.calib.npy --data NAME.eval.npy --out WORK/NAME.run
--mode MODE`, reading WORK/NAME.run/report.json. Unless --no-fx, PyTorch FX post-training int8
(scripts/torchvision_fx_int8.py, qnnpack and onednn engines) is run on the same images for the
peer cosine; a model FX cannot trace or quantize gets "n/a (reason)".

The transformer entries (TRANSFORMER_MODELS: vit_tiny16, bert_tiny, bert_tiny_emb; not in the
default set) come from scripts/export_transformers.py instead, opset 13, with that script's
calibration and evaluation inputs (also seeds 1 and 2; int64 token ids for bert_tiny, float32
word embeddings for bert_tiny_emb) written as NAME.calib.npy and NAME.eval.npy.

Prints a Markdown table (to stdout; progress goes to stderr). --write-doc FILE replaces the text
between the model-zoo markers of FILE with the command line and the table. --check exits 1, one
line per failing model, unless every model's `npu run` exits 0, passes, is bit-exact on every
input, has at most MAX_SEGMENTS[model] partition segments, reports no layer above 100% MAC
utilization and, unless listed in HOST_MACS_ALLOWED, runs every MAC (conv, FC) on the NPU.
"""
import argparse
import contextlib
import json
import os
import shlex
import subprocess
import sys
import time
import traceback
import warnings

import numpy as np
import torch

import export_transformers
from export_torchvision import DEFAULT_SIZE, build_model, export
from torchvision_fx_int8 import cosine, fx_int8

warnings.filterwarnings("ignore")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MODELS = ["mobilenet_v3_small", "efficientnet_b0", "shufflenet_v2_x0_5", "mnasnet0_5",
                  "densenet121", "googlenet", "convnext_tiny", "regnet_y_400mf", "vit_tiny",
                  "yolo_tiny", "yolo_focus"]
# Transformer encoders of scripts/export_transformers.py (issue 16), opset 13, its calibration
# and evaluation inputs (seeds 1 and 2, as here): zoo name -> export arguments.
TRANSFORMER_MODELS = {
    "vit_tiny16": dict(name="vit_tiny16", image_size=224),
    "bert_tiny": dict(name="bert_tiny"),  # int64 token ids [1, 128]
    "bert_tiny_emb": dict(name="bert_tiny", bert_input="embeddings"),  # f32 [1, 128, 128]
}
OPTIONAL_MODELS = ["alexnet"] + list(TRANSFORMER_MODELS)  # alexnet: 224x224, a 245 MB export;
# accepted, not run by default
ENGINES = ["qnnpack", "onednn"]
BEGIN = "<!-- model-zoo:begin -->"
END = "<!-- model-zoo:end -->"

# Partition segments (NPU + host) under the default strategy, as measured by this script; --check
# fails when a model needs more, so a change that splits a model again is caught. Reshapes that
# keep the NHWC bytes (a classifier's trailing [1, N, 1, 1] -> [1, N], a ViT's token map) are
# aliases on the NPU (issue 39): the CNNs and ViTs are one NPU segment.
MAX_SEGMENTS = {
    "mobilenet_v3_small": 1,
    "efficientnet_b0": 1,
    "shufflenet_v2_x0_5": 1,
    "mnasnet0_5": 1,
    "densenet121": 1,
    "googlenet": 1,
    "convnext_tiny": 1,
    "regnet_y_400mf": 1,
    "vit_tiny": 1,
    # The detector's output head (Reshapes to [1, 20, H*W], which have no NHWC form, and the
    # Concat along the anchors) is a host segment after the NPU one.
    "yolo_tiny": 2,
    "yolo_focus": 2,
    "alexnet": 1,
    # Transformers (issue 16): every MAC on the NPU (lift-token-tensors, HeadMatMul); a ViT is one
    # NPU segment, a BERT's embedding Gather and the layout of its rank-3 input and output tokens
    # (no NHWC form) are host work around one NPU segment.
    "vit_tiny16": 1,
    "bert_tiny": 3,
    "bert_tiny_emb": 3,
}

# Models whose MACs may run on the host: none since attention runs on the NPU (issue 16).
HOST_MACS_ALLOWED = set()


def log(message):
    print(message, file=sys.stderr, flush=True)


def write_images(work, name, size, n_calib, n_eval):
    """NAME.calib.npy (seed 1) and NAME.eval.npy (seed 2); returns both as tensors."""
    calib = torch.randn(n_calib, 3, size, size, generator=torch.Generator().manual_seed(1))
    evals = torch.randn(n_eval, 3, size, size, generator=torch.Generator().manual_seed(2))
    np.save(os.path.join(work, name + ".calib.npy"), calib.numpy())
    np.save(os.path.join(work, name + ".eval.npy"), evals.numpy())
    return calib, evals


def short_reason(error):
    """'FX cannot trace `line`' when symbolic tracing failed in the model's code, else the
    exception type and the start of its message."""
    frames = traceback.extract_tb(error.__traceback__)
    traced = any(os.sep + os.path.join("torch", "fx") + os.sep in f.filename for f in frames)
    ours = ("model_zoo.py", "torchvision_fx_int8.py")
    model_code = [f for f in frames if os.sep + "torch" + os.sep not in f.filename and
                  os.path.basename(f.filename) not in ours]
    if traced and model_code:
        return "FX cannot trace `%s`: %s" % (model_code[-1].line.strip(), type(error).__name__)
    text = " ".join(str(error).split()).split(". ")[0]
    text = text if len(text) <= 60 else text[:57] + "..."
    return "%s: %s" % (type(error).__name__, text)


def fx_cosines(name, size, calib, evals):
    """{engine: cosine of FX int8 vs fp32 over all evaluation outputs, or 'n/a (reason)'}."""
    model = zoo_model(name, size)
    with torch.no_grad():
        reference = model(evals)
    result = {}
    for engine in ENGINES:
        try:
            quantized = fx_int8(model, calib, engine)
            with torch.no_grad():
                result[engine] = cosine(quantized(evals), reference)
        except Exception as e:  # FX tracing or quantization of this model failed
            result[engine] = "n/a (%s)" % short_reason(e)
    return result


def run_npu(args, name):
    """Runs `npu run` on the model; returns (exit status, stderr, report.json or None)."""
    work = args.work
    out = os.path.join(work, name + ".run")
    report_path = os.path.join(out, "report.json")
    if os.path.exists(report_path):
        os.remove(report_path)
    command = [args.npu, "run", os.path.join(work, name + ".onnx"),
               "--calib", os.path.join(work, name + ".calib.npy"),
               "--data", os.path.join(work, name + ".eval.npy"),
               "--out", out, "--mode", args.mode]
    try:
        proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        return 127, "cannot run %s: %s" % (args.npu, e.strerror), None
    with open(os.path.join(work, name + ".run.log"), "w") as f:
        f.write(proc.stdout + proc.stderr)
    report = None
    if os.path.exists(report_path):
        with open(report_path) as f:
            report = json.load(f)
    return proc.returncode, proc.stderr.strip(), report


def input_text(name, size):
    """The table's input column: 'SxS' for images, 'N tokens' for BERT."""
    if TRANSFORMER_MODELS.get(name, {}).get("name") == "bert_tiny":
        return "%d tokens" % export_transformers.BERT["seq"]
    return "%dx%d" % (size, size)


def export_transformer(args, name):
    """Exports a TRANSFORMER_MODELS entry as NAME.onnx with NAME.calib.npy and NAME.eval.npy
    (seeds 1 and 2); returns (size, calib, evals)."""
    config = dict(TRANSFORMER_MODELS[name])
    with contextlib.redirect_stdout(sys.stderr):
        file_stem = export_transformers.export(out=args.work, opsets=(13,), n_calib=args.calib,
                                               n_eval=args.eval, **config)
    assert file_stem == name, (file_stem, name)
    calib = torch.from_numpy(np.load(os.path.join(args.work, name + ".calib.npy")))
    evals = torch.from_numpy(np.load(os.path.join(args.work, name + ".eval.npy")))
    return config.get("image_size", 0), calib, evals


def zoo_model(name, size):
    """The fp32 model of a zoo entry, as exported."""
    if name in TRANSFORMER_MODELS:
        config = TRANSFORMER_MODELS[name]
        return export_transformers.build_model(
            config["name"], config.get("image_size", export_transformers.DEFAULT_IMAGE_SIZE),
            bert_input=config.get("bert_input", "ids"))
    return build_model(name, size)


def evaluate(args, name):
    start = time.monotonic()
    if name in TRANSFORMER_MODELS:
        size, calib, evals = export_transformer(args, name)
    else:
        size = DEFAULT_SIZE[name]
        with contextlib.redirect_stdout(sys.stderr):
            export(name, args.work, size, 13)
        calib, evals = write_images(args.work, name, size, args.calib, args.eval)
    status, stderr, report = run_npu(args, name)
    row = {"name": name, "size": size, "input": input_text(name, size), "status": status,
           "stderr": stderr, "report": report, "fx": None}
    log("%s: npu run exit %d in %.1f s" % (name, status, time.monotonic() - start))
    if not args.no_fx:
        start = time.monotonic()
        row["fx"] = fx_cosines(name, size, calib, evals)
        log("%s: FX int8 %s in %.1f s" % (name, row["fx"], time.monotonic() - start))
    return row


def segments(report):
    return report["partition"]["npu_segments"] + report["partition"]["host_segments"]


def fmt_cosine(value):
    return "%.4f" % value if isinstance(value, float) else value


def table(rows, fx):
    header = ["model", "input", "segments (npu/host)", "NPU ops / host ops", "NPU MAC share",
              "cycles / inference", "MAC util", "bit-exact", "cosine int8 vs fp32 (ours)"]
    if fx:
        header += ["FX %s cosine" % engine for engine in ENGINES]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        r = row["report"]
        cells = [row["name"], row["input"]]
        if r is None:
            reason = row["stderr"].splitlines()[-1] if row["stderr"] else "no report.json"
            cells += ["npu run failed (exit %d): %s" % (row["status"], reason)]
            cells += [""] * (len(header) - len(cells) - (len(ENGINES) if fx else 0))
        else:
            p, perf = r["partition"], r["performance"]
            macs = p["npu_macs"] + p["host_macs"]
            cells += [
                "%d (%d/%d)" % (segments(r), p["npu_segments"], p["host_segments"]),
                "%d / %d" % (p["npu_ops"], p["host_ops"]),
                "%.1f%%" % (100.0 * p["npu_macs"] / macs) if macs else "-",
                "{:,}".format(perf["total_cycles"]),
                "%.1f%%" % (100.0 * perf["mac_utilization"]),
                "%d/%d" % (r["bit_exact_inputs"], r["inputs"]),
                fmt_cosine(r["accuracy"]["output_cosine"]),
            ]
        if fx:
            cells += [fmt_cosine(row["fx"][engine]) for engine in ENGINES]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def failures(rows, n_eval):
    """One line per model that fails --check."""
    lines = []
    for row in rows:
        name, r = row["name"], row["report"]
        why = []
        if row["status"] != 0:
            last = row["stderr"].splitlines()[-1] if row["stderr"] else "no message"
            why.append("npu run exited %d (%s)" % (row["status"], last))
        if r is None:
            why.append("no report.json")
        else:
            if not r["pass"]:
                why.append("pass is false")
            if r["inputs"] != n_eval or r["bit_exact_inputs"] != r["inputs"]:
                why.append("bit-exact on %d/%d inputs (%d expected)" %
                           (r["bit_exact_inputs"], r["inputs"], n_eval))
            limit = MAX_SEGMENTS.get(name)
            if limit is None:
                why.append("no MAX_SEGMENTS entry (%d segments measured)" % segments(r))
            elif segments(r) > limit:
                why.append("%d segments, MAX_SEGMENTS allows %d" % (segments(r), limit))
            over = [l for l in r["layers"] if l.get("mac_utilization", 0.0) > 1.0]
            if over:
                why.append("layer %s reports %.1f%% MAC utilization (above 100%%)" %
                           (over[0]["layer"], 100.0 * over[0]["mac_utilization"]))
            host_macs = r["partition"]["host_macs"]
            if host_macs and name not in HOST_MACS_ALLOWED:
                why.append("%d MACs on the host" % host_macs)
        if why:
            lines.append("%s: %s" % (name, "; ".join(why)))
    return lines


def write_doc(path, command, text, npu):
    with open(path) as f:
        doc = f.read()
    begin = doc.find(BEGIN)
    end = doc.find(END)
    if begin < 0 or end < begin:
        sys.exit("model_zoo.py: %s has no '%s' ... '%s' markers" % (path, BEGIN, END))
    block = ("\n\nGenerated by `%s` (torch %s, %s).\n\n%s\n" %
             (command, torch.__version__, version_of_npu(npu), text))
    with open(path, "w") as f:
        f.write(doc[:begin + len(BEGIN)] + block + doc[end:])


def version_of_npu(npu):
    try:
        out = subprocess.run([npu, "--version"], stdout=subprocess.PIPE, text=True).stdout
        return out.strip().splitlines()[0]
    except (OSError, IndexError):
        return "npu version unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=DEFAULT_MODELS,
                        choices=DEFAULT_MODELS + OPTIONAL_MODELS, metavar="NAME",
                        help="models to run (default: %s; also: %s)" %
                        (" ".join(DEFAULT_MODELS), " ".join(OPTIONAL_MODELS)))
    parser.add_argument("--npu", default=os.path.join(REPO, "build", "npu"))
    parser.add_argument("--work", default=os.path.join(REPO, "build", "model-zoo"),
                        help="exports, images and run reports (default: build/model-zoo)")
    parser.add_argument("--calib", type=int, default=8, help="calibration images (default 8)")
    parser.add_argument("--eval", type=int, default=4, help="evaluation images (default 4)")
    parser.add_argument("--mode", default="timed", choices=["timed", "functional"])
    parser.add_argument("--no-fx", action="store_true", help="skip PyTorch FX int8")
    parser.add_argument("--write-doc", metavar="FILE",
                        help="replace the table between the model-zoo markers of FILE")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless every model passes bit-exact within MAX_SEGMENTS")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    torch.set_num_threads(2)
    start = time.monotonic()
    rows = [evaluate(args, name) for name in args.models]
    text = table(rows, not args.no_fx)
    sys.stdout.write(text)
    log("model zoo: %d models in %.1f s" % (len(rows), time.monotonic() - start))
    if args.write_doc:
        write_doc(args.write_doc, shlex.join(sys.argv), text, args.npu)
    if args.check:
        failed = failures(rows, args.eval)
        for line in failed:
            print(line, file=sys.stderr)
        if failed:
            return 1
        log("model zoo check: %d models pass, bit-exact, within MAX_SEGMENTS, MACs on the NPU" %
            len(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
