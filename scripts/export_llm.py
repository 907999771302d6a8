#!/usr/bin/python3
"""Exports two tiny decoder-only language models with seeded random weights to ONNX (issue 39),
written in plain torch (no `transformers` package) the way Hugging Face's modelling code and its
ONNX exporters write them, as a prefill graph and a decode-step graph each.

MODELs (default: both):
  llama  Llama-style: token embedding, 2 layers of [RMSNorm -> attention with grouped-query
         heads (4 query heads, 2 K/V heads of 32, K/V repeated as HF's repeat_kv does:
         expand + reshape) and rotary embeddings (rotate-half, cos/sin computed from the
         position ids) -> residual, RMSNorm -> SwiGLU MLP 128 -> 352 -> 128 -> residual], final
         RMSNorm, lm_head (untied unless --tie-embeddings). d=128, vocab 256, no biases,
         rope base 10000, eps 1e-6, max context 256. RMSNorm is written as HF's LlamaRMSNorm:
         w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)); --rmsnorm div writes
         x / torch.sqrt(...) instead. The mask is HF's 4-D additive mask (AttentionMaskConverter:
         a causal part from arange comparisons, the 2-D attention_mask inverted and filled with
         --mask-value), added to the scores.
  gpt2   GPT-2-style: token and learned position embeddings, 2 layers of [LayerNorm -> attention
         (one fused QKV Conv1D, i.e. Reshape/Gemm/Reshape, split in three along the last axis;
         4 heads of 32; scores divided by sqrt(32); torch.where with the causal bias buffer;
         additive (1 - attention_mask) * --mask-value) -> residual, LayerNorm -> MLP 128 -> 512
         -> 128 with gelu_new (tanh form) -> residual], final LayerNorm, lm_head tied to the token
         embedding. vocab 256, max context 256, LayerNorm eps 1e-5.

Graphs, as LLM exporters (Hugging Face Optimum) name their inputs and outputs:
  prefill  input_ids [1, T] int64, attention_mask [1, T] int64, position_ids [1, T] int64
           -> logits [1, T, V], present.N.key / present.N.value [1, kvh, T, hd] per layer N.
  decode   input_ids [1, 1], attention_mask [1, P + 1], position_ids [1, 1], then per layer
           past_key_values.N.key / past_key_values.N.value [1, kvh, P, hd]
           -> logits [1, 1, V], present.N.key / present.N.value [1, kvh, P + 1, hd].
T is --seq-len, P is --past-len (fixed shapes; --dynamic marks batch, sequence and past-sequence
axes dynamic instead, for other tools: this toolchain's importer takes fixed shapes only).

For each model and graph, STEM = MODEL_GRAPH (llama_prefill, llama_decode, gpt2_prefill,
gpt2_decode), the script writes to --out:
    STEM.onnx              the graph (opset --opset, default 14, constant folding on)
    STEM.calib/NAME/calib.npy    --calib calibration samples of input NAME, [N, *shape[1:]]
                                 (the batch-1 axis replaced by the samples; seed+1)
    STEM.data/NAME/data.npy      --eval reference samples of input NAME, [E, *shape[1:]] (seed+2)
    STEM.torch/NAME.npy          PyTorch's fp32 output NAME for the reference samples, [E, *shape]
                                 (the layout of `npu run --save-outputs`' NAME.fp32.npy)
    STEM.json              model config, options, inputs and outputs with shapes and dtypes
The .calib and .data folders are the multi-input layout `npu run --calib/--data` reads (one
folder per input name). Every sample is a real prompt: uniform random token ids, the first --pad
positions left-padding (attention_mask 0, position ids as HF's generate computes them:
cumsum(mask) - 1, 1 at padding). A decode sample's past K/V is what the model itself computes for
the first P tokens of a P + 1-token prompt, and its input the last token; the script checks that
the decode step's logits equal the logits of the whole prompt run at once (within 1e-4).

Weights: torch.manual_seed(--seed) (default 0), then every Linear / Conv1D weight from
N(0, 1/fan_in), biases N(0, 0.02^2), norm weights 1 + N(0, 0.1^2) and biases N(0, 0.1^2), token
embeddings N(0, 1), GPT-2 position embeddings N(0, 0.2^2). The same options give the same files.

    /usr/bin/python3 scripts/export_llm.py --out build/llm
    /usr/bin/python3 scripts/export_llm.py --out /tmp/llm --seq-len 8 --past-len 8 llama
"""
import argparse
import json
import math
import os
import sys
import warnings
from collections import Counter

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore")

MODELS = ["llama", "gpt2"]
GRAPHS = ["prefill", "decode"]
LLAMA = dict(vocab=256, hidden=128, layers=2, heads=4, kv_heads=2, intermediate=352,
             max_positions=256, rope_base=10000.0, eps=1e-6)
GPT2 = dict(vocab=256, hidden=128, layers=2, heads=4, inner=512, max_positions=256, eps=1e-5)
FLOAT_MIN = float(torch.finfo(torch.float32).min)


# --- shared pieces -----------------------------------------------------------------------------

def padding_mask(attention_mask, mask_value):
    """HF's _expand_mask: [B, S] of 1 (attend) / 0 (padding) -> [B, 1, 1, S], 0 where attended,
    mask_value where padded."""
    expanded = attention_mask[:, None, None, :].to(torch.float32)
    inverted = 1.0 - expanded
    return inverted.masked_fill(inverted.to(torch.bool), mask_value)


def llama_mask(attention_mask, query_len, mask_value):
    """HF's 4-D causal mask (AttentionMaskConverter.to_4d): [B, 1, T, P + T], query t at
    absolute position P + t attends key s when s <= P + t and attention_mask[s] is 1; every
    other entry is mask_value."""
    total = attention_mask.shape[1]
    past = total - query_len
    causal = torch.full((query_len, total), mask_value)
    key_pos = torch.arange(total)
    query_pos = torch.arange(query_len) + past
    causal = causal.masked_fill(key_pos[None, :] <= query_pos[:, None], 0.0)
    causal = causal[None, None, :, :]
    return causal.masked_fill(padding_mask(attention_mask, mask_value).to(torch.bool),
                              mask_value)


def initialise(model):
    """The documented random initialisation (module docstring)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Linear):
                m.weight.normal_(0.0, m.in_features ** -0.5)
                if m.bias is not None:
                    m.bias.normal_(0.0, 0.02)
            elif isinstance(m, Conv1D):
                m.weight.normal_(0.0, m.weight.shape[0] ** -0.5)
                m.bias.normal_(0.0, 0.02)
            elif isinstance(m, RMSNorm):
                m.weight.normal_(1.0, 0.1)
            elif isinstance(m, nn.LayerNorm):
                m.weight.normal_(1.0, 0.1)
                m.bias.normal_(0.0, 0.1)
            elif isinstance(m, nn.Embedding):
                m.weight.normal_(0.0, 1.0)
        if isinstance(model, Gpt2):
            model.wpe.weight.normal_(0.0, 0.2)
    return model


# --- Llama -------------------------------------------------------------------------------------

class RMSNorm(nn.Module):
    """HF's LlamaRMSNorm; form 'rsqrt' as HF writes it, 'div' dividing by the square root."""

    def __init__(self, dim, eps, form):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps
        self.form = form

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        if self.form == "rsqrt":
            x = x * torch.rsqrt(variance + self.eps)
        else:
            x = x / torch.sqrt(variance + self.eps)
        return self.weight * x


class Rotary(nn.Module):
    """cos and sin [B, T, hd] for the position ids [B, T]. 'compute' as HF >= 4.38
    (inv_freq @ positions, then cos and sin), 'table' as HF 4.36 (cos/sin tables of
    max_positions rows gathered by the position ids). Pairs 'half' duplicate the frequencies
    (rotate_half's halves), 'interleaved' repeat each twice (GPT-J's rotate_every_two pairs)."""

    def __init__(self, head_dim, base, max_positions, source, pairs):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.source = source
        self.pairs = pairs
        if source == "table":
            freqs = torch.outer(torch.arange(max_positions).float(), inv_freq)
            emb = self.widen(freqs)
            self.register_buffer("cos_cached", emb.cos(), persistent=False)
            self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def widen(self, freqs):
        if self.pairs == "half":
            return torch.cat((freqs, freqs), dim=-1)
        return torch.repeat_interleave(freqs, 2, dim=-1)

    def forward(self, position_ids, total_len):
        if self.source == "table":
            return (self.cos_cached[:total_len][position_ids],
                    self.sin_cached[:total_len][position_ids])
        inv = self.inv_freq[None, :, None].expand(position_ids.shape[0], -1, 1)
        pos = position_ids[:, None, :].float()
        freqs = (inv @ pos).transpose(1, 2)
        emb = self.widen(freqs)
        return emb.cos(), emb.sin()


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rotate_every_two(x):
    return torch.stack((-x[..., 1::2], x[..., ::2]), dim=-1).flatten(-2)


def repeat_kv(x, n_rep, how):
    """[B, kvh, S, hd] -> [B, kvh * n_rep, S, hd], each K/V head repeated for n_rep query heads:
    'expand' as HF's repeat_kv, 'interleave' as torch.repeat_interleave."""
    if n_rep == 1:
        return x
    if how == "interleave":
        return torch.repeat_interleave(x, n_rep, dim=1)
    b, kvh, s, hd = x.shape
    return x[:, :, None, :, :].expand(b, kvh, n_rep, s, hd).reshape(b, kvh * n_rep, s, hd)


class LlamaAttention(nn.Module):
    def __init__(self, c, opts):
        super().__init__()
        self.heads, self.kv_heads = c["heads"], c["kv_heads"]
        self.head_dim = c["hidden"] // c["heads"]
        self.q_proj = nn.Linear(c["hidden"], self.heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(c["hidden"], self.kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(c["hidden"], self.kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(self.heads * self.head_dim, c["hidden"], bias=False)
        self.rotate = rotate_half if opts.rope_pairs == "half" else rotate_every_two
        self.repeat = opts.repeat_kv

    def forward(self, x, cos, sin, mask, past):
        b, t, d = x.shape
        q = self.q_proj(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        q = q * cos + self.rotate(q) * sin
        k = k * cos + self.rotate(k) * sin
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        present = (k, v)
        n_rep = self.heads // self.kv_heads
        k = repeat_kv(k, n_rep, self.repeat)
        v = repeat_kv(v, n_rep, self.repeat)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
        scores = scores + mask
        probs = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
        y = torch.matmul(probs, v).transpose(1, 2).contiguous().reshape(b, t, d)
        return self.o_proj(y), present


class LlamaMlp(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gate_proj = nn.Linear(c["hidden"], c["intermediate"], bias=False)
        self.up_proj = nn.Linear(c["hidden"], c["intermediate"], bias=False)
        self.down_proj = nn.Linear(c["intermediate"], c["hidden"], bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaLayer(nn.Module):
    def __init__(self, c, opts):
        super().__init__()
        self.input_layernorm = RMSNorm(c["hidden"], c["eps"], opts.rmsnorm)
        self.self_attn = LlamaAttention(c, opts)
        self.post_attention_layernorm = RMSNorm(c["hidden"], c["eps"], opts.rmsnorm)
        self.mlp = LlamaMlp(c)

    def forward(self, x, cos, sin, mask, past):
        a, present = self.self_attn(self.input_layernorm(x), cos, sin, mask, past)
        x = x + a
        return x + self.mlp(self.post_attention_layernorm(x)), present


class Llama(nn.Module):
    """forward(input_ids, attention_mask, position_ids, *past) -> (logits, *present), past and
    present flat: layer 0 key, layer 0 value, layer 1 key, ..."""

    def __init__(self, opts):
        super().__init__()
        c = LLAMA
        self.mask_value = opts.mask_value
        self.embed_tokens = nn.Embedding(c["vocab"], c["hidden"])
        self.rotary = Rotary(c["hidden"] // c["heads"], c["rope_base"], c["max_positions"],
                             opts.rope, opts.rope_pairs)
        self.layers = nn.ModuleList([LlamaLayer(c, opts) for _ in range(c["layers"])])
        self.norm = RMSNorm(c["hidden"], c["eps"], opts.rmsnorm)
        self.lm_head = nn.Linear(c["hidden"], c["vocab"], bias=False)
        if opts.tie_embeddings:
            self.lm_head.weight = self.embed_tokens.weight

    def forward(self, input_ids, attention_mask, position_ids, *past):
        x = self.embed_tokens(input_ids)
        mask = llama_mask(attention_mask, input_ids.shape[1], self.mask_value)
        cos, sin = self.rotary(position_ids, attention_mask.shape[1])
        presents = []
        for i, layer in enumerate(self.layers):
            x, present = layer(x, cos, sin, mask, tuple(past[2 * i:2 * i + 2]) or None)
            presents.extend(present)
        return (self.lm_head(self.norm(x)), *presents)


# --- GPT-2 -------------------------------------------------------------------------------------

class Conv1D(nn.Module):
    """HF's GPT-2 Conv1D: a Linear with [in, out] weights through addmm on the flattened tokens
    (exported as Reshape, Gemm, Reshape)."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) *
                                       (x + 0.044715 * torch.pow(x, 3.0))))


class Gpt2Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.heads = c["heads"]
        self.head_dim = c["hidden"] // c["heads"]
        self.split_size = c["hidden"]
        n = c["max_positions"]
        self.register_buffer("bias", torch.tril(torch.ones(n, n, dtype=torch.bool))
                             .view(1, 1, n, n), persistent=False)
        self.c_attn = Conv1D(3 * c["hidden"], c["hidden"])
        self.c_proj = Conv1D(c["hidden"], c["hidden"])

    def split_heads(self, x):
        return x.view(x.size()[:-1] + (self.heads, self.head_dim)).permute(0, 2, 1, 3)

    def forward(self, x, mask, past, mask_value):
        q, k, v = self.c_attn(x).split(self.split_size, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        if past is not None:
            k = torch.cat((past[0], k), dim=-2)
            v = torch.cat((past[1], v), dim=-2)
        present = (k, v)
        w = torch.matmul(q, k.transpose(-1, -2))
        w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype)
        query_len, key_len = q.size(-2), k.size(-2)
        causal = self.bias[:, :, key_len - query_len:key_len, :key_len]
        w = torch.where(causal, w, torch.full([], mask_value, dtype=w.dtype))
        w = F.softmax(w + mask, dim=-1)
        y = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous()
        y = y.view(y.size()[:-2] + (self.heads * self.head_dim,))
        return self.c_proj(y), present


class Gpt2Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln_1 = nn.LayerNorm(c["hidden"], eps=c["eps"])
        self.attn = Gpt2Attention(c)
        self.ln_2 = nn.LayerNorm(c["hidden"], eps=c["eps"])
        self.c_fc = Conv1D(c["inner"], c["hidden"])
        self.c_proj = Conv1D(c["hidden"], c["inner"])

    def forward(self, x, mask, past, mask_value):
        a, present = self.attn(self.ln_1(x), mask, past, mask_value)
        x = x + a
        return x + self.c_proj(gelu_new(self.c_fc(self.ln_2(x)))), present


class Gpt2(nn.Module):
    """forward(input_ids, attention_mask, position_ids, *past) -> (logits, *present)."""

    def __init__(self, opts):
        super().__init__()
        c = GPT2
        self.mask_value = opts.mask_value
        self.wte = nn.Embedding(c["vocab"], c["hidden"])
        self.wpe = nn.Embedding(c["max_positions"], c["hidden"])
        self.h = nn.ModuleList([Gpt2Block(c) for _ in range(c["layers"])])
        self.ln_f = nn.LayerNorm(c["hidden"], eps=c["eps"])

    def forward(self, input_ids, attention_mask, position_ids, *past):
        x = self.wte(input_ids) + self.wpe(position_ids)
        mask = attention_mask[:, None, None, :].to(torch.float32)
        mask = (1.0 - mask) * self.mask_value
        presents = []
        for i, block in enumerate(self.h):
            x, present = block(x, mask, tuple(past[2 * i:2 * i + 2]) or None, self.mask_value)
            presents.extend(present)
        return (F.linear(self.ln_f(x), self.wte.weight), *presents)


# --- construction, samples, export -------------------------------------------------------------

def config_of(model_name):
    return LLAMA if model_name == "llama" else GPT2


def kv_shape(model_name, length):
    c = config_of(model_name)
    return [1, c.get("kv_heads", c["heads"]), length, c["hidden"] // c["heads"]]


def build_model(model_name, opts):
    torch.manual_seed(opts.seed)
    model = Llama(opts) if model_name == "llama" else Gpt2(opts)
    return initialise(model).eval()


def io_names(model_name, graph):
    """(input names, output names) as Optimum names them."""
    layers = config_of(model_name)["layers"]
    inputs = ["input_ids", "attention_mask", "position_ids"]
    if graph == "decode":
        for i in range(layers):
            inputs += ["past_key_values.%d.key" % i, "past_key_values.%d.value" % i]
    outputs = ["logits"]
    for i in range(layers):
        outputs += ["present.%d.key" % i, "present.%d.value" % i]
    return inputs, outputs


def prompt(length, pad, generator, vocab):
    """One batch-1 prompt of `length` tokens, the first `pad` of them left padding: input_ids,
    attention_mask and HF generate's position ids (cumsum(mask) - 1, 1 where padded)."""
    ids = torch.randint(0, vocab, (1, length), generator=generator, dtype=torch.long)
    mask = torch.ones(1, length, dtype=torch.long)
    mask[:, :pad] = 0
    positions = mask.cumsum(-1) - 1
    positions.masked_fill_(mask == 0, 1)
    return ids, mask, positions


def samples(model, model_name, graph, n, seed, opts):
    """n input tuples for `graph` (in io_names order) and the model's fp32 outputs for each.
    A decode sample's past is the model's own K/V for the first P tokens of the prompt."""
    generator = torch.Generator().manual_seed(seed)
    vocab = config_of(model_name)["vocab"]
    inputs, outputs = [], []
    with torch.no_grad():
        for _ in range(n):
            if graph == "prefill":
                args = prompt(opts.seq_len, opts.pad, generator, vocab)
            else:
                ids, mask, pos = prompt(opts.past_len + 1, opts.pad, generator, vocab)
                p = opts.past_len
                past = model(ids[:, :p], mask[:, :p], pos[:, :p])[1:]
                args = (ids[:, p:], mask, pos[:, p:], *past)
                check_decode_step(model, model_name, (ids, mask, pos), args)
            inputs.append(args)
            outputs.append(model(*args))
    return inputs, outputs


def check_decode_step(model, model_name, whole, step):
    """The decode step from the model's own past must give the whole prompt's last logits."""
    expected = model(*whole)[0][:, -1:]
    got = model(*step)[0]
    diff = float((expected - got).abs().max())
    if diff > 1e-4:
        raise SystemExit("%s: decode step logits differ from the whole prompt's by %g" %
                         (model_name, diff))


def stack(tensors):
    """Batch-1 tensors as one [N, *shape[1:]] array: the batch form npu run's loader reads."""
    return np.stack([t[0].numpy() for t in tensors])


def write_samples(folder, names, tuples, stem):
    """folder/NAME/STEM.npy = the samples' NAME stacked, [N, *shape] (the layout npu run
    --calib/--data reads for a model with several inputs)."""
    for k, name in enumerate(names):
        os.makedirs(os.path.join(folder, name), exist_ok=True)
        np.save(os.path.join(folder, name, stem + ".npy"), stack([t[k] for t in tuples]))


def dynamic_axes(inputs, outputs):
    axes = {}
    for name in inputs + outputs:
        if name in ("input_ids", "position_ids"):
            axes[name] = {0: "batch_size", 1: "sequence_length"}
        elif name == "attention_mask":
            axes[name] = {0: "batch_size", 1: "past_sequence_length + sequence_length"}
        elif name.startswith("past_key_values"):
            axes[name] = {0: "batch_size", 2: "past_sequence_length"}
        elif name.startswith("present"):
            axes[name] = {0: "batch_size", 2: "past_sequence_length + sequence_length"}
        else:
            axes[name] = {0: "batch_size", 1: "sequence_length"}
    return axes


def describe(path):
    graph = onnx.load(path).graph
    ops = Counter(node.op_type for node in graph.node)
    return "%d nodes: %s" % (len(graph.node),
                             ", ".join("%s %d" % (op, n) for op, n in sorted(ops.items())))


def export_graph(model, model_name, graph, opts):
    """Writes STEM.onnx, STEM.calib, STEM.data, STEM.torch and STEM.json; returns STEM."""
    stem = "%s_%s" % (model_name, graph)
    base = os.path.join(opts.out, stem)
    inputs, outputs = io_names(model_name, graph)
    calib, _ = samples(model, model_name, graph, opts.calib, opts.seed + 1, opts)
    data, expected = samples(model, model_name, graph, opts.eval, opts.seed + 2, opts)
    write_samples(base + ".calib", inputs, calib, "calib")
    write_samples(base + ".data", inputs, data, "data")
    os.makedirs(base + ".torch", exist_ok=True)
    for k, name in enumerate(outputs):
        np.save(os.path.join(base + ".torch", name + ".npy"),
                np.stack([o[k].numpy() for o in expected]))
    tmp = base + ".onnx.tmp"
    with torch.no_grad():
        torch.onnx.export(model, data[0], tmp, opset_version=opts.opset,
                          do_constant_folding=True, input_names=inputs, output_names=outputs,
                          dynamic_axes=dynamic_axes(inputs, outputs) if opts.dynamic else None)
    os.replace(tmp, base + ".onnx")
    info = {
        "model": model_name, "graph": graph, "config": config_of(model_name),
        "options": {k: v for k, v in sorted(vars(opts).items()) if k not in ("out", "models")},
        "inputs": {n: {"shape": list(data[0][k].shape), "dtype": str(data[0][k].dtype)[6:]}
                   for k, n in enumerate(inputs)},
        "outputs": {n: {"shape": list(expected[0][k].shape)} for k, n in enumerate(outputs)},
    }
    with open(base + ".json", "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    print("%s: %s" % (stem, describe(base + ".onnx")), flush=True)
    return stem


def mask_value(text):
    if text == "min":
        return FLOAT_MIN
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("'%s' is neither 'min' nor a number" % text)
    if not value < 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError("mask value %s must be finite and negative" % text)
    return value


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--graph", action="append", choices=GRAPHS, dest="graphs",
                        help="a graph to export (repeatable; default: prefill and decode)")
    parser.add_argument("--seq-len", type=int, default=32,
                        help="prefill tokens T (default 32)")
    parser.add_argument("--past-len", type=int, default=32,
                        help="decode step's past length P (default 32)")
    parser.add_argument("--pad", type=int, default=0,
                        help="left-padding positions in every sample (default 0)")
    parser.add_argument("--opset", type=int, default=14, help="ONNX opset (default 14)")
    parser.add_argument("--dynamic", action="store_true",
                        help="dynamic batch, sequence and past-sequence axes")
    parser.add_argument("--calib", type=int, default=8,
                        help="calibration samples per graph (default 8)")
    parser.add_argument("--eval", type=int, default=2,
                        help="reference samples per graph (default 2)")
    parser.add_argument("--seed", type=int, default=0,
                        help="weights seed; samples use seed+1 (calib) and seed+2 (reference)")
    parser.add_argument("--mask-value", type=mask_value, default=FLOAT_MIN, metavar="min|X",
                        help="value of masked attention entries (default 'min': float32's "
                             "lowest, as HF writes it; a number as --mask-value=-1e4)")
    parser.add_argument("--rmsnorm", choices=["rsqrt", "div"], default="rsqrt",
                        help="Llama RMSNorm: x * rsqrt(var + eps) (default) or x / sqrt(...)")
    parser.add_argument("--rope", choices=["compute", "table"], default="compute",
                        help="Llama cos/sin: computed from the position ids (default) or "
                             "gathered from a table")
    parser.add_argument("--rope-pairs", choices=["half", "interleaved"], default="half",
                        help="Llama rotary pairs: rotate_half (default) or interleaved pairs")
    parser.add_argument("--repeat-kv", choices=["expand", "interleave"], default="expand",
                        help="Llama K/V head repeat: expand + reshape (default) or "
                             "repeat_interleave")
    parser.add_argument("--tie-embeddings", action="store_true",
                        help="Llama lm_head shares the token embedding (GPT-2 always does)")
    parser.add_argument("models", nargs="*", metavar="MODEL", default=MODELS,
                        help="models (default: %s)" % " ".join(MODELS))
    opts = parser.parse_args(argv)
    opts.graphs = [g for g in GRAPHS if g in (opts.graphs or GRAPHS)]
    for name in opts.models:
        if name not in MODELS:
            parser.error("unknown model '%s' (known: %s)" % (name, ", ".join(MODELS)))
    max_positions = min(LLAMA["max_positions"], GPT2["max_positions"])
    if not 1 <= opts.seq_len <= max_positions:
        parser.error("--seq-len %d is outside [1, %d]" % (opts.seq_len, max_positions))
    if not 1 <= opts.past_len < max_positions:
        parser.error("--past-len %d is outside [1, %d]" % (opts.past_len, max_positions - 1))
    if not 0 <= opts.pad < min(opts.seq_len, opts.past_len + 1):
        parser.error("--pad %d must leave at least one real token in every prompt" % opts.pad)
    if opts.calib < 1 or opts.eval < 1:
        parser.error("--calib and --eval need at least one sample")
    if not 9 <= opts.opset <= 17:
        parser.error("--opset %d: torch %s exports opsets 9-17 (the importer takes 9-18)" %
                     (opts.opset, torch.__version__))
    return opts


def main(argv=None):
    opts = parse_args(argv)
    os.makedirs(opts.out, exist_ok=True)
    torch.set_num_threads(2)
    stems = []
    for model_name in opts.models:
        model = build_model(model_name, opts)
        for graph in opts.graphs:
            stems.append(export_graph(model, model_name, graph, opts))
    return stems


if __name__ == "__main__":
    main(sys.argv[1:])
