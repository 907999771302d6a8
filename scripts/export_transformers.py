#!/usr/bin/python3
"""Exports two small transformer encoders with seeded random weights to ONNX (issue 16), written
in plain torch (no `transformers` package): a ViT-tiny-style classifier and a BERT-tiny-style
encoder.

NAMEs (default: both):
  vit_tiny16  ViT-tiny-style: 16x16 patch-embedding Conv (3 -> 192), class token, learned
              position embedding, 4 pre-norm encoder layers (LayerNorm -> multi-head
              self-attention -> residual, LayerNorm -> MLP 192 -> 768 -> 192 with GELU, erf form
              -> residual), dim 192, 3 heads of 64, final LayerNorm, head Linear(192, 1000) on
              the class token. Input float32 [1, 3, S, S], S = --image-size (default 224; a
              multiple of 16: 224 -> 197 tokens, 112 -> 50, 64 -> 17); output logits [1, 1000].
              Attention (--attention explicit, the default) as timm writes it, with one fused qkv
              Linear: qkv(x).chunk(3, -1) (an ONNX Split along the last axis), each of q, k, v
              reshaped to [B, T, 3, 64] and permuted (0, 2, 1, 3), softmax(q @ k^T * 64^-0.5,
              -1) @ v, permuted back, reshaped to [B, T, 192], out projection Linear.
              --attention torch uses torch.nn.MultiheadAttention(192, 3, batch_first=True)
              instead, as torchvision's VisionTransformer does (its export: packed in-projection
              MatMul, Slices, Reshape/Transpose, Div of q by sqrt(64), ...).
  bert_tiny   BERT-tiny-style: token embedding nn.Embedding(1000, 128), token-type embedding
              (one type: all tokens type 0, a constant row after constant folding), learned
              position embedding (positions 0..127, constant after folding), embedding
              LayerNorm, 2 post-norm encoder layers (separate q, k, v Linears, 2 heads of 64,
              scores (q @ k^T) / sqrt(64) as a Div, softmax(-1), @ v, output Linear, residual,
              LayerNorm; MLP 128 -> 512 -> 128 with GELU erf form, residual, LayerNorm). Input
              int64 token ids [1, 128] (no attention mask: every token is valid); output the
              last hidden state [1, 128, 128] (no pooler / CLS head).
              --bert-input embeddings exports the same encoder from the word embeddings: input
              float32 [1, 128, 128] = word_embeddings(ids), everything after the token gather
              unchanged (stem bert_tiny_emb; for a compiler that takes float32 inputs only).

Output stem: NAME, plus "_mha" with --attention torch and "_S" for an image size S other than
224 (e.g. vit_tiny16_112). For each stem writes to --out:

    STEM.onnx              opset 13 (LayerNorm decomposed into ReduceMean/Sub/Pow/Add/Sqrt/Div)
    STEM.opsetN.onnx       every other opset given to --opset (17: LayerNormalization nodes)
    STEM.calib.npy         --calib calibration inputs (default 16), seed 1: float32 images
                           [N, 3, S, S] from a standard normal (ViT), int64 token ids [N, 128]
                           uniform in [0, 1000) (BERT)
    STEM.eval.npy          --eval evaluation inputs (default 4), seed 2, the same way
    STEM.eval.output.npy   PyTorch's fp32 output for STEM.eval.npy, [N, 1000] or [N, 128, 128]
    STEM.input.npy, STEM.output.npy   the first evaluation input and its output, batch 1 (as
                           scripts/export_torchvision.py writes them)

Seeds and calibration/evaluation file names follow scripts/model_zoo.py (calibration seed 1,
evaluation seed 2). Files already present are kept (delete them to re-export), the .npy files
only while their sample counts match --calib and --eval. After an export
each ONNX file is loaded back and "STEM (opset N): K nodes, ops: {...}" printed.

Weights: torch.manual_seed(0), then every Linear and the patch Conv drawn from N(0, 1/fan_in)
(activations keep their scale through the layers, attention logits have a standard deviation of
about 1), biases N(0, 0.02^2), LayerNorm weights 1 + N(0, 0.1^2) and biases N(0, 0.1^2) (so the
affine is not the identity), the class token N(0, 0.5^2), position embeddings N(0, 0.2^2),
token and token-type embeddings N(0, 1).

--torch-int8-report prints, for vit_tiny16 at the chosen size, the cosine similarity (all
evaluation outputs as one vector) vs fp32 of PyTorch's own int8: dynamic quantization of
nn.Linear (torch.ao.quantization.quantize_dynamic, qint8) and FX static post-training
quantization (prepare_fx / convert_fx, the default qconfig mapping of the engine, calibrated on
the calibration inputs), per quantized engine available here; an error is printed as such.
"""
import argparse
import copy
import math
import os
import time
import traceback
import warnings
from collections import Counter

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore")

NAMES = ["vit_tiny16", "bert_tiny"]
OPSETS = [13, 17]
VIT = dict(patch=16, dim=192, depth=4, heads=3, mlp=768, classes=1000)
BERT = dict(vocab=1000, types=2, seq=128, hidden=128, depth=2, heads=2, intermediate=512)
DEFAULT_IMAGE_SIZE = 224


# --- ViT-tiny ----------------------------------------------------------------------------------

class ExplicitSelfAttention(nn.Module):
    """Multi-head self-attention written out (timm style, fused qkv Linear)."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.scale = self.head_dim ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        # x.shape[i] rather than `B, T, C = x.shape`: FX can trace indexing, not unpacking.
        b, t, c = x.shape[0], x.shape[1], x.shape[2]
        qkv = self.qkv(x).chunk(3, dim=-1)  # indexed, not unpacked, for FX as well
        q, k, v = qkv[0], qkv[1], qkv[2]
        q = q.reshape(b, t, self.heads, self.head_dim).permute(0, 2, 1, 3)
        k = k.reshape(b, t, self.heads, self.head_dim).permute(0, 2, 1, 3)
        v = v.reshape(b, t, self.heads, self.head_dim).permute(0, 2, 1, 3)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        y = (attn @ v).permute(0, 2, 1, 3).reshape(b, t, c)
        return self.proj(y)


class TorchSelfAttention(nn.Module):
    """torch.nn.MultiheadAttention, called as torchvision's EncoderBlock calls it."""

    def __init__(self, dim, heads):
        super().__init__()
        self.mha = nn.MultiheadAttention(dim, heads, batch_first=True)

    def forward(self, x):
        y, _ = self.mha(x, x, x, need_weights=False)
        return y


class Mlp(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()  # erf form
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class PreNormBlock(nn.Module):
    def __init__(self, dim, heads, mlp, attention):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = (TorchSelfAttention if attention == "torch" else ExplicitSelfAttention)(
            dim, heads)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = Mlp(dim, mlp)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class VitTiny(nn.Module):
    def __init__(self, image_size, attention="explicit", patch=16, dim=192, depth=4, heads=3,
                 mlp=768, classes=1000):
        super().__init__()
        tokens = (image_size // patch) ** 2 + 1
        self.patch_embed = nn.Conv2d(3, dim, patch, patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, tokens, dim))
        self.blocks = nn.Sequential(*[PreNormBlock(dim, heads, mlp, attention)
                                      for _ in range(depth)])
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)  # [B, T-1, dim]
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos_embed
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])


# --- BERT-tiny ---------------------------------------------------------------------------------

class BertSelfAttention(nn.Module):
    """Hugging Face BertSelfAttention + BertSelfOutput, without mask and dropout."""

    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.dense = nn.Linear(hidden, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)

    def split_heads(self, x):
        return x.view(x.shape[0], x.shape[1], self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x):
        q = self.split_heads(self.query(x))
        k = self.split_heads(self.key(x))
        v = self.split_heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        probs = F.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(ctx.shape[0], ctx.shape[1], self.heads * self.head_dim)
        return self.norm(self.dense(ctx) + x)


class BertLayer(nn.Module):
    def __init__(self, hidden, heads, intermediate):
        super().__init__()
        self.attention = BertSelfAttention(hidden, heads)
        self.intermediate = nn.Linear(hidden, intermediate)
        self.act = nn.GELU()  # erf form
        self.output = nn.Linear(intermediate, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x):
        x = self.attention(x)
        return self.norm(self.output(self.act(self.intermediate(x))) + x)


class BertTiny(nn.Module):
    def __init__(self, vocab=1000, types=2, seq=128, hidden=128, depth=2, heads=2,
                 intermediate=512, from_embeddings=False):
        super().__init__()
        self.from_embeddings = from_embeddings
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(seq, hidden)
        self.token_type_embeddings = nn.Embedding(types, hidden)
        self.register_buffer("position_ids", torch.arange(seq).unsqueeze(0))
        self.register_buffer("token_type_ids", torch.zeros(1, seq, dtype=torch.long))
        self.norm = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.Sequential(*[BertLayer(hidden, heads, intermediate)
                                      for _ in range(depth)])

    def forward(self, input_ids):
        # From --bert-input embeddings the input is already word_embeddings(ids), float32.
        x = input_ids if self.from_embeddings else self.word_embeddings(input_ids)
        x = x + self.token_type_embeddings(self.token_type_ids)
        x = x + self.position_embeddings(self.position_ids)
        return self.layers(self.norm(x))


# --- construction, inputs, export --------------------------------------------------------------

def initialise(model):
    """The documented random initialisation (see the module docstring)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Linear, nn.Conv2d)):
                fan_in = m.weight[0].numel()
                m.weight.normal_(0.0, fan_in ** -0.5)
                if m.bias is not None:
                    m.bias.normal_(0.0, 0.02)
            elif isinstance(m, nn.MultiheadAttention):
                m.in_proj_weight.normal_(0.0, m.embed_dim ** -0.5)
                m.in_proj_bias.normal_(0.0, 0.02)
                # out_proj is an nn.Linear (NonDynamicallyQuantizableLinear): done above.
            elif isinstance(m, nn.LayerNorm):
                m.weight.normal_(1.0, 0.1)
                m.bias.normal_(0.0, 0.1)
            elif isinstance(m, nn.Embedding):
                m.weight.normal_(0.0, 1.0)
            elif isinstance(m, VitTiny):
                m.cls_token.normal_(0.0, 0.5)
                m.pos_embed.normal_(0.0, 0.2)
    return model


def stem(name, image_size=DEFAULT_IMAGE_SIZE, attention="explicit", bert_input="ids"):
    """The file stem: NAME, '_mha' for torch attention, '_S' for a non-default image size,
    '_emb' for BERT from embeddings."""
    if name == "bert_tiny":
        return name + ("_emb" if bert_input == "embeddings" else "")
    return name + ("_mha" if attention == "torch" else "") + (
        "" if image_size == DEFAULT_IMAGE_SIZE else "_%d" % image_size)


def build_model(name, image_size=DEFAULT_IMAGE_SIZE, attention="explicit", bert_input="ids"):
    """The model in eval mode with seed-0 weights."""
    torch.manual_seed(0)
    if name == "vit_tiny16":
        if image_size % VIT["patch"]:
            raise ValueError("image size %d is not a multiple of %d" % (image_size, VIT["patch"]))
        model = VitTiny(image_size, attention, **VIT)
    elif name == "bert_tiny":
        model = BertTiny(**BERT, from_embeddings=bert_input == "embeddings")
    else:
        raise ValueError("unknown model '%s' (known: %s)" % (name, ", ".join(NAMES)))
    return initialise(model).eval()


def make_inputs(name, n, seed, image_size=DEFAULT_IMAGE_SIZE, bert_input="ids"):
    """n inputs from a generator seeded with `seed`: float32 images (ViT), int64 ids (BERT), or
    the float32 word embeddings of those ids (BERT with bert_input 'embeddings')."""
    g = torch.Generator().manual_seed(seed)
    if name == "bert_tiny":
        ids = torch.randint(0, BERT["vocab"], (n, BERT["seq"]), generator=g, dtype=torch.long)
        if bert_input == "embeddings":
            with torch.no_grad():
                return build_model(name).word_embeddings(ids)
        return ids
    return torch.randn(n, 3, image_size, image_size, generator=g)


def run_model(model, inputs):
    """fp32 outputs, one input at a time (batch 1, as exported)."""
    with torch.no_grad():
        return torch.cat([model(inputs[i:i + 1]) for i in range(len(inputs))])


def rows(path):
    return np.load(path, mmap_mode="r").shape[0]


def onnx_path(out, file_stem, opset):
    return os.path.join(out, file_stem + (".onnx" if opset == 13 else ".opset%d.onnx" % opset))


def describe(path, label):
    graph = onnx.load(path).graph
    ops = Counter(node.op_type for node in graph.node)
    ops_text = "{" + ", ".join(f"{op}: {count}" for op, count in sorted(ops.items())) + "}"
    print(f"{label}: {len(graph.node)} nodes, ops: {ops_text}", flush=True)


def export(name, out, image_size=DEFAULT_IMAGE_SIZE, attention="explicit", opsets=(13,),
           n_calib=16, n_eval=4, bert_input="ids"):
    """Writes the files of the module docstring (keeping those present); returns the stem."""
    file_stem = stem(name, image_size, attention, bert_input)
    base = os.path.join(out, file_stem)
    data_files = [base + ext for ext in (".calib.npy", ".eval.npy", ".eval.output.npy",
                                         ".input.npy", ".output.npy")]
    model = None
    start = time.monotonic()
    if not (all(os.path.exists(f) for f in data_files) and
            rows(data_files[0]) == n_calib and rows(data_files[1]) == n_eval):
        model = build_model(name, image_size, attention, bert_input)
        calib = make_inputs(name, n_calib, 1, image_size, bert_input)
        evals = make_inputs(name, n_eval, 2, image_size, bert_input)
        reference = run_model(model, evals)
        for path, array in zip(data_files, (calib, evals, reference, evals[:1], reference[:1])):
            np.save(path, array.numpy())
    for opset in opsets:
        path = onnx_path(out, file_stem, opset)
        label = "%s (opset %d)" % (file_stem, opset)
        if os.path.exists(path):
            describe(path, label + " kept")
            continue
        if model is None:
            model = build_model(name, image_size, attention, bert_input)
        x = make_inputs(name, 1, 2, image_size, bert_input)
        tmp = path + ".tmp"
        with torch.no_grad():
            torch.onnx.export(model, x, tmp, opset_version=opset, do_constant_folding=True,
                              input_names=["input_ids" if file_stem == "bert_tiny" else "input"],
                              output_names=["last_hidden_state" if name == "bert_tiny"
                                            else "output"])
        os.replace(tmp, path)
        describe(path, label)
    size_mb = sum(os.path.getsize(f) for f in data_files +
                  [onnx_path(out, file_stem, o) for o in opsets]) / 1e6
    print("%s: %.1f s, %.1f MB" % (file_stem, time.monotonic() - start, size_mb), flush=True)
    return file_stem


# --- PyTorch's own int8 ------------------------------------------------------------------------

def cosine(a, b):
    a = a.reshape(-1).double()
    b = b.reshape(-1).double()
    return float(torch.dot(a, b) / (a.norm() * b.norm()))


def short_error(error):
    """The exception type, the start of its message and the last line of this file it came
    through (the model code FX failed to trace, if it was there)."""
    text = " ".join(str(error).split())
    text = text if len(text) <= 160 else text[:157] + "..."
    ours = [f for f in traceback.extract_tb(error.__traceback__)
            if os.path.abspath(f.filename) == os.path.abspath(__file__)]
    where = " (at `%s`)" % ours[-1].line.strip() if ours else ""
    return "%s: %s%s" % (type(error).__name__, text, where)


def torch_int8_report(image_size, attention, n_calib, n_eval):
    """Prints the cosine vs fp32 of dynamic (Linear, qint8) and FX static int8 of vit_tiny16."""
    from torch.ao.quantization import get_default_qconfig_mapping, quantize_dynamic
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    model = build_model("vit_tiny16", image_size, attention)
    calib = make_inputs("vit_tiny16", n_calib, 1, image_size)
    evals = make_inputs("vit_tiny16", n_eval, 2, image_size)
    reference = run_model(model, evals)
    name = stem("vit_tiny16", image_size, attention)
    print("%s: PyTorch %s int8 vs fp32, output cosine over %d evaluation inputs (seed 2), "
          "calibrated on %d (seed 1)" % (name, torch.__version__, n_eval, n_calib))
    engines = [e for e in ("qnnpack", "onednn", "fbgemm", "x86")
               if e in torch.backends.quantized.supported_engines]
    for engine in engines:
        torch.backends.quantized.engine = engine
        try:
            start = time.monotonic()
            dynamic = quantize_dynamic(copy.deepcopy(model), {nn.Linear}, dtype=torch.qint8)
            value = "%.6f" % cosine(run_model(dynamic, evals), reference)
            value += " (%.1f s)" % (time.monotonic() - start)
        except Exception as e:  # the engine cannot run it
            value = "error: " + short_error(e)
        print("  dynamic quantize_dynamic({nn.Linear}, qint8), %s: %s" % (engine, value),
              flush=True)
        try:
            start = time.monotonic()
            prepared = prepare_fx(copy.deepcopy(model), get_default_qconfig_mapping(engine),
                                  (calib[:1],))
            run_model(prepared, calib)
            static = convert_fx(prepared)
            value = "%.6f" % cosine(run_model(static, evals), reference)
            value += " (%.1f s)" % (time.monotonic() - start)
        except Exception as e:  # tracing, preparing or running failed
            value = "error: " + short_error(e)
        print("  FX static prepare_fx/convert_fx, default qconfig mapping, %s: %s" %
              (engine, value), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--image-size", type=int, default=DEFAULT_IMAGE_SIZE,
                        help="ViT input size S (S x S, a multiple of 16; default 224)")
    parser.add_argument("--attention", choices=["explicit", "torch"], default="explicit",
                        help="ViT attention: written out (default) or nn.MultiheadAttention")
    parser.add_argument("--bert-input", choices=["ids", "embeddings"], default="ids",
                        help="BERT input: int64 token ids (default) or their float32 word "
                             "embeddings [1, 128, 128] (stem bert_tiny_emb)")
    parser.add_argument("--opset", type=int, nargs="+", default=OPSETS,
                        help="ONNX opsets to export (default: 13 17)")
    parser.add_argument("--calib", type=int, default=16, help="calibration inputs (default 16)")
    parser.add_argument("--eval", type=int, default=4, help="evaluation inputs (default 4)")
    parser.add_argument("--torch-int8-report", action="store_true",
                        help="also print PyTorch's dynamic and FX int8 cosine for vit_tiny16")
    parser.add_argument("models", nargs="*", metavar="NAME", default=NAMES,
                        help="models (default: %s)" % " ".join(NAMES))
    args = parser.parse_args()
    for name in args.models:
        if name not in NAMES:
            parser.error("unknown model '%s' (known: %s)" % (name, ", ".join(NAMES)))
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(2)
    for name in args.models:
        export(name, args.out, args.image_size, args.attention, args.opset, args.calib,
               args.eval, args.bert_input)
    if args.torch_int8_report:
        torch_int8_report(args.image_size, args.attention, args.calib, args.eval)


if __name__ == "__main__":
    main()
