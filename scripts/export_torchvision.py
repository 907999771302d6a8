#!/usr/bin/python3
"""Exports torchvision networks with random weights for the compiler's accuracy tests and benchmarks.

For each NAME (resnet18, resnet50, mobilenet_v2) writes NAME.onnx, NAME.input.npy and
NAME.output.npy (PyTorch's output for the input) to --out. Weights come from seed 0; BatchNorm
statistics are then re-estimated in train mode on a few random batches, since a freshly
initialised MobileNetV2 shrinks its activations to about 1e-9 with the default statistics.
Files already present are kept, so a ctest run exports once.
"""
import argparse
import os
import warnings

import numpy as np
import torch
import torchvision

warnings.filterwarnings("ignore")


def build_model(name, size):
    """The network in eval mode: seed-0 weights, BatchNorm statistics re-estimated on two random
    batches of 4 images of size x size. Leaves the global RNG where export() expects it."""
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None)
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.reset_running_stats()
            module.momentum = None  # cumulative average over the estimation batches
    model.train()
    with torch.no_grad():
        for _ in range(2):
            model(torch.randn(4, 3, size, size))
    model.eval()
    return model


def export(name, out, size):
    path = os.path.join(out, name + ".onnx")
    if all(os.path.exists(os.path.join(out, name + ext))
           for ext in (".onnx", ".input.npy", ".output.npy")):
        return
    model = build_model(name, size)
    x = torch.randn(1, 3, size, size)
    with torch.no_grad():
        y = model(x)
    tmp = path + ".tmp"
    # PRESERVE keeps the BatchNormalization nodes for the compiler to fold.
    torch.onnx.export(model, x, tmp, opset_version=13, input_names=["input"],
                      output_names=["output"], training=torch.onnx.TrainingMode.PRESERVE)
    np.save(os.path.join(out, name + ".input.npy"), x.numpy())
    np.save(os.path.join(out, name + ".output.npy"), y.numpy())
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True)
    parser.add_argument("--size", type=int, default=224, help="input height and width")
    parser.add_argument("models", nargs="+")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(2)
    for name in args.models:
        export(name, args.out, args.size)


if __name__ == "__main__":
    main()
