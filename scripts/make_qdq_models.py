#!/usr/bin/python3
"""Writes the QDQ test models of docs/quantized-models.md to tests/data/qdq/, seeded, so every
re-run rewrites the committed files byte for byte. Run with Debian's python3-torch and
python3-onnx:

    /usr/bin/python3 scripts/make_qdq_models.py tests/data/qdq

Models (each NAME.onnx with NAME.input.npy, a few samples, and NAME.output.npy, the reference
output per sample):
- handmade_uint8 / handmade_int8: built with onnx.helper at opset 13; QuantizeLinear/
  DequantizeLinear around Conv (int8 weight initializers behind a DequantizeLinear, per-channel;
  float weights behind a per-tensor Q/DQ pair), Relu, MaxPool, Sigmoid, Add, Mul, Concat (inputs
  at different scales), Resize, AveragePool, GlobalAveragePool, Flatten, Gemm (int8 weights, int32
  bias) and MatMul. The two are the same model, activations and conv3's weights uint8 in one and
  int8 (zero points moved by -128) in the other. Reference: scripts/qdq_reference.py (PyTorch ops on the file's
  parameters).
- torch_qat: a small CNN through PyTorch's own fake-quant flow (torch.ao.quantization: fused
  conv+relu, prepare_qat with FakeQuantize modules, observers run on calibration batches, then
  frozen) exported by torch.onnx.export at opset 13. Reference: the PyTorch model's own fake-quant
  output.
- passive_mismatch: a MaxPool whose input and output Q/DQ scales differ (the compiler inserts a
  requantizing step).
- asymmetric_weights: int8 weights with non-zero zero points, one conv where q - zp fits int8
  (folded) and one where it does not (re-quantized).
- The bad_*.onnx models each hold one malformed or unsupported construct; the tests check the
  error text.
"""
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qdq_reference  # noqa: E402

warnings.filterwarnings("ignore")


class Builder:
    """A QDQ graph under construction with onnx.helper."""

    def __init__(self, act_dtype):
        self.nodes = []
        self.inits = []
        self.act_dtype = act_dtype  # "uint8" or "int8"
        self.count = 0

    def name(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def qdq(self, x, scale, zp_int8):
        """x -> QuantizeLinear -> DequantizeLinear, activation parameters given in int8 terms."""
        s = self.const(self.name(f"{x}_scale"), np.float32(scale))
        if self.act_dtype == "uint8":
            z = self.const(self.name(f"{x}_zp"), np.uint8(zp_int8 + 128))
        else:
            z = self.const(self.name(f"{x}_zp"), np.int8(zp_int8))
        q = f"{x}_q"
        out = f"{x}_dq"
        self.nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [q], name=f"{x}_Q"))
        self.nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [out], name=f"{x}_DQ"))
        return out

    def int8_weight(self, base, w_int8, scales, zps=None, axis=0, uint8=False):
        """An int8 initializer behind a DequantizeLinear (per axis); with `uint8` the same weights
        as uint8 with the zero points moved by +128."""
        zps = np.zeros(len(scales), np.int64) if zps is None else np.asarray(zps, np.int64)
        if uint8:
            q = self.const(f"{base}_quantized", (w_int8 + 128).astype(np.uint8))
            z = self.const(f"{base}_zp", (zps + 128).astype(np.uint8))
        else:
            q = self.const(f"{base}_quantized", w_int8.astype(np.int8))
            z = self.const(f"{base}_zp", zps.astype(np.int8))
        s = self.const(f"{base}_scale", np.asarray(scales, np.float32))
        out = f"{base}_dq"
        self.nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [out], axis=axis, name=f"{base}_DQ"))
        return out

    def int32_bias(self, base, b_int32, scales):
        q = self.const(f"{base}_quantized", b_int32.astype(np.int32))
        s = self.const(f"{base}_scale", np.asarray(scales, np.float32))
        z = self.const(f"{base}_zp", np.zeros(len(scales), np.int32))
        out = f"{base}_dq"
        self.nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [out], axis=0, name=f"{base}_DQ"))
        return out

    def float_weight_qdq(self, base, w, scale):
        """A float initializer behind a per-tensor int8 Q/DQ pair (fake quantization)."""
        f = self.const(f"{base}_float", w.astype(np.float32))
        s = self.const(f"{base}_scale", np.float32(scale))
        z = self.const(f"{base}_zp", np.int8(0))
        self.nodes.append(helper.make_node("QuantizeLinear", [f, s, z], [f"{base}_q"], name=f"{base}_Q"))
        self.nodes.append(helper.make_node("DequantizeLinear", [f"{base}_q", s, z], [f"{base}_dq"], name=f"{base}_DQ"))
        return f"{base}_dq"

    def node(self, op, inputs, output, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    def model(self, name, input_shape, output, output_shape):
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, input_shape)],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, output_shape)],
            self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                                  producer_name="make_qdq_models.py")
        model.ir_version = 7
        onnx.checker.check_model(model)
        return model


def handmade(act_dtype):
    rng = np.random.default_rng(14)
    b = Builder(act_dtype)
    s_in = 0.02
    x = b.qdq("input", s_in, -3)
    # conv1: 3 -> 8, 3x3, pad 1, per-channel int8 weights, int32 bias, ReLU.
    w1 = rng.integers(-127, 128, size=(8, 3, 3, 3))
    s_w1 = rng.uniform(0.002, 0.01, size=8).astype(np.float32)
    b1 = rng.integers(-2000, 2000, size=8)
    c1 = b.node("Conv", [x, b.int8_weight("conv1_w", w1, s_w1), b.int32_bias("conv1_b", b1, np.float32(s_in) * s_w1)],
                "conv1", pads=[1, 1, 1, 1], kernel_shape=[3, 3])
    r1 = b.qdq(b.node("Relu", [c1], "relu1"), 0.015, -128)
    p1 = b.qdq(b.node("MaxPool", [r1], "pool1", kernel_shape=[2, 2], strides=[2, 2]), 0.015, -128)
    # conv2: float weights behind a per-tensor Q/DQ pair, no bias.
    w2 = rng.normal(0, 0.2, size=(8, 8, 3, 3))
    c2 = b.qdq(b.node("Conv", [p1, b.float_weight_qdq("conv2_w", w2, np.abs(w2).max() / 127)], "conv2",
                      pads=[1, 1, 1, 1], kernel_shape=[3, 3]), 0.05, 4)
    # conv3 -> Sigmoid, with Q/DQ between them (the LUT's input quantization).
    w3 = rng.integers(-127, 128, size=(8, 8, 1, 1))
    c3 = b.qdq(b.node("Conv", [p1, b.int8_weight("conv3_w", w3, rng.uniform(0.001, 0.004, size=8),
                                                  uint8=act_dtype == "uint8")], "conv3",
                      kernel_shape=[1, 1]), 0.04, 10)
    sg = b.qdq(b.node("Sigmoid", [c3], "sigmoid"), 1.0 / 255, -128)
    a = b.qdq(b.node("Add", [c2, sg], "add"), 0.06, 2)
    m = b.qdq(b.node("Mul", [a, c2], "mul"), 0.08, -6)
    cat = b.qdq(b.node("Concat", [a, m], "concat", axis=1), 0.1, 0)
    scales = b.const("resize_scales", np.array([1, 1, 2, 2], np.float32))
    rs = b.qdq(b.node("Resize", [cat, "", scales], "resize", mode="nearest"), 0.1, 0)
    ap = b.qdq(b.node("AveragePool", [rs, ], "avgpool", kernel_shape=[2, 2], strides=[2, 2]), 0.1, 0)
    gp = b.qdq(b.node("GlobalAveragePool", [ap], "gap"), 0.1, 0)
    fl = b.node("Flatten", [gp], "flatten", axis=1)
    # Gemm 16 -> 12 (int8 weights per output channel, int32 bias), then MatMul 12 -> 10 (weights
    # [K, N] quantized along axis 1, the output channels).
    w4 = rng.integers(-127, 128, size=(12, 16))
    s_w4 = rng.uniform(0.002, 0.006, size=12).astype(np.float32)
    b4 = rng.integers(-500, 500, size=12)
    g4 = b.qdq(b.node("Gemm", [fl, b.int8_weight("fc1_w", w4, s_w4), b.int32_bias("fc1_b", b4, np.float32(0.1) * s_w4)],
                      "fc1", transB=1), 0.03, -20)
    w5 = rng.integers(-127, 128, size=(12, 10))
    out = b.qdq(b.node("MatMul", [g4, b.int8_weight("fc2_w", w5, rng.uniform(0.002, 0.006, size=10), axis=1)], "fc2"),
                0.02, 5)
    return b.model(f"handmade_{act_dtype}", [1, 3, 16, 16], out, [1, 10])


def passive_mismatch():
    rng = np.random.default_rng(15)
    b = Builder("uint8")
    x = b.qdq("input", 0.03, 0)
    w = rng.integers(-127, 128, size=(4, 2, 3, 3))
    c = b.qdq(b.node("Conv", [x, b.int8_weight("conv_w", w, [0.004] * 4)], "conv", pads=[1, 1, 1, 1],
                     kernel_shape=[3, 3]), 0.05, -10)
    p = b.qdq(b.node("MaxPool", [c], "pool", kernel_shape=[2, 2], strides=[2, 2]), 0.07, 3)
    w2 = rng.integers(-127, 128, size=(4, 4, 1, 1))
    out = b.qdq(b.node("Conv", [p, b.int8_weight("conv2_w", w2, [0.01] * 4)], "conv2", kernel_shape=[1, 1]), 0.1, 0)
    return b.model("passive_mismatch", [1, 2, 8, 8], out, [1, 4, 4, 4])


def asymmetric_weights():
    rng = np.random.default_rng(16)
    b = Builder("int8")
    x = b.qdq("input", 0.03, 0)
    w = rng.integers(-100, 100, size=(4, 2, 3, 3))  # q - zp stays in int8 for zp in [-20, 20]
    c = b.qdq(b.node("Conv", [x, b.int8_weight("conv_w", w, [0.004] * 4, zps=[5, -3, 0, 20])], "conv",
                     pads=[1, 1, 1, 1], kernel_shape=[3, 3]), 0.05, -10)
    w2 = rng.integers(-128, 128, size=(4, 4, 1, 1))  # q - zp leaves int8 for zp 60
    out = b.qdq(b.node("Conv", [c, b.int8_weight("conv2_w", w2, [0.01] * 4, zps=[60, 0, 0, 0])], "conv2",
                       kernel_shape=[1, 1]), 0.1, 0)
    return b.model("asymmetric_weights", [1, 2, 8, 8], out, [1, 4, 8, 8])


def bad_models():
    """name -> (model, what it breaks)."""
    models = {}

    def simple(edit):
        b = Builder("uint8")
        x = b.qdq("input", 0.03, 0)
        w = np.ones((2, 2, 1, 1), np.int64)
        out = b.qdq(b.node("Conv", [x, b.int8_weight("conv_w", w, [0.01, 0.02])], "conv", kernel_shape=[1, 1]), 0.1, 0)
        edit(b)
        graph = helper.make_graph(b.nodes, "bad", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 2, 4, 4])],
                                  [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 2, 4, 4])], b.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 7
        return model

    def negative_scale(b):
        for t in b.inits:
            if t.name.startswith("conv_w_scale"):
                t.CopyFrom(numpy_helper.from_array(np.array([0.01, -0.02], np.float32), t.name))
    models["bad_negative_scale"] = simple(negative_scale)

    def per_axis_activation(b):
        n = b.nodes[0]
        for t in b.inits:
            if t.name == n.input[1]:
                t.CopyFrom(numpy_helper.from_array(np.array([0.03, 0.04], np.float32), t.name))
            if t.name == n.input[2]:
                t.CopyFrom(numpy_helper.from_array(np.array([128, 128], np.uint8), t.name))
        b.nodes[1].input[1] = n.input[1]
        b.nodes[1].input[2] = n.input[2]
        n.attribute.append(helper.make_attribute("axis", 1))
        b.nodes[1].attribute.append(helper.make_attribute("axis", 1))
    models["bad_per_axis_activation"] = simple(per_axis_activation)

    def pair_mismatch(b):
        s = b.const("other_scale", np.float32(0.05))
        b.nodes[1].input[1] = s
    models["bad_pair_mismatch"] = simple(pair_mismatch)

    def zp_out_of_range(b):
        for t in b.inits:
            if t.name.startswith("conv_w_zp"):
                t.CopyFrom(numpy_helper.from_array(np.array([0, 0], np.int32), t.name))
    models["bad_zero_point_type"] = simple(zp_out_of_range)

    # The QOperator form: QLinearConv.
    x_s = numpy_helper.from_array(np.float32(0.03), "x_scale")
    x_z = numpy_helper.from_array(np.uint8(128), "x_zp")
    w = numpy_helper.from_array(np.ones((2, 2, 1, 1), np.int8), "w")
    w_s = numpy_helper.from_array(np.float32(0.01), "w_scale")
    w_z = numpy_helper.from_array(np.int8(0), "w_zp")
    y_s = numpy_helper.from_array(np.float32(0.1), "y_scale")
    y_z = numpy_helper.from_array(np.uint8(128), "y_zp")
    nodes = [
        helper.make_node("QuantizeLinear", ["input", "x_scale", "x_zp"], ["xq"], name="quant"),
        helper.make_node("QLinearConv", ["xq", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp"], ["yq"], name="qconv"),
        helper.make_node("DequantizeLinear", ["yq", "y_scale", "y_zp"], ["y"], name="dequant"),
    ]
    graph = helper.make_graph(nodes, "qop", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 2, 4, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 4, 4])], [x_s, x_z, w, w_s, w_z, y_s, y_z])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    models["bad_qoperator"] = model
    return models


class QatNet(nn.Module):
    """Conv+ReLU, max pool, two branches (conv+ReLU, conv), add, concat, global average pool,
    linear head: the ops of issue 14 through PyTorch's own fake-quant modules."""

    def __init__(self):
        super().__init__()
        q = torch.ao.quantization
        self.quant = q.QuantStub()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.relu1 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.relu2 = nn.ReLU()
        self.conv3 = nn.Conv2d(8, 8, 1)
        self.add = nn.quantized.FloatFunctional()
        self.cat = nn.quantized.FloatFunctional()
        self.gap = nn.AdaptiveAvgPool2d(1)
        # PyTorch leaves a pool's output unquantized in the fake-quant graph (the converted int8
        # model keeps the input's parameters); this observer quantizes it, as the NPU does.
        self.pooled = q.QuantStub()
        self.fc = nn.Linear(16, 10)
        self.dequant = q.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.pool(self.relu1(self.conv1(x)))
        a = self.relu2(self.conv2(x))
        b = self.conv3(x)
        s = self.add.add(a, b)
        x = self.cat.cat([s, a], dim=1)
        x = self.pooled(self.gap(x))
        x = self.fc(torch.flatten(x, 1))
        return self.dequant(x)


def torch_qat():
    torch.manual_seed(14)
    q = torch.ao.quantization
    model = QatNet().eval()
    model = q.fuse_modules(model, [["conv1", "relu1"], ["conv2", "relu2"]])
    activation = q.FakeQuantize.with_args(observer=q.MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                                          dtype=torch.quint8, qscheme=torch.per_tensor_affine, reduce_range=False)
    weight = q.FakeQuantize.with_args(observer=q.MovingAveragePerChannelMinMaxObserver, quant_min=-128,
                                      quant_max=127, dtype=torch.qint8, qscheme=torch.per_channel_symmetric,
                                      ch_axis=0)
    model.qconfig = q.QConfig(activation=activation, weight=weight)
    model.train()
    q.prepare_qat(model, inplace=True)
    calib = torch.randn(32, 3, 16, 16)
    with torch.no_grad():
        for k in range(0, 32, 4):
            model(calib[k:k + 4])
    model.apply(q.disable_observer)
    model.eval()
    inputs = torch.randn(64, 1, 3, 16, 16)
    with torch.no_grad():
        outputs = np.stack([model(x).numpy() for x in inputs])
    path = "/tmp/torch_qat_export.onnx"
    torch.onnx.export(model, inputs[0], path, opset_version=13, input_names=["input"], output_names=["output"],
                      do_constant_folding=True)
    exported = onnx.load(path)
    onnx.checker.check_model(exported)
    return exported, inputs.numpy(), outputs


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/qdq"
    os.makedirs(out, exist_ok=True)

    def save(name, model, inputs=None, outputs=None):
        onnx.save(model, os.path.join(out, f"{name}.onnx"))
        if inputs is not None:
            batch = inputs.reshape(inputs.shape[0], *inputs.shape[2:])  # [N, C, H, W]
            np.save(os.path.join(out, f"{name}.input.npy"), batch.astype(np.float32))
        if outputs is not None:
            np.save(os.path.join(out, f"{name}.output.npy"), outputs.astype(np.float32))

    def reference(model, inputs):
        with torch.no_grad():
            return np.stack([qdq_reference.run(model, {"input": x})[0] for x in inputs])

    rng = np.random.default_rng(1)
    for name, model in [("handmade_uint8", handmade("uint8")), ("handmade_int8", handmade("int8"))]:
        inputs = rng.uniform(-1.5, 1.5, size=(8, 1, 3, 16, 16)).astype(np.float32)
        save(name, model, inputs, reference(model, inputs))
    for name, model, shape in [("passive_mismatch", passive_mismatch(), (4, 1, 2, 8, 8)),
                               ("asymmetric_weights", asymmetric_weights(), (4, 1, 2, 8, 8))]:
        inputs = rng.normal(0, 1, size=shape).astype(np.float32)
        save(name, model, inputs, reference(model, inputs))
    model, inputs, outputs = torch_qat()
    save("torch_qat", model, inputs, outputs)
    # The QDQ reference evaluator agrees with PyTorch on its own export (a check of the evaluator).
    ref = reference(model, inputs)
    print(f"torch_qat: qdq_reference vs PyTorch fake-quant max |diff| = {np.abs(ref - outputs).max():.3g}")
    print("torch_qat ops:", sorted({n.op_type for n in model.graph.node}))
    for name, model in bad_models().items():
        save(name, model)


if __name__ == "__main__":
    main()
