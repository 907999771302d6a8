#!/usr/bin/python3
"""PyTorch FX int8 on torchvision networks: the peer figure of the quantization benchmark.

For each NAME (resnet18, mobilenet_v2, the segmentation networks, ...) builds the network as
scripts/export_torchvision.py does (seed-0 random weights, BatchNorm statistics re-estimated on
random batches; --size as there, 224 by default) and writes to --out:

    NAME.calib.npy   calibration images [--calib, 3, H, W], standard normal (seed 1)
    NAME.eval.npy    evaluation images [--eval, 3, H, W], standard normal (seed 2)
    NAME.fx.yaml     cosine similarity of the final output (logits of all evaluation images as
                     one vector) of PyTorch FX post-training int8 vs fp32, per quantized engine
                     (default qconfig mapping of each: qnnpack = per-tensor weights, onednn =
                     per-channel weights; HistogramObserver activations for both)

bench/quant_accuracy.cpp reads the same images, so both sides see the same data. Files already
present are kept. Run with Debian's python3-torch and python3-torchvision.
"""
import argparse
import copy
import os
import warnings

import numpy as np
import torch

from export_torchvision import as_hw, build_model, parse_size

warnings.filterwarnings("ignore")


def cosine(a, b):
    a = a.reshape(-1).double()
    b = b.reshape(-1).double()
    return float(torch.dot(a, b) / (a.norm() * b.norm()))


def fx_int8(model, calib, engine):
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    torch.backends.quantized.engine = engine
    prepared = prepare_fx(copy.deepcopy(model), get_default_qconfig_mapping(engine), (calib[:1],))
    with torch.no_grad():
        for i in range(0, len(calib), 4):
            prepared(calib[i:i + 4])
    return convert_fx(prepared)


def run(name, out, n_calib, n_eval, engines, size):
    result = os.path.join(out, name + ".fx.yaml")
    if os.path.exists(result):
        return
    model = build_model(name, size)
    h, w = as_hw(size)
    calib = torch.randn(n_calib, 3, h, w, generator=torch.Generator().manual_seed(1))
    evals = torch.randn(n_eval, 3, h, w, generator=torch.Generator().manual_seed(2))
    np.save(os.path.join(out, name + ".calib.npy"), calib.numpy())
    np.save(os.path.join(out, name + ".eval.npy"), evals.numpy())
    with torch.no_grad():
        reference = model(evals)
    lines = ["# Written by scripts/torchvision_fx_int8.py: final-output cosine of PyTorch FX int8",
             "# vs fp32 over %d evaluation images, calibrated on %d images." % (n_eval, n_calib),
             "torch_version: %s" % torch.__version__]
    for engine in engines:
        quantized = fx_int8(model, calib, engine)
        with torch.no_grad():
            y = quantized(evals)
        lines.append("%s: %.6f" % (engine, cosine(y, reference)))
        print("%s %s: cosine %.6f" % (name, engine, cosine(y, reference)))
    with open(result, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--calib", type=int, default=16, help="calibration images")
    parser.add_argument("--eval", type=int, default=8, help="evaluation images")
    parser.add_argument("--engines", default="qnnpack,onednn")
    parser.add_argument("--size", type=parse_size, default=224,
                        help="input size: N or HxW (as export_torchvision.py)")
    parser.add_argument("models", nargs="+")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(2)
    for name in args.models:
        run(name, args.out, args.calib, args.eval, args.engines.split(","), args.size)


if __name__ == "__main__":
    main()
