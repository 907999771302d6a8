#!/usr/bin/python3
"""Exports torchvision networks (and a small YOLOv8-style detector) with random weights for the
compiler's accuracy tests, model-coverage checks and benchmarks.

For each NAME writes NAME.onnx, NAME.input.npy and NAME.output.npy (PyTorch's output for the
input) to --out. Weights come from seed 0; BatchNorm statistics are then re-estimated in train
mode on a few random batches, since a freshly initialised MobileNetV2 shrinks its activations to
about 1e-9 with the default statistics (networks without BatchNorm skip that step). Files already
present are kept, so a ctest run exports once. After an export the ONNX file is loaded back and
"NAME: N nodes, ops: {...}" printed, with the time taken and the file size.

NAMEs and their default input size (--size overrides it for every NAME: one number for a square
input, or HxW, e.g. 720x1280 for an HD frame):
  resnet18, resnet50, mobilenet_v2                       224
  mobilenet_v3_small, efficientnet_b0, shufflenet_v2_x0_5, mnasnet0_5, densenet121, googlenet,
  convnext_tiny, regnet_y_400mf                          64
  alexnet                                                224 (below about 223 its feature map is
      1x1, and the exporter cannot lower AdaptiveAvgPool2d((6, 6)) of a 1x1 input)
  vit_tiny (VisionTransformer: patch 8, 2 layers, 2 heads, hidden 64, MLP 128, 10 classes)   32
  yolo_tiny (YOLOv8-style detector defined here, outputs [1, 4 + 16, anchors])               64
  yolo_focus (the same with YOLOv5's Focus stem: four strided slices, concat, 3x3 conv)       64
  lraspp_mobilenet_v3_large, deeplabv3_mobilenet_v3_large (torchvision segmentation, 21
      classes, the "out" head only; bilinear upsampling in the head)                     256
Opset 13 unless --opset: at 13 LayerNorm (convnext_tiny, vit_tiny) decomposes into
ReduceMean/Sub/Pow/Add/Sqrt/Div, at 17 it is one LayerNormalization.

Deviations from torchvision's initialisation, so the layers the tests check are not negligible:
convnext_tiny's layer scales (1e-6) are set to 0.1, vit_tiny's zero-initialised class token and
head are drawn at random.
"""
import argparse
import os
import time
import warnings
from collections import Counter

import numpy as np
import onnx
import torch
import torch.nn as nn
import torchvision

warnings.filterwarnings("ignore")

DEFAULT_SIZE = {
    "resnet18": 224, "resnet50": 224, "mobilenet_v2": 224,
    "mobilenet_v3_small": 64, "efficientnet_b0": 64, "shufflenet_v2_x0_5": 64, "mnasnet0_5": 64,
    "densenet121": 64, "googlenet": 64, "convnext_tiny": 64, "regnet_y_400mf": 64,
    "alexnet": 224, "vit_tiny": 32, "yolo_tiny": 64, "yolo_focus": 64,
    "lraspp_mobilenet_v3_large": 256, "deeplabv3_mobilenet_v3_large": 256,
}

SEGMENTATION = ("lraspp_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large")


class SegmentationOutput(nn.Module):
    """torchvision's segmentation models return {"out": ...}; the export takes the tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


class ConvBnSiLU(nn.Module):
    def __init__(self, cin, cout, k=1, s=1, p=None):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, s, k // 2 if p is None else p, bias=False)
        self.bn = nn.BatchNorm2d(cout, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c, shortcut=True):
        super().__init__()
        self.cv1 = ConvBnSiLU(c, c, 3)
        self.cv2 = ConvBnSiLU(c, c, 3)
        self.add = shortcut

    def forward(self, x):
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C2f(nn.Module):
    """1x1 conv, chunk in two, n bottlenecks on the second half, concat of all, 1x1 conv."""

    def __init__(self, cin, cout, n=1, shortcut=False):
        super().__init__()
        self.c = cout // 2
        self.cv1 = ConvBnSiLU(cin, 2 * self.c)
        self.cv2 = ConvBnSiLU((2 + n) * self.c, cout)
        self.m = nn.ModuleList(Bottleneck(self.c, shortcut) for _ in range(n))

    def forward(self, x):
        y = list(self.cv1(x).chunk(2, 1))
        y.extend(m(y[-1]) for m in self.m)
        return self.cv2(torch.cat(y, 1))


class SPPF(nn.Module):
    """Three chained 5x5 stride-1 max pools, concatenated with their input."""

    def __init__(self, cin, cout):
        super().__init__()
        c = cin // 2
        self.cv1 = ConvBnSiLU(cin, c)
        self.cv2 = ConvBnSiLU(4 * c, cout)
        self.pool = nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.pool(x)
        y2 = self.pool(y1)
        return self.cv2(torch.cat([x, y1, y2, self.pool(y2)], 1))


class Focus(nn.Module):
    """YOLOv5's original stem: every other pixel in four phases, concatenated along channels
    (space-to-depth by slicing), then a 3x3 conv."""

    def __init__(self, cin, cout):
        super().__init__()
        self.conv = ConvBnSiLU(4 * cin, cout, 3)

    def forward(self, x):
        return self.conv(torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2],
                                    x[..., 1::2, 1::2]], 1))


class YoloTiny(nn.Module):
    """YOLOv8-style: 6x6 stride-2 stem (or YOLOv5's Focus), C2f backbone, SPPF, nearest-upsample
    + concat FPN/PAN neck, three 1x1 heads at strides 8, 16, 32 flattened into one
    [1, 4 + classes, anchors]."""

    def __init__(self, classes=16, w=(16, 32, 64, 128, 128), focus=False):
        super().__init__()
        self.stem = Focus(3, w[0]) if focus else ConvBnSiLU(3, w[0], 6, 2, 2)
        self.down1 = ConvBnSiLU(w[0], w[1], 3, 2)
        self.c2f1 = C2f(w[1], w[1], 1, True)
        self.down2 = ConvBnSiLU(w[1], w[2], 3, 2)
        self.c2f2 = C2f(w[2], w[2], 2, True)
        self.down3 = ConvBnSiLU(w[2], w[3], 3, 2)
        self.c2f3 = C2f(w[3], w[3], 2, True)
        self.down4 = ConvBnSiLU(w[3], w[4], 3, 2)
        self.c2f4 = C2f(w[4], w[4], 1, True)
        self.sppf = SPPF(w[4], w[4])
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.top4 = C2f(w[4] + w[3], w[3])
        self.top3 = C2f(w[3] + w[2], w[2])
        self.bot_down3 = ConvBnSiLU(w[2], w[2], 3, 2)
        self.bot4 = C2f(w[2] + w[3], w[3])
        self.bot_down4 = ConvBnSiLU(w[3], w[3], 3, 2)
        self.bot5 = C2f(w[3] + w[4], w[4])
        self.heads = nn.ModuleList(nn.Conv2d(c, 4 + classes, 1) for c in (w[2], w[3], w[4]))

    def forward(self, x):
        x = self.c2f1(self.down1(self.stem(x)))
        p3 = self.c2f2(self.down2(x))
        p4 = self.c2f3(self.down3(p3))
        p5 = self.sppf(self.c2f4(self.down4(p4)))
        n4 = self.top4(torch.cat([self.up(p5), p4], 1))
        o3 = self.top3(torch.cat([self.up(n4), p3], 1))
        o4 = self.bot4(torch.cat([self.bot_down3(o3), n4], 1))
        o5 = self.bot5(torch.cat([self.bot_down4(o4), p5], 1))
        outs = [head(o) for head, o in zip(self.heads, (o3, o4, o5))]
        return torch.cat([o.flatten(2) for o in outs], 2)


def as_hw(size):
    """An input size as (height, width): N is N x N."""
    return (size, size) if isinstance(size, int) else tuple(size)


def construct(name, size):
    """The network with seed-0 weights (torch.manual_seed(0) is called before); `size` is N or
    (height, width)."""
    size = as_hw(size)
    if name == "googlenet":
        return torchvision.models.googlenet(weights=None, aux_logits=False, init_weights=True)
    if name == "vit_tiny":
        model = torchvision.models.VisionTransformer(
            image_size=size[0], patch_size=8, num_layers=2, num_heads=2, hidden_dim=64, mlp_dim=128,
            num_classes=10)
        with torch.no_grad():
            model.class_token.normal_(0.0, 0.5)
            nn.init.normal_(model.heads.head.weight, 0.0, 64 ** -0.5)
            nn.init.normal_(model.heads.head.bias, 0.0, 0.1)
        return model
    if name in ("yolo_tiny", "yolo_focus"):
        return YoloTiny(focus=name == "yolo_focus")
    if name in SEGMENTATION:
        return SegmentationOutput(getattr(torchvision.models.segmentation, name)(
            weights=None, weights_backbone=None, num_classes=21, aux_loss=None))
    model = getattr(torchvision.models, name)(weights=None)
    if name == "convnext_tiny":
        with torch.no_grad():
            for block in model.modules():
                if isinstance(block, torchvision.models.convnext.CNBlock):
                    block.layer_scale.fill_(0.1)
    return model


def build_model(name, size):
    """The network in eval mode: seed-0 weights, BatchNorm statistics re-estimated on two random
    batches of 4 images of `size` (N or (height, width)). Leaves the global RNG where export()
    expects it."""
    size = as_hw(size)
    torch.manual_seed(0)
    model = construct(name, size)
    batch_norms = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    for module in batch_norms:
        module.reset_running_stats()
        module.momentum = None  # cumulative average over the estimation batches
    if batch_norms:
        model.train()
        with torch.no_grad():
            for _ in range(2):
                model(torch.randn(4, 3, *size))
    model.eval()
    return model


def describe(name, path, seconds=None):
    graph = onnx.load(path).graph
    ops = Counter(node.op_type for node in graph.node)
    ops_text = "{" + ", ".join(f"{op}: {count}" for op, count in sorted(ops.items())) + "}"
    timing = "kept" if seconds is None else f"{seconds:.1f} s"
    size_mb = sum(os.path.getsize(os.path.join(os.path.dirname(path), name + ext))
                  for ext in (".onnx", ".input.npy", ".output.npy")) / 1e6
    print(f"{name}: {len(graph.node)} nodes, ops: {ops_text}")
    print(f"{name}: {timing}, {size_mb:.1f} MB", flush=True)


def export(name, out, size, opset):
    size = as_hw(size)
    path = os.path.join(out, name + ".onnx")
    if all(os.path.exists(os.path.join(out, name + ext))
           for ext in (".onnx", ".input.npy", ".output.npy")):
        describe(name, path)
        return
    start = time.monotonic()
    model = build_model(name, size)
    x = torch.randn(1, 3, *size)
    with torch.no_grad():
        y = model(x)
    tmp = path + ".tmp"
    # PRESERVE keeps the BatchNormalization nodes for the compiler to fold.
    torch.onnx.export(model, x, tmp, opset_version=opset, input_names=["input"],
                      output_names=["output"], training=torch.onnx.TrainingMode.PRESERVE)
    np.save(os.path.join(out, name + ".input.npy"), x.numpy())
    np.save(os.path.join(out, name + ".output.npy"), y.numpy())
    os.replace(tmp, path)
    describe(name, path, time.monotonic() - start)


def parse_size(text):
    """'N' -> (N, N); 'HxW' -> (H, W)."""
    parts = text.lower().split("x")
    if len(parts) not in (1, 2) or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"size '{text}' is not N or HxW")
    return (int(parts[0]), int(parts[-1]))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--size", type=parse_size, default=None,
                        help="input size for every NAME: N (N x N) or HxW (default: per NAME, "
                             "above)")
    parser.add_argument("--opset", type=int, default=13, help="ONNX opset (default 13)")
    parser.add_argument("models", nargs="+", metavar="NAME")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(2)
    for name in args.models:
        export(name, args.out, args.size or DEFAULT_SIZE.get(name, 224), args.opset)


if __name__ == "__main__":
    main()
