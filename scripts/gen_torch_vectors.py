#!/usr/bin/python3
"""Writes int8 cross-check vectors from PyTorch's quantized kernels into tests/data/torch_vectors/.

Run with Debian's python3-torch: /usr/bin/python3 scripts/gen_torch_vectors.py
The format is documented in tests/data/torch_vectors/README.md. PyTorch activations are quint8;
they are stored as int8 by subtracting 128 from values and zero points, which leaves every real
value and every (x - zero_point) unchanged. Seeded, so a rerun reproduces the same files.
"""
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.intrinsic.quantized as nniq
import torch.ao.nn.quantized as nnq

ENGINE = "qnnpack"
OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                       "torch_vectors")

OP_CONV, OP_LINEAR, OP_ADD, OP_MAXPOOL, OP_AVGPOOL = range(5)
DTYPE_INT8, DTYPE_INT32 = 0, 1


def f32(v):
    """Rounds to a float32 value, so both sides see exactly the same scale."""
    return float(np.float32(v))


def write_case(path, op, attrs, floats, arrays):
    out = bytearray(b"NPTV")
    out += struct.pack("<II", 1, op)
    out += struct.pack("<I", len(attrs)) + struct.pack(f"<{len(attrs)}q", *attrs)
    out += struct.pack("<I", len(floats)) + struct.pack(f"<{len(floats)}d", *floats)
    out += struct.pack("<I", len(arrays))
    for arr in arrays:
        dtype = DTYPE_INT8 if arr.dtype == np.int8 else DTYPE_INT32
        assert arr.dtype in (np.int8, np.int32)
        out += struct.pack("<BB", dtype, arr.ndim) + struct.pack(f"<{arr.ndim}q", *arr.shape)
        out += np.ascontiguousarray(arr).astype("<" + arr.dtype.str[1:]).tobytes()
    with open(path, "wb") as f:
        f.write(out)


def quint8_tensor(q_int8, scale, zp_int8):
    """A torch quint8 tensor from int8 values and an int8 zero point."""
    u8 = torch.from_numpy((q_int8.astype(np.int16) + 128).astype(np.uint8))
    return torch._make_per_tensor_quantized_tensor(u8, scale, zp_int8 + 128)


def to_int8(q):
    """int8 values of a torch quint8 tensor."""
    return (q.int_repr().numpy().astype(np.int16) - 128).astype(np.int8)


def out_qparams(y_float, rng):
    """An output scale and zero point covering most of the float output range."""
    lo, hi = float(y_float.min()), float(y_float.max())
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    span = (hi - lo) * rng.uniform(0.7, 1.0)  # a little saturation at the ends, on purpose
    scale = f32(max(span / 255.0, 1e-3))
    zp = int(np.clip(round(-128 - lo / scale), -128, 127))
    return scale, zp


def per_channel_weights(rng, shape):
    w = rng.normal(0.0, 1.0, size=shape).astype(np.float32)
    w *= rng.uniform(0.3, 3.0, size=(shape[0],) + (1,) * (len(shape) - 1)).astype(np.float32)
    scales = np.array([f32(np.abs(w[c]).max() / 127.0) for c in range(shape[0])])
    q = np.clip(np.round(w / scales.reshape((-1,) + (1,) * (len(shape) - 1))), -127, 127)
    return q.astype(np.int8), scales


def random_activation(rng, shape):
    scale = f32(rng.uniform(0.005, 0.1))
    zp = int(rng.integers(-128, 128)) if rng.random() < 0.8 else int(rng.choice([-128, 127, 0]))
    q = rng.integers(-128, 128, size=shape).astype(np.int8)
    return q, scale, zp


def conv_case(rng, path, n, cin, cout, h, w, k, stride, pad, dil, groups, relu):
    xq, s_in, zp_in = random_activation(rng, (n, cin, h, w))
    wq, s_w = per_channel_weights(rng, (cout, cin // groups, k, k))
    bias_int = rng.integers(-2000, 2001, size=cout).astype(np.int32)
    bias_float = torch.tensor(bias_int.astype(np.float64) * s_in * s_w, dtype=torch.float32)
    qx = quint8_tensor(xq, s_in, zp_in)
    qw = torch._make_per_channel_quantized_tensor(
        torch.from_numpy(wq), torch.tensor(s_w, dtype=torch.double),
        torch.zeros(cout, dtype=torch.long), 0)
    y_float = torch.nn.functional.conv2d(qx.dequantize(), qw.dequantize(), bias_float, stride,
                                         pad, dil, groups)
    if relu:
        y_float = torch.relu(y_float)
    s_out, zp_out = out_qparams(y_float, rng)
    module_type = nniq.ConvReLU2d if relu else nnq.Conv2d
    conv = module_type(cin, cout, k, stride=stride, padding=pad, dilation=dil, groups=groups)
    conv.set_weight_bias(qw, bias_float)
    conv.scale, conv.zero_point = s_out, zp_out + 128
    y = to_int8(conv(qx))
    attrs = [stride, stride, pad, pad, pad, pad, dil, dil, groups, zp_in, zp_out, int(relu)]
    arrays = [xq.transpose(0, 2, 3, 1), wq.transpose(0, 2, 3, 1), bias_int, y.transpose(0, 2, 3, 1)]
    write_case(path, OP_CONV, attrs, [s_in, s_out] + list(s_w), arrays)


def linear_case(rng, path, n, k, cout, relu):
    xq, s_in, zp_in = random_activation(rng, (n, k))
    wq, s_w = per_channel_weights(rng, (cout, k))
    bias_int = rng.integers(-2000, 2001, size=cout).astype(np.int32)
    bias_float = torch.tensor(bias_int.astype(np.float64) * s_in * s_w, dtype=torch.float32)
    qx = quint8_tensor(xq, s_in, zp_in)
    qw = torch._make_per_channel_quantized_tensor(
        torch.from_numpy(wq), torch.tensor(s_w, dtype=torch.double),
        torch.zeros(cout, dtype=torch.long), 0)
    y_float = torch.nn.functional.linear(qx.dequantize(), qw.dequantize(), bias_float)
    if relu:
        y_float = torch.relu(y_float)
    s_out, zp_out = out_qparams(y_float, rng)
    module = (nniq.LinearReLU if relu else nnq.Linear)(k, cout)
    module.set_weight_bias(qw, bias_float)
    module.scale, module.zero_point = s_out, zp_out + 128
    y = to_int8(module(qx))
    attrs = [zp_in, zp_out, int(relu)]
    write_case(path, OP_LINEAR, attrs, [s_in, s_out] + list(s_w), [xq, wq, bias_int, y])


def add_case(rng, path, shape, relu):
    aq, s_a, zp_a = random_activation(rng, shape)
    bq, s_b, zp_b = random_activation(rng, shape)
    qa, qb = quint8_tensor(aq, s_a, zp_a), quint8_tensor(bq, s_b, zp_b)
    y_float = qa.dequantize() + qb.dequantize()
    if relu:
        y_float = torch.relu(y_float)
    s_out, zp_out = out_qparams(y_float, rng)
    fn = torch.ops.quantized.add_relu if relu else torch.ops.quantized.add
    try:
        y = to_int8(fn(qa, qb, s_out, zp_out + 128))
    except RuntimeError as e:
        print(f"add: {ENGINE} rejects scales {s_a} {s_b} -> {s_out}: {str(e)[:80]}")
        raise
    nhwc = (0, 2, 3, 1)
    attrs = [zp_a, zp_b, zp_out, int(relu)]
    write_case(path, OP_ADD, attrs, [s_a, s_b, s_out],
               [aq.transpose(nhwc), bq.transpose(nhwc), y.transpose(nhwc)])


def pool_case(rng, path, op, shape, k, stride, pad):
    xq, s, zp = random_activation(rng, shape)
    qx = quint8_tensor(xq, s, zp)
    if op == OP_MAXPOOL:
        y = torch.nn.functional.max_pool2d(qx, k, stride, pad)
    else:
        y = torch.nn.functional.avg_pool2d(qx, k, stride, pad, count_include_pad=True)
    assert y.q_scale() == s and y.q_zero_point() == zp + 128
    nhwc = (0, 2, 3, 1)
    write_case(path, op, [k, k, stride, stride, pad, pad, pad, pad, zp], [s],
               [xq.transpose(nhwc), to_int8(y).transpose(nhwc)])


def main():
    torch.backends.quantized.engine = ENGINE
    torch.manual_seed(0)
    rng = np.random.default_rng(20240601)
    os.makedirs(OUT_DIR, exist_ok=True)
    for name in os.listdir(OUT_DIR):
        if name.endswith(".bin"):
            os.remove(os.path.join(OUT_DIR, name))
    cases = []
    # Convolutions: kernel sizes, strides, dilation, depthwise, grouped, odd sizes and channel
    # counts that are not multiples of 16.
    kernels = [(1, 0), (3, 1), (5, 2), (7, 3)]
    for i in range(120):
        k, pad = kernels[i % 4]
        kind = ["dense", "dense", "depthwise", "grouped", "dense"][i % 5]
        stride = 2 if i % 3 == 1 else 1
        dil = 2 if (i % 7 == 3 and k <= 5) else 1
        pad = pad * dil if rng.random() < 0.8 else 0
        if kind == "depthwise":
            cin = int(rng.integers(3, 41))
            cout, groups = cin, cin
        elif kind == "grouped":
            groups = int(rng.choice([2, 3, 4]))
            cin = groups * int(rng.integers(1, 9))
            cout = groups * int(rng.integers(1, 9))
        else:
            cin, cout, groups = int(rng.integers(1, 36)), int(rng.integers(1, 36)), 1
        span = dil * (k - 1) + 1
        h = int(rng.integers(max(span - 2 * pad, 1), 14))
        w = int(rng.integers(max(span - 2 * pad, 1), 14))
        relu = rng.random() < 0.3
        n = 2 if i % 10 == 0 else 1
        cases.append(("conv", (n, cin, cout, h, w, k, stride, pad, dil, groups, relu),
                      f"k{k}s{stride}d{dil}g{groups}"))
    for i in range(30):
        cases.append(("linear", (int(rng.integers(1, 5)), int(rng.integers(1, 300)),
                                 int(rng.integers(1, 70)), rng.random() < 0.3), ""))
    for i in range(20):
        shape = (1, int(rng.integers(1, 40)), int(rng.integers(1, 12)), int(rng.integers(1, 12)))
        cases.append(("add", (shape, rng.random() < 0.3), ""))
    for op, name in ((OP_MAXPOOL, "maxpool"), (OP_AVGPOOL, "avgpool")):
        for i in range(20):
            k = [2, 3, 3, 2, 5][i % 5]
            stride = [2, 2, 1, 1, 2][i % 5]
            pad = int(rng.integers(0, k // 2 + 1))
            shape = (1, int(rng.integers(1, 40)), int(rng.integers(k, 16)),
                     int(rng.integers(k, 16)))
            cases.append((name, (op, shape, k, stride, pad), f"k{k}s{stride}p{pad}"))
    lines = []
    for index, (kind, args, tag) in enumerate(cases):
        file_name = f"{index:03d}_{kind}{'_' + tag if tag else ''}.bin"
        path = os.path.join(OUT_DIR, file_name)
        if kind == "conv":
            conv_case(rng, path, *args)
        elif kind == "linear":
            linear_case(rng, path, *args)
        elif kind == "add":
            add_case(rng, path, *args)
        else:
            pool_case(rng, path, *args)
        lines.append(file_name)
    with open(os.path.join(OUT_DIR, "MANIFEST"), "w") as f:
        f.write(f"# torch {torch.__version__}, quantized engine {ENGINE}; "
                f"written by scripts/gen_torch_vectors.py\n")
        f.write("\n".join(lines) + "\n")
    total = sum(os.path.getsize(os.path.join(OUT_DIR, n)) for n in lines)
    print(f"wrote {len(lines)} cases, {total} bytes, engine {ENGINE}, torch {torch.__version__}")


if __name__ == "__main__":
    sys.exit(main())
