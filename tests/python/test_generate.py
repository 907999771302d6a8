"""npu.generate and Model.generate (docs/llm.md, docs/python.md): the token loop of `npu
generate` from Python. The CLI and the module must choose the same tokens for the same request
(one runtime behind both), and the report must say what the CLI's says."""

import json
import os
import sys

import numpy as np
import pytest
import torch

import npu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
import export_llm  # noqa: E402

PROMPT = [9, 200, 31, 4, 77]


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    """The tiny Llama's decode step and prefill at a past of 15 (a maximum context of 16)."""
    folder = tmp_path_factory.mktemp("llm")
    export_llm.main(["--out", str(folder), "--seq-len", "8", "--past-len", "15", "--calib", "1",
                     "--eval", "1", "llama"])
    return folder


def test_generate_matches_the_cli(llama, cli, tmp_path):
    decode = llama / "llama_decode.onnx"
    result = npu.generate(decode, PROMPT, max_new_tokens=6, prefill=llama / "llama_prefill.onnx")
    assert result.passed and len(result.tokens) == 6
    assert result.report["prompt"] == PROMPT
    assert [s["kind"] for s in result.report["steps"]] == ["prefill"] + ["decode"] * 5
    assert result.report["decode"]["tokens_per_second"] > 0
    np.save(tmp_path / "prompt.npy", np.array(PROMPT, dtype=np.int64))
    cli("generate", decode, "--prefill", llama / "llama_prefill.onnx", "--prompt",
        tmp_path / "prompt.npy", "--max-new-tokens", 6, "--out", tmp_path / "cli", "--quiet")
    with open(tmp_path / "cli" / "report.json") as f:
        assert json.load(f)["generated"] == result.tokens
    result.save(tmp_path / "saved")
    assert sorted(os.listdir(tmp_path / "saved")) == ["report.html", "report.json", "report.md"]


def test_model_generate_uses_the_models_graph(llama):
    decode = llama / "llama_decode.onnx"
    model = npu.compile(decode, calibration=llama / "llama_decode.calib")
    by_model = model.generate(np.array(PROMPT), max_new_tokens=4, sample="top-k", top_k=5, seed=3)
    direct = npu.generate(decode, PROMPT, max_new_tokens=4, sample="top-k", top_k=5, seed=3)
    assert by_model.passed and by_model.tokens == direct.tokens
    assert by_model.report["decode_model"] == str(decode)


def test_bad_requests_raise_npu_errors(llama):
    decode = llama / "llama_decode.onnx"
    with pytest.raises(npu.Error, match="need a context of 25"):
        npu.generate(decode, PROMPT, max_new_tokens=20)
    with pytest.raises(npu.Error, match="expected greedy or top-k"):
        npu.generate(decode, PROMPT, max_new_tokens=2, sample="beam")


class MaskLessStep(torch.nn.Module):
    """A decode step with a cache but no attention mask: its empty cache rows could not be
    hidden, so the loop must refuse it."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(16, 8)
        self.k = torch.nn.Linear(8, 8)
        self.out = torch.nn.Linear(8, 16)

    def forward(self, input_ids, past):
        x = self.embed(input_ids)
        present = torch.cat([past, self.k(x)[:, None]], dim=2)
        scores = torch.softmax(x[:, None] @ present.transpose(-1, -2), dim=-1)
        return self.out((scores @ present)[:, 0]), present


def test_a_decode_step_without_a_mask_is_refused(tmp_path):
    path = tmp_path / "maskless.onnx"
    torch.onnx.export(MaskLessStep(), (torch.zeros(1, 1, dtype=torch.int64),
                                       torch.zeros(1, 1, 3, 8)), str(path), opset_version=14,
                      input_names=["input_ids", "past_key_values.0.key"],
                      output_names=["logits", "present.0.key"])
    with pytest.raises(npu.Error, match="has no input 'attention_mask'"):
        npu.generate(path, [1, 2], max_new_tokens=1)
