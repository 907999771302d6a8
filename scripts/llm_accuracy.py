#!/usr/bin/python3
"""int8 accuracy of the tiny language models of scripts/export_llm.py over teacher-forced
positions (issue 39, docs/llm.md "Accuracy"), beside PyTorch's own dynamic int8.

For each model (Llama, GPT-2) the script exports the decode step at a past length of POSITIONS
and draws one sequence of POSITIONS random token ids (seed --seed). Then:
  - ours: `npu generate DECODE --prompt SEQ --max-new-tokens 1 --calib-prompt OTHER` feeds the
    sequence through the decode step a token at a time (teacher-forced), every run verified
    against golden; its report gives, per position, the cosine of the int8 logits with the fp32
    model's and whether both pick the same next token. Calibration: the decode-step inputs of
    the fp32 model's greedy generation from OTHER, 16 other random tokens (seed --seed + 1),
    over as many positions as the sequence, so every position is calibrated on other data.
  - PyTorch: torch.quantization.quantize_dynamic on the Linear layers (int8 weights per tensor,
    activations quantized per batch at run time) of the same model, the whole sequence in one
    forward pass, compared with the fp32 model's logits the same way. GPT-2's Conv1D layers and
    its tied lm_head are made Linear first (the same weights), so they are quantized too.
Prints a markdown table; with --check, exits 1 unless every model is bit-exact and ours reaches
top-1 agreement >= --min-top1 (default 95%) and a mean logit cosine >= --min-cosine (default
0.99). Random weights: the figures say how far int8 is from
fp32 on these models, not how a trained model would fare.

    scripts/llm_accuracy.py --npu build/npu --work build/llm-accuracy
"""
import argparse
import json
import os
import subprocess
import sys
import types

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_llm  # noqa: E402


def linearize(model):
    """GPT-2's Conv1D layers and tied lm_head as nn.Linear with the same weights (a copy)."""
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if isinstance(child, export_llm.Conv1D):
                linear = nn.Linear(child.weight.shape[0], child.nf)
                linear.weight.data = child.weight.data.t().contiguous()
                linear.bias.data = child.bias.data.clone()
                setattr(parent, name, linear)
    if isinstance(model, export_llm.Gpt2):
        model.lm_head = nn.Linear(model.wte.weight.shape[1], model.wte.weight.shape[0],
                                  bias=False)
        model.lm_head.weight.data = model.wte.weight.data.clone()
        forward = model.forward

        def untied(self, input_ids, attention_mask, position_ids, *past):
            x = self.wte(input_ids) + self.wpe(position_ids)
            mask = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * self.mask_value
            for block in self.h:
                x, _ = block(x, mask, None, self.mask_value)
            return (self.lm_head(self.ln_f(x)),)
        model.forward = types.MethodType(untied, model)
        del forward
    return model


def torch_logits(model, tokens):
    ids = torch.tensor([tokens], dtype=torch.int64)
    with torch.no_grad():
        return model(ids, torch.ones_like(ids), torch.arange(len(tokens)).unsqueeze(0))[0][0]


def agreement(reference, other):
    """(mean cosine, min cosine, top-1 agreement %) of two [positions, vocab] logit arrays."""
    cos = F.cosine_similarity(reference, other, dim=-1)
    top1 = (reference.argmax(-1) == other.argmax(-1)).float().mean().item() * 100.0
    return cos.mean().item(), cos.min().item(), top1


def ours(npu, folder, model_name, sequence, calibration, work):
    """(mean cosine, min cosine, agreement %, bit-exact) of npu generate's teacher-forced runs."""
    prompt = os.path.join(work, model_name + "_sequence.npy")
    np.save(prompt, np.array(sequence, dtype=np.int64))
    out = os.path.join(work, model_name + "_generate")
    stem = os.path.join(folder, model_name + "_decode")
    other = os.path.join(work, model_name + "_calibration.npy")
    np.save(other, np.array(calibration, dtype=np.int64))
    subprocess.run([npu, "generate", stem + ".onnx", "--prompt", prompt, "--max-new-tokens", "1",
                    "--calib-prompt", other, "--out", out, "--quiet"], check=False)
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    runs = report["steps"]
    cos = [s["logit_cosine"] for s in runs]
    agree = 100.0 * sum(s["fp32_agrees"] for s in runs) / len(runs)
    return float(np.mean(cos)), float(np.min(cos)), agree, report["pass"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--npu", required=True, help="the npu CLI")
    parser.add_argument("--work", required=True, help="folder for the models and reports")
    parser.add_argument("--positions", type=int, default=64,
                        help="teacher-forced positions (default 64)")
    parser.add_argument("--seed", type=int, default=5, help="seed of the sequence (default 5)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless every model is bit-exact and reaches --min-top1 and "
                             "--min-cosine")
    parser.add_argument("--min-top1", type=float, default=95.0,
                        help="--check's top-1 agreement with fp32, %% (default 95)")
    parser.add_argument("--min-cosine", type=float, default=0.99,
                        help="--check's mean logit cosine (default 0.99)")
    args = parser.parse_args(argv)
    torch.set_num_threads(2)
    torch.manual_seed(0)
    folder = os.path.join(args.work, "models")
    export = ["--out", folder, "--past-len", str(args.positions), "--seq-len", "8", "--calib",
              "8", "--eval", "1", "--graph", "decode"]
    rows = []
    failures = []
    for model_name in export_llm.MODELS:
        if not os.path.exists(os.path.join(folder, model_name + "_decode.onnx")):
            export_llm.main(export + [model_name])
        vocab = export_llm.config_of(model_name)["vocab"]
        sequence = np.random.default_rng(args.seed).integers(0, vocab, args.positions).tolist()
        calibration = np.random.default_rng(args.seed + 1).integers(0, vocab, 16).tolist()
        mean, low, agree, exact = ours(args.npu, folder, model_name, sequence, calibration,
                                       args.work)
        model = export_llm.build_model(model_name, export_llm.parse_args(export + [model_name]))
        fp32 = torch_logits(model, sequence)
        dynamic = torch.quantization.quantize_dynamic(linearize(model), {nn.Linear},
                                                      dtype=torch.qint8)
        t_mean, t_low, t_agree = agreement(fp32, torch_logits(dynamic, sequence))
        rows.append("| %s | %d | %.5f (%.5f) | %.1f%% | %s | %.5f (%.5f) | %.1f%% |" % (
            model_name, args.positions, mean, low, agree, "yes" if exact else "NO", t_mean, t_low,
            t_agree))
        if not exact or agree < args.min_top1 or mean < args.min_cosine:
            failures.append("%s: bit-exact %s, top-1 %.1f%%, cosine %.5f" % (
                model_name, exact, agree, mean))
    print("| model | positions | ours: logit cosine mean (min) | ours: top-1 = fp32 | bit-exact "
          "| PyTorch dynamic int8: cosine mean (min) | PyTorch: top-1 = fp32 |")
    print("|---|---:|---:|---:|---|---:|---:|")
    print("\n".join(rows))
    for failure in failures:
        print("FAIL " + failure)
    return 1 if args.check and failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
