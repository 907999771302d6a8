"""A decoder's attention on the NPU (docs/llm.md): grouped-query heads (K/V heads repeated as
Hugging Face's repeat_kv and repeat_interleave write it; pass split-grouped-attention), a KV
cache given as inputs and extended by the new rows (the present K/V outputs), and an additive
mask built from an integer attention mask with the float minimum (pass clamp-attention-masks,
docs/numerics.md "Masked scores"). One NPU segment, fp32 equal to PyTorch, bit-exact, and close
to PyTorch in int8 even when most keys are masked."""

import io
import re

import numpy as np
import pytest
import torch

import npu

HIDDEN = 64
HEADS = 4
KV_HEADS = 2
HEAD_DIM = HIDDEN // HEADS
PAST = 7
FLOAT_MIN = float(torch.finfo(torch.float32).min)


class GroupedAttention(torch.nn.Module):
    """One token's attention over a cache of PAST past rows and itself: q, k, v projections,
    heads, the new K/V row appended to the past, K/V heads repeated ("expand": expand + reshape;
    "interleave": repeat_interleave), scores / sqrt(D) plus the mask, softmax, P V, merge,
    output projection. Returns the output and the present K/V."""

    def __init__(self, repeat: str):
        super().__init__()
        generator = torch.Generator().manual_seed(13)
        self.repeat = repeat
        self.q = torch.nn.Linear(HIDDEN, HEADS * HEAD_DIM, bias=False)
        self.k = torch.nn.Linear(HIDDEN, KV_HEADS * HEAD_DIM, bias=False)
        self.v = torch.nn.Linear(HIDDEN, KV_HEADS * HEAD_DIM, bias=False)
        self.out = torch.nn.Linear(HIDDEN, HIDDEN, bias=False)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=generator) / 6)

    def repeat_kv(self, x):
        groups = HEADS // KV_HEADS
        if self.repeat == "interleave":
            return torch.repeat_interleave(x, groups, dim=1)
        b, h, t, d = x.shape
        return x[:, :, None].expand(b, h, groups, t, d).reshape(b, h * groups, t, d)

    def forward(self, x, attention_mask, past_k, past_v):
        q = self.q(x).view(1, 1, HEADS, HEAD_DIM).transpose(1, 2)
        k = self.k(x).view(1, 1, KV_HEADS, HEAD_DIM).transpose(1, 2)
        v = self.v(x).view(1, 1, KV_HEADS, HEAD_DIM).transpose(1, 2)
        present_k = torch.cat([past_k, k], dim=2)
        present_v = torch.cat([past_v, v], dim=2)
        mask = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * FLOAT_MIN
        scores = q @ self.repeat_kv(present_k).transpose(-1, -2) / HEAD_DIM ** 0.5 + mask
        context = torch.softmax(scores, dim=-1) @ self.repeat_kv(present_v)
        y = self.out(context.transpose(1, 2).reshape(1, 1, HIDDEN))
        return y, present_k, present_v


def sample(rng, valid):
    """Inputs with the last `valid` of the PAST + 1 positions unmasked."""
    mask = np.zeros((1, PAST + 1), dtype=np.int64)
    mask[0, PAST + 1 - valid:] = 1
    return {"x": rng.normal(0, 1, (1, 1, HIDDEN)).astype(np.float32),
            "attention_mask": mask,
            "past_k": rng.normal(0, 1, (1, KV_HEADS, PAST, HEAD_DIM)).astype(np.float32),
            "past_v": rng.normal(0, 1, (1, KV_HEADS, PAST, HEAD_DIM)).astype(np.float32)}


@pytest.mark.parametrize("repeat", ["expand", "interleave"])
def test_grouped_attention_runs_on_the_npu(repeat, cli, tmp_path):
    module = GroupedAttention(repeat).eval()
    names = ["x", "attention_mask", "past_k", "past_v"]
    rng = np.random.default_rng(9)
    example = sample(rng, PAST + 1)
    buffer = io.BytesIO()
    torch.onnx.export(module, tuple(torch.from_numpy(example[n]) for n in names), buffer,
                      opset_version=14, input_names=names,
                      output_names=["y", "present_k", "present_v"])
    path = tmp_path / "attention.onnx"
    path.write_bytes(buffer.getvalue())
    # Calibrated over every number of unmasked positions, as a decoder's steps see them.
    samples = [sample(rng, 1 + k % (PAST + 1)) for k in range(16)]
    np.savez(tmp_path / "calib.npz", **{n: np.concatenate([s[n] for s in samples]) for n in names})

    dump = cli("compile", path, "--calib", tmp_path / "calib.npz", "-o", tmp_path / "m.npub",
               "--dump-after", "partition").stdout
    assert len(re.findall(r"^  #\d+ npu:", dump, re.MULTILINE)) == 1, dump
    host = dump.split("On the host")[1] if "On the host" in dump else ""
    host_ops = set(re.findall(r"^  \S+ \((\w+)\): ", host, re.MULTILINE))
    assert not host_ops & {"MatMul", "Softmax", "HeadMatMul"}, dump

    model = npu.compile(buffer.getvalue(), calibration=samples)
    assert model.npu_segments == 1
    for valid in (1, 3, PAST + 1):  # most keys masked, some, none
        inputs = sample(rng, valid)
        with torch.no_grad():
            expected = module(*(torch.from_numpy(inputs[n]) for n in names))
        reference = model.reference(inputs)
        for name, want in zip(["y", "present_k", "present_v"], expected):
            np.testing.assert_allclose(reference[name], want.numpy(), rtol=1e-5, atol=1e-5)
        result = model.verify(inputs, mode="timed")
        assert result.bit_exact
        got = result.outputs["y"].ravel()
        want = expected[0].numpy().ravel()
        cosine = float(np.dot(got, want) / (np.linalg.norm(got) * np.linalg.norm(want)))
        assert cosine > 0.99, (valid, cosine)
