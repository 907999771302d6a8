#!/usr/bin/python3
"""Exports the small ONNX test models of the compiler front end, with PyTorch's output for a fixed
input, so the tests can check import, the passes and the fp32 interpreter against a real exporter.

Together the models use every op the ONNX importer accepts. Each model NAME gets NAME.onnx,
NAME.input.npy and NAME.output.npy. Run with Debian's python3-torch and python3-onnx:

    /usr/bin/python3 scripts/make_test_models.py tests/compiler/models
"""
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

warnings.filterwarnings("ignore")


class ConvNet(nn.Module):
    """Conv/BN/ReLU stem, max pool, depthwise + ReLU6, residual add, pools, linear head."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.pw = nn.Conv2d(16, 16, 1)
        self.bn3 = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.stem(x)))
        x = F.max_pool2d(x, 3, stride=2, padding=1)
        y = F.relu6(self.bn2(self.dw(x)))
        y = self.bn3(self.pw(y))
        x = F.relu(x + y)
        x = F.avg_pool2d(x, 2)
        x = F.adaptive_avg_pool2d(x, 1)
        x = torch.flatten(x, 1)
        return self.fc(x)


class Activations(nn.Module):
    """Every activation after a conv, concatenated, then a softmax over channels."""

    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(4, 4, 3, padding=1) for _ in range(8)])

    def forward(self, x):
        acts = [
            lambda t: F.leaky_relu(t, 0.1),
            torch.sigmoid,
            torch.tanh,
            F.hardsigmoid,
            F.hardswish,
            F.silu,
            F.gelu,
            lambda t: torch.clamp(t, -0.5, 0.5),
        ]
        ys = [act(conv(x)) for conv, act in zip(self.convs, acts)]
        return torch.softmax(torch.cat(ys, 1), dim=1)


class Shapes(nn.Module):
    """Exporter shape chains: view(size(0), -1), pad, permute, (un)squeeze, matmul, arithmetic."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.weight = nn.Parameter(torch.randn(8 * 6 * 6, 12) * 0.05)

    def forward(self, x):
        y = self.conv(F.pad(x, (1, 1, 1, 1)))
        y = torch.cat([y * 0.5, y - 1.0], 1) / 2.0
        y = y[:, :8]
        y = y.permute(0, 2, 3, 1).permute(0, 3, 1, 2)
        y = y.view(y.size(0), -1)
        y = y.unsqueeze(1).squeeze(1)
        return torch.matmul(y, self.weight)


class Upsampling(nn.Module):
    """Transposed convolution, nearest resize, reflect pad."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1)
        self.conv = nn.Conv2d(6, 4, 3)

    def forward(self, x):
        y = F.relu(self.up(x))
        y = F.interpolate(y, scale_factor=2, mode="nearest")
        y = F.pad(y, (1, 1, 1, 1), mode="reflect")
        return self.conv(y)


class Legacy(nn.Module):
    """Opset 9: Upsample, attribute-form Pad and Clip, legacy Softmax."""

    def forward(self, x):
        y = F.interpolate(x, scale_factor=2, mode="nearest")
        y = torch.clamp(F.pad(y, (1, 0, 0, 1)), -1.0, 1.0)
        return torch.softmax(y.flatten(1), dim=1)


def save(out, name, model, x, opset, external=False):
    model.eval()
    with torch.no_grad():
        y = model(x)
    path = os.path.join(out, name + ".onnx")
    # PRESERVE keeps BatchNormalization nodes (EVAL would fold them into the convs), so the
    # compiler's own folding is exercised.
    torch.onnx.export(model, x, path, opset_version=opset, input_names=["input"],
                      output_names=["output"], training=torch.onnx.TrainingMode.PRESERVE)
    if external:
        m = onnx.load(path)
        onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=name + ".weights", size_threshold=0)
    np.save(os.path.join(out, name + ".input.npy"), x.numpy())
    np.save(os.path.join(out, name + ".output.npy"), y.numpy())


def handmade(out):
    """Identity and Constant nodes, Clip with input bounds, nodes out of file order."""
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 2, 3, 3])
    y = helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 2, 3, 3])
    nodes = [
        helper.make_node("Clip", ["scaled", "lo", "hi"], ["clipped"], name="clip"),
        helper.make_node("Identity", ["input"], ["same"], name="identity"),
        helper.make_node("Constant", [], ["lo"], name="lo", value_float=-0.25),
        helper.make_node("Constant", [], ["hi"],
                         value=numpy_helper.from_array(np.array(0.5, np.float32))),
        helper.make_node("Mul", ["same", "two"], ["scaled"], name="scale"),
        helper.make_node("Identity", ["clipped"], ["output"], name="out"),
    ]
    two = numpy_helper.from_array(np.array([2.0], np.float32), "two")
    graph = helper.make_graph(nodes, "handmade", [x], [y], [two])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, os.path.join(out, "handmade.onnx"))
    inp = np.linspace(-1, 1, 18, dtype=np.float32).reshape(1, 2, 3, 3)
    np.save(os.path.join(out, "handmade.input.npy"), inp)
    np.save(os.path.join(out, "handmade.output.npy"), np.clip(inp * 2, -0.25, 0.5))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/compiler/models"
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    convnet = ConvNet()
    # Non-trivial BN statistics, as a trained network has.
    convnet.train()
    with torch.no_grad():
        for _ in range(3):
            convnet(torch.randn(4, 3, 32, 32))
    save(out, "convnet", convnet, torch.randn(1, 3, 32, 32), 13)
    save(out, "activations", Activations(), torch.randn(1, 4, 8, 8), 17)
    save(out, "activations_opset11", Activations(), torch.randn(1, 4, 8, 8), 11)
    save(out, "shapes", Shapes(), torch.randn(1, 3, 6, 6), 13)
    save(out, "upsampling", Upsampling(), torch.randn(1, 4, 5, 5), 11)
    save(out, "legacy", Legacy(), torch.randn(1, 2, 3, 3), 9)
    save(out, "external", ConvNet(), torch.randn(1, 3, 16, 16), 13, external=True)
    handmade(out)


if __name__ == "__main__":
    main()
