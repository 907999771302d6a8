#!/usr/bin/python3
"""Exports the small ONNX test models of the compiler front end, with PyTorch's output for a fixed
input, so the tests can check import, the passes and the fp32 interpreter against a real exporter.

Together the models use every op the ONNX importer accepts. Each model NAME gets NAME.onnx,
NAME.input.npy and NAME.output.npy. Run with Debian's python3-torch and python3-onnx:

    /usr/bin/python3 scripts/make_test_models.py tests/compiler/models [NAME...]

With NAMEs only those models are written (the others are still built, so the random draws and hence
every model's bytes do not depend on which are asked for). The output is deterministic: re-running
rewrites the committed files byte for byte. The host-op models (hostops, hostops_opset17,
handmade_opset18) check after export that every op they are meant to exercise is in the graph and
print the graph's op types.
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


class HostOps(nn.Module):
    """Fp32 host kernels at opset 13, each applied to the input (so comparisons, Floor/Ceil/Round
    and ArgMax see exactly the values the compiler sees); results flattened into one output.

    ONNX ops: ReduceMean (axes attribute, keepdims 1 and 0), ReduceSum (axes input), ReduceMax,
    ReduceMin, ReduceL2, Pow (constant and tensor exponent), Sqrt, Abs, Reciprocal, Exp, Log, Neg,
    Floor, Ceil, Round, Erf, Softplus, Tanh (Mish is Softplus-Tanh-Mul before opset 18), PRelu
    (slope [C,1,1]), Min, Max, Where, Greater, Equal, Less, Not, And (on bools Cast from the
    comparisons), Add, Sub, Mul, Expand, Tile (repeat: Expand to ones, then Tile), Split (split
    sizes input), Slice (also step 2, and step -1 for flip), Gather (index list on data; scalar
    index for x[0]), DepthToSpace (CRD, pixel_shuffle),
    MatMul (batched [8,4,4] x [8,4,4]), Softmax (axis 1), LogSoftmax (axis -1), ArgMax + Cast,
    InstanceNormalization (InstanceNorm2d, and GroupNorm as Reshape-InstanceNormalization-Reshape
    -Mul-Add), Reshape, Transpose, Concat; shape arithmetic from the exporter: Shape, Gather, Div
    (int64, torch.chunk), ConstantOfShape, Equal and Where on int64 (expand), Cast. PyTorch 1.13
    exports pixel_unshuffle as Reshape-Transpose-Reshape, not SpaceToDepth (handmade_opset18 has
    SpaceToDepth).
    """

    OPS = {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceL2", "Pow", "Sqrt", "Abs",
           "Reciprocal", "Exp", "Log", "Neg", "Floor", "Ceil", "Round", "Erf", "Softplus", "Tanh",
           "PRelu", "Min", "Max", "Where", "Greater", "Equal", "Less", "Not", "And", "Expand",
           "Tile", "Split", "Slice", "Gather", "DepthToSpace", "MatMul", "Softmax", "LogSoftmax",
           "ArgMax", "Cast", "InstanceNormalization", "Reshape", "Transpose", "Concat"}

    def __init__(self, channels=8):
        super().__init__()
        self.prelu = nn.PReLU(num_parameters=channels)
        self.inorm = nn.InstanceNorm2d(channels, affine=True)
        self.gnorm = nn.GroupNorm(4, channels)
        with torch.no_grad():
            self.prelu.weight.copy_(torch.linspace(-0.5, 0.5, channels))
            for norm in (self.inorm, self.gnorm):
                norm.weight.copy_(1 + 0.2 * torch.randn(channels))
                norm.bias.copy_(0.2 * torch.randn(channels))

    def forward(self, x):
        n, c, h, w = x.shape
        a = x.abs()
        y = x.flip(3)
        r = torch.round(x)
        s0, s1, s2 = torch.split(x, [2, 2, 4], dim=1)
        c0, c1 = torch.chunk(x, 2, dim=2)
        outs = [
            # Reductions.
            x.mean((2, 3), keepdim=True), x.mean((2, 3)), x.sum(1), x.amax((2, 3)),
            x.amin(3, keepdim=True), torch.norm(x, p=2, dim=(2, 3)),
            # Unary math, summed in groups of the same shape to keep the file small.
            torch.pow(a + 0.5, 1.5) + 0.5 * torch.pow(x, 2) + torch.sqrt(a + 1e-3)
            + torch.reciprocal(a + 1.0) + torch.pow(a + 0.5, 0.5 * y),
            torch.exp(0.5 * x) + torch.log(a + 1.0) + 0.5 * torch.neg(x) + 0.25 * a,
            torch.floor(3 * x) + 0.5 * torch.ceil(3 * x) + 0.25 * torch.round(3 * x),
            torch.erf(x) + 0.5 * F.mish(x) + 0.25 * F.softplus(x),
            self.prelu(x),
            # Min/Max, comparisons, Where, logic.
            torch.minimum(x, y) + 0.5 * torch.maximum(x, y),
            torch.where(x > 0, x, 0.1 * x) + 0.5 * torch.where(torch.eq(r, 0.0), y, x),
            torch.where(torch.lt(x, y), x - y, 2 * y)
            + 0.5 * torch.where((x > -0.5) & ~torch.lt(x, 0.5), x, -x),
            # Data movement.
            x.mean((2, 3), keepdim=True).expand(n, c, h, w) - x,
            x[:, :2].repeat(1, 2, 1, 2),
            s0 * s1, s2 + 1, c0 - c1,
            x[:, 1:7:2, 1:, :3], x[:, [0, 2, 1]], torch.index_select(x, 3, torch.tensor([3, 0, 2])),
            F.pixel_shuffle(x, 2).reshape(n, -1) + 0.5 * F.pixel_unshuffle(x, 2).reshape(n, -1),
            # Batched MatMul of two activations.
            torch.matmul(x[0], x[0].transpose(1, 2)) * 0.25,
            torch.softmax(x, 1) + 0.5 * torch.log_softmax(x, -1),
            torch.argmax(x, 1, keepdim=True).float() + x[:, :1],
            self.inorm(x) + 0.5 * self.gnorm(x),
            # Channel shuffle.
            x.view(n, 2, c // 2, h, w).transpose(1, 2).reshape(n, c, h, w),
        ]
        return torch.cat([o.reshape(n, -1) for o in outs], 1)


class ConvNeXtBlock(nn.Module):
    """Depthwise 7x7, NHWC LayerNorm, Linear-GELU-Linear, layer scale, residual."""

    def __init__(self, dim):
        super().__init__()
        self.dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(torch.full((dim,), 0.5))

    def forward(self, x):
        y = self.dw(x).permute(0, 2, 3, 1)
        y = self.fc2(F.gelu(self.fc1(self.norm(y))))
        return x + (self.gamma * y).permute(0, 3, 1, 2)


class HostOps17(nn.Module):
    """Opset 17 LayerNormalization: over the last dim and the last two, a ConvNeXt block, and the
    ViT class token (a learned [1,1,D] token expanded and concatenated before the patch tokens).

    ONNX ops: LayerNormalization (axis -1 and -2), Conv (depthwise 7x7 and 4x4 stride-4 patch
    embedding), Transpose, MatMul + Add (Linear on 3-D/4-D), Div-Erf-Add-Mul-Mul (GELU; there is
    no Gelu op before opset 20), Mul, Add, Expand (shape from ConstantOfShape-Mul-Equal-Where on
    int64), Concat, Shape-Slice-Concat-Reshape (flatten(2)), Flatten.
    """

    OPS = {"LayerNormalization", "Conv", "Transpose", "MatMul", "Add", "Div", "Erf", "Mul",
           "Expand", "Concat", "Reshape", "Flatten"}

    def __init__(self, channels=8, size=8, dim=8, patch=4):
        super().__init__()
        self.ln_last = nn.LayerNorm(size)
        self.ln_two = nn.LayerNorm([size, size])
        self.block = ConvNeXtBlock(channels)
        self.patch = nn.Conv2d(channels, dim, patch, stride=patch)
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.5)
        self.pos = nn.Parameter(torch.randn(1, (size // patch) ** 2 + 1, dim) * 0.1)
        self.ln_tok = nn.LayerNorm(dim)
        self.mlp = nn.Linear(dim, dim)
        # Trained-looking affine parameters (all-ones scales would also let the exporter share
        # equal initialisers through Identity nodes).
        with torch.no_grad():
            for norm in (self.ln_last, self.ln_two, self.block.norm, self.ln_tok):
                norm.weight.copy_(1 + 0.2 * torch.randn_like(norm.weight))
                norm.bias.copy_(0.2 * torch.randn_like(norm.bias))

    def forward(self, x):
        n = x.shape[0]
        t = self.patch(x).flatten(2).transpose(1, 2)
        t = torch.cat([self.cls.expand(n, -1, -1), t], 1) + self.pos
        t = F.gelu(self.mlp(self.ln_tok(t)))
        outs = [self.ln_last(x), self.ln_two(x), self.block(x), t]
        return torch.cat([o.flatten(1) for o in outs], 1)


def check_ops(path, name, expected):
    """Prints the graph's op types and fails if one the model is meant to exercise is missing."""
    ops = sorted({node.op_type for node in onnx.load(path).graph.node})
    print(f"{name}: {len(ops)} op types: {' '.join(ops)}")
    missing = set(expected) - set(ops)
    if missing:
        sys.exit(f"{name}: the exported graph lacks {sorted(missing)}")


def save(out, name, model, x, opset, external=False, wanted=None):
    if wanted and name not in wanted:
        return
    model.eval()
    with torch.no_grad():
        y = model(x)
    assert torch.isfinite(y).all(), name
    path = os.path.join(out, name + ".onnx")
    # PRESERVE keeps BatchNormalization nodes (EVAL would fold them into the convs), so the
    # compiler's own folding is exercised.
    torch.onnx.export(model, x, path, opset_version=opset, input_names=["input"],
                      output_names=["output"], training=torch.onnx.TrainingMode.PRESERVE)
    if external:
        m = onnx.load(path)
        # onnx appends to an existing data file: start from none, so a re-run writes the same bytes.
        weights = os.path.join(out, name + ".weights")
        if os.path.exists(weights):
            os.remove(weights)
        onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=name + ".weights", size_threshold=0)
    np.save(os.path.join(out, name + ".input.npy"), x.numpy())
    np.save(os.path.join(out, name + ".output.npy"), y.numpy())
    if hasattr(model, "OPS"):
        check_ops(path, name, model.OPS)


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


def handmade_opset18(out):
    """Opset 18 spellings PyTorch 1.13 cannot export, built with onnx.helper; the expected output is
    computed with numpy here (onnx 1.12 has no reference evaluator).

    ONNX ops: ReduceMean with axes as an input (keepdims 0 and 1), ReduceSum and ReduceMax with axes
    inputs (one negative), GroupNormalization (opset 18: scale and bias of shape [num_groups]),
    Split with num_outputs (5 split 3 ways: 2, 2, 1), Reshape, Einsum "bij,bjk->bik", Transpose,
    Range (int64 constants) + Cast to float + Mul + Add (broadcast over the last axis), Tile,
    SpaceToDepth, DepthToSpace (mode DCR), Expand, Max, Where, Equal, Less, Greater, Not, And on
    float data, ArgMax keepdims 0 + Cast, Softmax (axis 1 of a 4-D tensor), LogSoftmax (axis 2),
    Mul, Add, Concat.
    """
    ops = {"ReduceMean", "ReduceSum", "ReduceMax", "GroupNormalization", "Split", "Reshape",
           "Einsum", "Transpose", "Range", "Cast", "Mul", "Add", "Tile", "SpaceToDepth",
           "DepthToSpace", "Expand", "Max", "Where", "Equal", "Less", "Greater", "Not", "And",
           "ArgMax", "Softmax", "LogSoftmax", "Concat"}
    shape = [1, 4, 4, 5]
    rng = np.random.default_rng(18)
    x = rng.standard_normal(shape).astype(np.float32)
    gn_scale = np.array([1.25, 0.75], np.float32)
    gn_bias = np.array([0.1, -0.2], np.float32)

    def i64(name, values):
        return numpy_helper.from_array(np.array(values, np.int64), name)

    def f32(name, values):
        return numpy_helper.from_array(np.array(values, np.float32), name)

    inits = [
        i64("axes_hw", [2, 3]), i64("axes_c", [1]), i64("axes_last", [-1]),
        f32("gn_scale", gn_scale), f32("gn_bias", gn_bias),
        i64("shape_bhw", [4, 4, 5]), i64("row", [1, -1]),
        i64("r_start", 0), i64("r_limit", 5), i64("r_delta", 1),
        i64("repeats", [1, 1, 1, 2]), i64("expand_to", [1, 3, 1, 1]),
        f32("zero", 0.0), f32("half", 0.5), f32("tenth", 0.1), f32("minus_one", -1.0),
    ]
    node = helper.make_node
    nodes = [
        node("ReduceMean", ["input", "axes_hw"], ["mean_hw"], keepdims=0),
        node("ReduceMean", ["input", "axes_c"], ["mean_c"], keepdims=1),
        node("ReduceSum", ["input", "axes_last"], ["sum_w"], keepdims=1),
        node("ReduceMax", ["input", "axes_c"], ["max_c"], keepdims=0),
        node("GroupNormalization", ["input", "gn_scale", "gn_bias"], ["gn"], num_groups=2,
             epsilon=1e-5),
        node("Split", ["input"], ["w0", "w1", "w2"], axis=3, num_outputs=3),
        node("Mul", ["w0", "w1"], ["w01"]),
        node("Reshape", ["input", "shape_bhw"], ["bhw"]),
        node("Transpose", ["bhw"], ["bwh"], perm=[0, 2, 1]),
        node("Einsum", ["bhw", "bwh"], ["gram"], equation="bij,bjk->bik"),
        node("Range", ["r_start", "r_limit", "r_delta"], ["ramp_i"]),
        node("Cast", ["ramp_i"], ["ramp"], to=TensorProto.FLOAT),
        node("Mul", ["ramp", "tenth"], ["ramp_s"]),
        node("Add", ["input", "ramp_s"], ["ramped"]),
        node("Tile", ["input", "repeats"], ["tiled"]),
        node("SpaceToDepth", ["tiled"], ["s2d"], blocksize=2),
        node("DepthToSpace", ["s2d"], ["d2s"], blocksize=2, mode="DCR"),
        node("Expand", ["mean_c", "expand_to"], ["expanded"]),
        node("Greater", ["input", "zero"], ["gt"]),
        node("Less", ["input", "half"], ["lt"]),
        node("Not", ["lt"], ["ge"]),
        node("And", ["gt", "lt"], ["band"]),
        node("Max", ["input", "zero"], ["relu"]),
        node("Equal", ["input", "relu"], ["eq"]),
        node("Where", ["band", "input", "zero"], ["where_and"]),
        node("Where", ["ge", "half", "input"], ["where_not"]),
        node("Mul", ["input", "half"], ["x_half"]),
        node("Where", ["eq", "x_half", "minus_one"], ["where_eq"]),
        node("ArgMax", ["input"], ["argmax_i"], axis=1, keepdims=0),
        node("Cast", ["argmax_i"], ["argmax"], to=TensorProto.FLOAT),
        node("Softmax", ["input"], ["softmax"], axis=1),
        node("LogSoftmax", ["input"], ["logsoftmax"], axis=2),
    ]
    parts = ["mean_hw", "mean_c", "sum_w", "max_c", "gn", "w01", "w2", "gram", "ramped", "s2d",
             "d2s", "expanded", "where_and", "where_not", "where_eq", "argmax", "softmax",
             "logsoftmax"]
    for part in parts:
        nodes.append(node("Reshape", [part, "row"], [part + "_row"]))
    nodes.append(node("Concat", [p + "_row" for p in parts], ["output"], axis=1))

    # The expected output, op by op in float64.
    xd = x.astype(np.float64)
    g = xd.reshape(1, 2, 2, 4, 5)
    gn = (g - g.mean((2, 3, 4), keepdims=True)) / np.sqrt(g.var((2, 3, 4), keepdims=True) + 1e-5)
    gn = (gn * gn_scale.reshape(1, 2, 1, 1, 1) + gn_bias.reshape(1, 2, 1, 1, 1)).reshape(shape)
    bhw = xd.reshape(4, 4, 5)
    tiled = np.tile(xd, (1, 1, 1, 2))
    n, c, h, w = tiled.shape
    s2d = tiled.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 3, 5, 1, 2, 4)
    s2d = s2d.reshape(n, c * 4, h // 2, w // 2)
    d2s = s2d.reshape(n, 2, 2, c, h // 2, w // 2).transpose(0, 3, 4, 1, 5, 2).reshape(tiled.shape)
    assert (d2s == tiled).all()  # DCR DepthToSpace undoes SpaceToDepth
    mean_c = xd.mean(1, keepdims=True)
    e = np.exp(xd - xd.max(1, keepdims=True))
    lse = np.log(np.exp(xd - xd.max(2, keepdims=True)).sum(2, keepdims=True))
    results = [
        xd.mean((2, 3)), mean_c, xd.sum(-1, keepdims=True), xd.max(1), gn,
        xd[..., 0:2] * xd[..., 2:4], xd[..., 4:5],
        bhw @ bhw.transpose(0, 2, 1),
        xd + 0.1 * np.arange(5),
        s2d, d2s, np.broadcast_to(mean_c, (1, 3, 4, 5)),
        np.where((x > 0) & (x < 0.5), xd, 0.0),
        np.where(~(x < 0.5), 0.5, xd),
        np.where(x == np.maximum(x, 0), xd * 0.5, -1.0),
        np.argmax(x, 1).astype(np.float64),
        e / e.sum(1, keepdims=True),
        xd - xd.max(2, keepdims=True) - lse,
    ]
    expected = np.concatenate([r.reshape(1, -1) for r in results], 1).astype(np.float32)
    assert np.isfinite(expected).all()

    graph = helper.make_graph(
        nodes, "handmade_opset18",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, list(expected.shape))], inits)
    # No onnx.checker: onnx 1.12 knows opsets up to 17 and would reject the opset 18 nodes.
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)
    path = os.path.join(out, "handmade_opset18.onnx")
    onnx.save(model, path)
    np.save(os.path.join(out, "handmade_opset18.input.npy"), x)
    np.save(os.path.join(out, "handmade_opset18.output.npy"), expected)
    check_ops(path, "handmade_opset18", ops)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/compiler/models"
    wanted = set(sys.argv[2:])
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    convnet = ConvNet()
    # Non-trivial BN statistics, as a trained network has.
    convnet.train()
    with torch.no_grad():
        for _ in range(3):
            convnet(torch.randn(4, 3, 32, 32))
    save(out, "convnet", convnet, torch.randn(1, 3, 32, 32), 13, wanted=wanted)
    save(out, "activations", Activations(), torch.randn(1, 4, 8, 8), 17, wanted=wanted)
    save(out, "activations_opset11", Activations(), torch.randn(1, 4, 8, 8), 11, wanted=wanted)
    save(out, "shapes", Shapes(), torch.randn(1, 3, 6, 6), 13, wanted=wanted)
    save(out, "upsampling", Upsampling(), torch.randn(1, 4, 5, 5), 11, wanted=wanted)
    save(out, "legacy", Legacy(), torch.randn(1, 2, 3, 3), 9, wanted=wanted)
    save(out, "external", ConvNet(), torch.randn(1, 3, 16, 16), 13, external=True, wanted=wanted)
    if not wanted or "handmade" in wanted:
        handmade(out)
    # The models added later each start from their own seed, so they never shift the ones above.
    torch.manual_seed(1)
    save(out, "hostops", HostOps(), torch.randn(1, 8, 4, 4), 13, wanted=wanted)
    torch.manual_seed(2)
    save(out, "hostops_opset17", HostOps17(), torch.randn(1, 8, 8, 8), 17, wanted=wanted)
    if not wanted or "handmade_opset18" in wanted:
        handmade_opset18(out)


if __name__ == "__main__":
    main()
