"""Rotary embeddings as exporters write them run on the NPU (pass rotary-to-tokens,
docs/compiler-frontend.md): the rotation of each head, applied after the head split, is computed
on the token tensor before it, so the projection, the rotation and the head split stay in one NPU
segment, bit-exact against golden and equal to PyTorch in fp32."""

import io
import re

import numpy as np
import pytest
import torch

import npu

HIDDEN = 64
HEADS = 2
HEAD_DIM = HIDDEN // HEADS
TOKENS = 6


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rotate_pairs(x):
    return torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)


class RotaryBlock(torch.nn.Module):
    """Self-attention with rotary embeddings on q and k: q, k, v projections, heads,
    x * cos + rotate(x) * sin, softmax(q k^T / sqrt(D)) v, merge, output projection. cos and sin
    are given per token ([1, 1, T, D], as Hugging Face unsqueezes them); the rotation is
    rotate-half ("half") or interleaved pairs ("pairs")."""

    def __init__(self, pairs: bool):
        super().__init__()
        generator = torch.Generator().manual_seed(11)
        self.pairs = pairs
        self.q = torch.nn.Linear(HIDDEN, HIDDEN)
        self.k = torch.nn.Linear(HIDDEN, HIDDEN)
        self.v = torch.nn.Linear(HIDDEN, HIDDEN)
        self.out = torch.nn.Linear(HIDDEN, HIDDEN)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=generator) / 8)

    def heads(self, x):
        return x.view(1, TOKENS, HEADS, HEAD_DIM).transpose(1, 2)

    def rotary(self, x, cos, sin):
        return x * cos + (rotate_pairs(x) if self.pairs else rotate_half(x)) * sin

    def forward(self, x, cos, sin):
        q = self.rotary(self.heads(self.q(x)), cos, sin)
        k = self.rotary(self.heads(self.k(x)), cos, sin)
        scores = torch.softmax(q @ k.transpose(-1, -2) / HEAD_DIM ** 0.5, dim=-1)
        context = scores @ self.heads(self.v(x))
        return self.out(context.transpose(1, 2).reshape(1, TOKENS, HIDDEN))


def tables(pairs: bool):
    inv = 1.0 / (10000 ** (np.arange(0, HEAD_DIM, 2) / HEAD_DIM))
    angles = np.outer(np.arange(TOKENS), inv)
    angles = np.repeat(angles, 2, axis=1) if pairs else np.concatenate([angles, angles], axis=1)
    shape = (1, 1, TOKENS, HEAD_DIM)
    return (np.cos(angles).reshape(shape).astype(np.float32),
            np.sin(angles).reshape(shape).astype(np.float32))


@pytest.mark.parametrize("pairs", [False, True], ids=["half", "pairs"])
def test_rotary_runs_on_the_npu_bit_exact(pairs, cli, tmp_path):
    module = RotaryBlock(pairs).eval()
    cos, sin = tables(pairs)
    buffer = io.BytesIO()
    torch.onnx.export(module, (torch.zeros(1, TOKENS, HIDDEN), torch.from_numpy(cos),
                               torch.from_numpy(sin)),
                      buffer, opset_version=13, input_names=["x", "cos", "sin"],
                      output_names=["y"])
    path = tmp_path / "rotary.onnx"
    path.write_bytes(buffer.getvalue())
    rng = np.random.default_rng(5)
    samples = [{"x": rng.normal(0, 1, (1, TOKENS, HIDDEN)).astype(np.float32), "cos": cos,
                "sin": sin} for _ in range(9)]
    np.savez(tmp_path / "calib.npz", **{k: np.stack([s[k][0] for s in samples[:8]])
                                        for k in ("x", "cos", "sin")})

    # One NPU segment: the rotation's Slice/Neg/Concat, the cos/sin Muls and the attention are not
    # on the host, which only lays out the inputs and repeats the tables for the heads (the sine
    # table times the rotation's signs).
    dump = cli("compile", path, "--calib", tmp_path / "calib.npz", "-o", tmp_path / "m.npub",
               "--dump-after", "partition").stdout
    assert len(re.findall(r"^  #\d+ npu:", dump, re.MULTILINE)) == 1, dump
    host = dump.split("On the host")[1] if "On the host" in dump else ""
    host_ops = set(re.findall(r"^  \S+ \((\w+)\): ", host, re.MULTILINE))
    assert host_ops <= {"Reshape", "Transpose", "Concat", "Mul"}, dump

    model = npu.compile(buffer.getvalue(), calibration=samples[:8])
    assert model.npu_segments == 1
    inputs = samples[8]
    with torch.no_grad():
        expected = module(*(torch.from_numpy(inputs[k]) for k in ("x", "cos", "sin"))).numpy()
    # The rewrite keeps the fp32 model: the interpreter agrees with PyTorch.
    np.testing.assert_allclose(model.reference(inputs)["y"], expected, rtol=1e-5, atol=1e-5)
    result = model.verify(inputs, mode="timed")
    assert result.bit_exact and result.cycles > 0
    got = result.outputs["y"]
    cosine = float(np.dot(got.ravel(), expected.ravel()) /
                   (np.linalg.norm(got) * np.linalg.norm(expected)))
    assert cosine > 0.99, cosine
