#!/usr/bin/python3
"""Evaluates a QDQ ONNX model with PyTorch ops: an independent reference of what a QDQ model
computes, for checking `npu` against the parameters written in the file (docs/quantized-models.md).

onnxruntime is not a Debian package and onnx 1.12 has no reference evaluator, so this walks the
graph node by node with torch.nn.functional in float32. QuantizeLinear is ONNX's
saturate(round_half_to_even(x / scale) + zero_point), DequantizeLinear (q - zero_point) * scale,
per tensor or per axis. Only the ops the project's QDQ models use are implemented; any other op
is an error naming it.

    /usr/bin/python3 scripts/qdq_reference.py MODEL.onnx --input X.npy [--count N] --out Y.npy

X.npy holds one sample per leading index (each fed with the model input's declared shape); Y.npy
holds the first graph output of each sample (or the value named by --value), stacked. Used as a module, `run(model, feeds)`
returns every graph output.
"""
import argparse
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper


def _attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _per_axis(param, x, axis):
    """A scale or zero point broadcast along `axis` of x."""
    if param.dim() == 0 or param.numel() == 1:
        return param.reshape(())
    shape = [1] * x.dim()
    shape[axis % x.dim()] = param.numel()
    return param.reshape(shape)


def quantize_linear(x, scale, zp, axis=1):
    lo, hi = (0, 255) if zp.dtype == torch.uint8 else (-128, 127)
    if zp.dtype == torch.int32:
        lo, hi = -(2**31), 2**31 - 1
    s = _per_axis(scale.float(), x, axis)
    z = _per_axis(zp.to(torch.int64), x, axis)
    q = torch.round(x.float() / s).to(torch.int64) + z  # torch.round: half to even, as ONNX
    return torch.clamp(q, lo, hi), zp.dtype


def dequantize_linear(q, scale, zp, axis=1):
    s = _per_axis(scale.float(), q, axis)
    z = _per_axis(zp.to(torch.int64), q, axis)
    return (q.to(torch.int64) - z).float() * s


def _pads(attrs, spatial):
    pads = list(attrs.get("pads", [0] * (2 * spatial)))
    return pads[:spatial], pads[spatial:]


def _conv(x, w, b, a):
    begin, end = _pads(a, w.dim() - 2)
    if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise ValueError("auto_pad is not supported by the reference")
    x = F.pad(x, [p for pair in zip(reversed(begin), reversed(end)) for p in pair])
    return F.conv2d(x, w, b, stride=a.get("strides", 1), dilation=a.get("dilations", 1),
                    groups=a.get("group", 1))


def _pool_pad(x, a, value):
    begin, end = _pads(a, 2)
    return F.pad(x, [begin[1], end[1], begin[0], end[0]], value=value)


def run(model, feeds, values=None, overrides=None, seen=None):
    """Every graph output of `model` (an onnx.ModelProto) for `feeds` (name -> np.ndarray), or
    the values named in `values`. A value named in `overrides` takes that array instead of what
    its node computes (so each op can be evaluated on another engine's inputs); `seen`, a dict,
    receives every value."""
    env = {}
    int_types = {}
    for init in model.graph.initializer:
        arr = numpy_helper.to_array(init)
        env[init.name] = torch.from_numpy(np.array(arr))
    for name, value in feeds.items():
        env[name] = torch.from_numpy(np.asarray(value, dtype=np.float32))
    for node in model.graph.node:
        a = _attrs(node)
        ins = [env[i] if i else None for i in node.input]
        op = node.op_type
        if op == "Constant":
            out = torch.from_numpy(np.array(numpy_helper.to_array(a["value"])))
        elif op == "QuantizeLinear":
            zp = ins[2] if len(ins) > 2 and ins[2] is not None else torch.tensor(0, dtype=torch.uint8)
            out, _ = quantize_linear(ins[0], ins[1], zp, a.get("axis", 1))
        elif op == "DequantizeLinear":
            zp = ins[2] if len(ins) > 2 and ins[2] is not None else torch.tensor(0, dtype=torch.uint8)
            out = dequantize_linear(ins[0], ins[1], zp, a.get("axis", 1))
        elif op == "Conv":
            out = _conv(ins[0], ins[1].float(), ins[2].float() if len(ins) > 2 and ins[2] is not None else None, a)
        elif op == "Gemm":
            x, w = ins[0], ins[1]
            if a.get("transA", 0):
                x = x.t()
            if a.get("transB", 0):
                w = w.t()
            out = a.get("alpha", 1.0) * (x @ w)
            if len(ins) > 2 and ins[2] is not None:
                out = out + a.get("beta", 1.0) * ins[2]
        elif op == "MatMul":
            out = ins[0] @ ins[1]
        elif op == "Relu":
            out = F.relu(ins[0])
        elif op == "Clip":
            lo = ins[1] if len(ins) > 1 and ins[1] is not None else None
            hi = ins[2] if len(ins) > 2 and ins[2] is not None else None
            out = torch.clamp(ins[0], None if lo is None else float(lo), None if hi is None else float(hi))
        elif op == "Sigmoid":
            out = torch.sigmoid(ins[0])
        elif op == "Tanh":
            out = torch.tanh(ins[0])
        elif op == "HardSigmoid":
            out = torch.clamp(a.get("alpha", 0.2) * ins[0] + a.get("beta", 0.5), 0, 1)
        elif op == "HardSwish":
            out = F.hardswish(ins[0])
        elif op == "LeakyRelu":
            out = F.leaky_relu(ins[0], a.get("alpha", 0.01))
        elif op in ("Add", "Sub", "Mul", "Div"):
            fn = {"Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "Div": torch.div}[op]
            out = fn(ins[0], ins[1])
        elif op == "Concat":
            out = torch.cat(ins, dim=a["axis"])
        elif op == "MaxPool":
            x = _pool_pad(ins[0], a, float("-inf"))
            out = F.max_pool2d(x, a["kernel_shape"], a.get("strides", 1), ceil_mode=bool(a.get("ceil_mode", 0)))
        elif op == "AveragePool":
            if not a.get("count_include_pad", 0) and any(a.get("pads", [0])):
                raise ValueError("AveragePool count_include_pad=0 with pads is not supported by the reference")
            x = _pool_pad(ins[0], a, 0.0)
            out = F.avg_pool2d(x, a["kernel_shape"], a.get("strides", 1), ceil_mode=bool(a.get("ceil_mode", 0)))
        elif op == "GlobalAveragePool":
            out = ins[0].mean(dim=(2, 3), keepdim=True)
        elif op == "Pad":
            pads = ins[1].tolist()
            half = len(pads) // 2
            value = float(ins[2]) if len(ins) > 2 and ins[2] is not None else 0.0
            flat = []
            for d in reversed(range(half)):
                flat += [pads[d], pads[d + half]]
            out = F.pad(ins[0], flat, value=value)
        elif op == "Resize":
            mode = a.get("mode", b"nearest")
            mode = mode.decode() if isinstance(mode, bytes) else mode
            if mode != "nearest":
                raise ValueError("Resize: only nearest is supported by the reference")
            if len(ins) > 3 and ins[3] is not None and ins[3].numel():
                size = [int(v) for v in ins[3].tolist()[2:]]
                out = F.interpolate(ins[0], size=size, mode="nearest")
            else:
                scales = [float(v) for v in ins[2].tolist()[2:]]
                out = F.interpolate(ins[0], scale_factor=scales, mode="nearest")
        elif op == "Flatten":
            axis = a.get("axis", 1)
            out = ins[0].reshape(int(np.prod(ins[0].shape[:axis])), -1)
        elif op == "Reshape":
            shape = [int(v) for v in ins[1].tolist()]
            shape = [ins[0].shape[i] if v == 0 else v for i, v in enumerate(shape)]
            out = ins[0].reshape(shape)
        elif op == "Identity":
            out = ins[0]
        elif op == "Transpose":
            out = ins[0].permute(*a["perm"])
        elif op == "Softmax":
            out = torch.softmax(ins[0], dim=a.get("axis", -1))
        elif op == "BatchNormalization":
            x, g, b, m, v = ins
            eps = a.get("epsilon", 1e-5)
            shape = [1, -1] + [1] * (x.dim() - 2)
            out = (x - m.reshape(shape)) / torch.sqrt(v.reshape(shape) + eps) * g.reshape(shape) + b.reshape(shape)
        else:
            raise ValueError(f"node '{node.name}': op {op} is not supported by the reference")
        if overrides and node.output[0] in overrides:
            out = torch.from_numpy(np.asarray(overrides[node.output[0]], dtype=np.float32))
        env[node.output[0]] = out
    if seen is not None:
        seen.update(env)
    names = values if values else [o.name for o in model.graph.output]
    return [env[n].numpy() for n in names]


def _dequantized_name(model, value):
    """The DequantizeLinear output that readers of `value` read in a QDQ model (or None)."""
    quantized = {n.output[0] for n in model.graph.node if n.op_type == "QuantizeLinear" and n.input[0] == value}
    for n in model.graph.node:
        if n.op_type == "DequantizeLinear" and n.input[0] in quantized:
            return n.output[0]
    return None


def layerwise(model, input_name, shape, samples, directory, out):
    """Each op on the other engine's int8 inputs; its int8 output against the other engine's."""
    entries = []
    with open(f"{directory}/tensors.txt") as f:
        for line in f:
            file, name, scale, zp = line.rstrip("\n").split("\t")
            entries.append((name, np.load(f"{directory}/{file}.npy"), float(scale), int(zp)))
    total = exact = within = 0
    worst = 0
    with torch.no_grad():
        for k, sample in enumerate(samples):
            overrides = {}
            for name, values, _, _ in entries:
                dq = _dequantized_name(model, name)
                if dq is not None and name != input_name:
                    overrides[dq] = values[k]
            seen = {}
            run(model, {input_name: sample.reshape(shape)}, overrides=overrides, seen=seen)
            for name, values, scale, _ in entries:
                dq = _dequantized_name(model, name)
                if dq is None or name == input_name:
                    continue
                ref_q = None
                for n in model.graph.node:
                    if n.op_type == "DequantizeLinear" and n.output[0] == dq:
                        ref_zp = seen[n.input[2]].numpy().astype(np.int64) if len(n.input) > 2 and n.input[2] else 0
                        ref_q = seen[n.input[0]].numpy().astype(np.int64) - ref_zp  # q - zp
                ours_q = np.round(values[k] / scale).astype(np.int64)  # q - zp as well
                d = np.abs(ref_q.reshape(-1) - ours_q.reshape(-1))
                total += d.size
                exact += int((d == 0).sum())
                within += int((d <= 1).sum())
                worst = max(worst, int(d.max()))
    print(f"layerwise: {total} int8 values over {len(samples)} samples, {100.0 * exact / total:.2f}% exact, "
          f"{100.0 * within / total:.2f}% within 1 LSB, max {worst} LSB")
    if out:
        with open(out, "w") as f:
            f.write(f"{total} {exact} {within} {worst}\n")
    return 0 if worst <= 1 else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--input", required=True, help=".npy of samples, one per leading index")
    parser.add_argument("--count", type=int, default=0, help="at most this many samples")
    parser.add_argument("--out", required=True, help=".npy of the first output per sample")
    parser.add_argument("--value", help="write this value instead of the first graph output")
    parser.add_argument("--layerwise", help="a directory of another engine's quantized tensors "
                        "(tensors.txt: 'file name scale zero_point' per line, FILE.npy [count, ...] "
                        "dequantized): every op runs on its int8 inputs, and each op's int8 output "
                        "is compared with it; prints the agreement, exits 1 beyond 1 LSB")
    args = parser.parse_args()
    model = onnx.load(args.model)
    inits = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    if len(inputs) != 1:
        sys.exit(f"qdq_reference: {args.model} has {len(inputs)} inputs; one is supported")
    shape = [d.dim_value or 1 for d in inputs[0].type.tensor_type.shape.dim]
    samples = np.load(args.input).astype(np.float32)
    if args.count:
        samples = samples[: args.count]
    if args.layerwise:
        sys.exit(layerwise(model, inputs[0].name, shape, samples, args.layerwise, args.out))
    outputs = []
    with torch.no_grad():
        for sample in samples:
            values = [args.value] if args.value else None
            outputs.append(run(model, {inputs[0].name: sample.reshape(shape)}, values)[0])
    np.save(args.out, np.stack(outputs))


if __name__ == "__main__":
    main()
