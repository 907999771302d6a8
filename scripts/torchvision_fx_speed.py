#!/usr/bin/python3
"""Per-image inference time of PyTorch on a torchvision network, one thread: fp32 and FX int8
(post-training, default qconfig mapping of the engine), the peer figure of `npu run`'s per-input
time (docs/performance.md, "Verification and compile time").

The network is built as scripts/export_torchvision.py builds it (seed-0 weights, BatchNorm
statistics re-estimated); FX is calibrated on 8 standard-normal images (seed 1) and timed on
--images standard-normal images (seed 2), one at a time, after one warm-up image. Prints
milliseconds per image (median of --repeats passes over the images).

usage: scripts/torchvision_fx_speed.py [--engine onednn|qnnpack|fbgemm] [--images N] NAME
"""
import argparse
import statistics
import time
import warnings

import torch

from export_torchvision import build_model
from torchvision_fx_int8 import fx_int8

warnings.filterwarnings("ignore")


def per_image_ms(model, images, repeats):
    passes = []
    with torch.no_grad():
        model(images[:1])  # warm-up (FX's packed weights, allocator)
        for _ in range(repeats):
            start = time.perf_counter()
            for i in range(len(images)):
                model(images[i:i + 1])
            passes.append((time.perf_counter() - start) * 1000.0 / len(images))
    return statistics.median(passes)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", default="onednn")
    parser.add_argument("--images", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("name")
    args = parser.parse_args()
    torch.set_num_threads(1)
    model = build_model(args.name, 224)
    calib = torch.randn(8, 3, 224, 224, generator=torch.Generator().manual_seed(1))
    images = torch.randn(args.images, 3, 224, 224, generator=torch.Generator().manual_seed(2))
    quantized = fx_int8(model, calib, args.engine)
    fp32 = per_image_ms(model, images, args.repeats)
    int8 = per_image_ms(quantized, images, args.repeats)
    print(f"{args.name}: torch {torch.__version__}, 1 thread, {args.images} images: "
          f"fp32 {fp32:.1f} ms/image, FX int8 ({args.engine}) {int8:.1f} ms/image")


if __name__ == "__main__":
    main()
