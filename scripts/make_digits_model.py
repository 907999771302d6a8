#!/usr/bin/python3
"""Trains the bundled digits model and records the PyTorch FX int8 accuracy to beat.

scikit-learn's digits (1797 8x8 images, 16 grey levels) are split 75/25 (seed 0). The network
upsamples its 8x8 input to 32x32 itself (nearest, x4), so the committed data stays small, and uses
what the NPU runs: conv + BN + ReLU/ReLU6, max pool, a depthwise conv, a residual add, a SiLU
branch concatenated with a ReLU branch, an average pool, global average pooling, a fully connected
head and a softmax (left on the host). Writes to examples/digits/ (or --out):

    model.onnx            the fp32 model, input "input" [1, 1, 8, 8], output "probs" [1, 10]
    calib/batch_K.npy     128 training images in 4 batches [32, 1, 8, 8], float32 in [0, 1]
    test_inputs.npy       the test split [450, 1, 8, 8], float32
    test_labels.npy       its labels [450], int64
    reference.yaml        fp32 and PyTorch FX int8 (qnnpack default qconfig, the same
                          calibration images; see fx_int8) top-1 accuracy on the test split

Run with Debian's python3-torch and python3-sklearn: /usr/bin/python3 scripts/make_digits_model.py
"""
import argparse
import copy
import os
import warnings

import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

warnings.filterwarnings("ignore")


def conv_bn(cin, cout, k, groups=1, act=None):
    layers = [nn.Conv2d(cin, cout, k, padding=k // 2, groups=groups, bias=False),
              nn.BatchNorm2d(cout)]
    if act is not None:
        layers.append(act)
    return nn.Sequential(*layers)


class DigitsNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Upsample(scale_factor=4, mode="nearest")
        self.stem = conv_bn(1, 16, 3, act=nn.ReLU())
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = conv_bn(16, 32, 3, act=nn.ReLU6())
        self.dw = conv_bn(32, 32, 3, groups=32, act=nn.ReLU())
        self.pw = conv_bn(32, 32, 1)
        self.relu = nn.ReLU()
        self.branch_silu = conv_bn(32, 16, 1, act=nn.SiLU())
        self.branch_relu = conv_bn(32, 16, 3, act=nn.ReLU())
        self.pool2 = nn.AvgPool2d(2)
        self.conv3 = conv_bn(32, 64, 3, act=nn.ReLU())
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.pool1(self.stem(self.up(x)))
        x = self.conv2(x)
        x = self.relu(x + self.pw(self.dw(x)))
        x = torch.cat([self.branch_silu(x), self.branch_relu(x)], 1)
        x = self.conv3(self.pool2(x))
        return self.fc(torch.flatten(self.gap(x), 1))


class WithSoftmax(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return torch.softmax(self.net(x), dim=1)


def top1(model, x, y):
    with torch.no_grad():
        return float((model(torch.from_numpy(x)).argmax(1).numpy() == y).mean() * 100.0)


def train(x, y, epochs):
    torch.manual_seed(0)
    model = DigitsNet()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    xs, ys = torch.from_numpy(x), torch.from_numpy(y)
    gen = torch.Generator().manual_seed(0)
    for _ in range(epochs):
        model.train()
        perm = torch.randperm(len(xs), generator=gen)
        for i in range(0, len(xs), 64):
            idx = perm[i:i + 64]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xs[idx]), ys[idx])
            loss.backward()
            opt.step()
        sched.step()
    model.eval()
    return model


class FloatRelu6(nn.Module):
    """ReLU6 kept in fp32 for the FX reference (see fx_int8)."""

    def forward(self, x):
        return nn.functional.relu6(x)


def fx_int8(model, calib):
    """PyTorch FX post-training quantization with the qnnpack engine's default qconfig
    (HistogramObserver activations, per-tensor symmetric weights) on the calibration images.

    Debian's torch 1.13 qnnpack computes the quantized hardtanh that FX uses for ReLU6 wrongly
    (a single conv + ReLU6 is off by up to 5.2 on its [0, 6] range, and the whole model drops to
    chance), so the ReLU6 runs in fp32 between dequantize and quantize here: that only helps FX.
    FX keeps SiLU in fp32 by default as well.
    """
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.fx.custom_config import PrepareCustomConfig
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    torch.backends.quantized.engine = "qnnpack"
    float_model = copy.deepcopy(model)
    float_model.conv2[2] = FloatRelu6()
    mapping = get_default_qconfig_mapping("qnnpack").set_object_type(FloatRelu6, None)
    custom = PrepareCustomConfig().set_non_traceable_module_classes([FloatRelu6])
    example = (torch.from_numpy(calib[:1]),)
    prepared = prepare_fx(float_model, mapping, example, prepare_custom_config=custom)
    with torch.no_grad():
        for i in range(0, len(calib), 32):
            prepared(torch.from_numpy(calib[i:i + 32]))
    return convert_fx(prepared)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(here, "..", "examples", "digits"))
    parser.add_argument("--epochs", type=int, default=30)
    args = parser.parse_args()
    torch.set_num_threads(2)

    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    labels = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(images, labels, test_size=0.25,
                                                        random_state=0, stratify=labels)
    model = train(x_train, y_train, args.epochs)
    calib = x_train[np.random.RandomState(0).permutation(len(x_train))[:128]]

    fp32 = top1(model, x_test, y_test)
    quantized = fx_int8(model, calib)
    int8 = top1(quantized, x_test, y_test)

    out = os.path.abspath(args.out)
    os.makedirs(os.path.join(out, "calib"), exist_ok=True)
    torch.onnx.export(WithSoftmax(model), torch.from_numpy(x_test[:1]),
                      os.path.join(out, "model.onnx"), opset_version=13, input_names=["input"],
                      output_names=["probs"])
    for k in range(4):
        np.save(os.path.join(out, "calib", "batch_%d.npy" % k), calib[k * 32:(k + 1) * 32])
    np.save(os.path.join(out, "test_inputs.npy"), x_test)
    np.save(os.path.join(out, "test_labels.npy"), y_test)
    with open(os.path.join(out, "reference.yaml"), "w") as f:
        f.write("# Written by scripts/make_digits_model.py: top-1 accuracy (%%) on the %d test "
                "images.\n" % len(y_test))
        f.write("test_images: %d\n" % len(y_test))
        f.write("calibration_images: %d\n" % len(calib))
        f.write("fp32_top1: %.4f\n" % fp32)
        f.write("pytorch_fx_int8_top1: %.4f\n" % int8)
        f.write("pytorch_fx_engine: qnnpack (default qconfig; ReLU6 in fp32, see fx_int8)\n")
        f.write("torch_version: %s\n" % torch.__version__)
    print("fp32 top-1 %.2f%%, PyTorch FX int8 (qnnpack) top-1 %.2f%%" % (fp32, int8))


if __name__ == "__main__":
    main()
