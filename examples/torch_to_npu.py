#!/usr/bin/env python3
"""From PyTorch to a verified NPU run: a small CNN exported with torch.onnx.export (in memory),
compiled for the NPU with calibration arrays, run on the cycle-accurate simulator with every NPU
segment's DDR checked byte for byte against the golden reference, and compared with PyTorch.

    PYTHONPATH=build/python /usr/bin/python3 examples/torch_to_npu.py [--hw npu-s] [--count 8]

Exits 1 when a run is not bit-exact or the NPU's outputs drift from PyTorch's (cosine < 0.99).
"""

import argparse
import io
import sys

import numpy as np
import torch

import npu


class SmallNet(torch.nn.Module):
    """Conv-BN-ReLU, depthwise conv, residual add, pooling and a linear head: the shapes of a
    mobile classifier in miniature."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, stride=2, padding=1), torch.nn.BatchNorm2d(16),
            torch.nn.ReLU())
        self.depthwise = torch.nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.pointwise = torch.nn.Conv2d(16, 16, 1)
        self.head = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = self.stem(x)
        x = x + torch.relu(self.pointwise(torch.relu(self.depthwise(x))))
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(x)


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hw", default="npu-s", help="hardware preset or YAML file")
    parser.add_argument("--count", type=int, default=8, help="inputs to run")
    args = parser.parse_args()

    torch.manual_seed(0)
    net = SmallNet().eval()
    with torch.no_grad():  # a trained-looking BatchNorm, so folding it is not a no-op
        net.stem[1].running_mean.uniform_(-0.5, 0.5)
        net.stem[1].running_var.uniform_(0.5, 2.0)
    shape = (1, 3, 32, 32)
    onnx_bytes = io.BytesIO()
    torch.onnx.export(net, torch.zeros(shape), onnx_bytes, input_names=["image"],
                      output_names=["logits"], opset_version=13)

    rng = np.random.default_rng(0)
    calibration = rng.standard_normal((32, *shape[1:]), dtype=np.float32)
    model = npu.compile(onnx_bytes.getvalue(), hw=args.hw, calibration=calibration)
    print(f"compiled for {model.hardware}: {model.npu_segments} NPU segment(s), "
          f"{sum(model.instructions)} instructions")

    worst = 1.0
    for k in range(args.count):
        x = rng.standard_normal(shape, dtype=np.float32)
        result = model.verify(x, mode="timed")  # raises npu.Error unless bit-exact
        with torch.no_grad():
            expected = net(torch.from_numpy(x)).numpy()
        c = cosine(result.outputs["logits"], expected)
        worst = min(worst, c)
        print(f"input {k}: bit-exact vs golden, {result.cycles} cycles, cosine vs PyTorch {c:.5f}, "
              f"argmax NPU {int(np.argmax(result.outputs['logits']))} / "
              f"PyTorch {int(np.argmax(expected))}")
    print(f"worst cosine vs PyTorch over {args.count} inputs: {worst:.5f}")
    return 0 if worst >= 0.99 else 1


if __name__ == "__main__":
    sys.exit(main())
