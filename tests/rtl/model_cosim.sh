#!/usr/bin/env bash
# Co-simulation of compiled models through the bring-up bundle: the digits model (`npu run --rtl`:
# RTL == SystemC == golden DDR, equal cycles) and two subnetwork blocks from YAML (a ResNet basic
# block, a MobileNetV2 inverted residual, which the compiler cascades: its CONVs write the input
# SRAM, docs/cascade.md; a segmentation head whose bilinear Resize runs as strided depthwise
# CONVs; a ViT MLP block whose LayerNorm is NORM rows; a whole ViT encoder layer, attention
# included, whose head split and merge are HeadMatMul strides) exported and run with
# `npu cosim BUNDLE`.
set -euo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$npu" run --count 2 --mode functional --rtl --out "$tmp/run" > "$tmp/run.txt" 2>&1
grep -q "^PASS: final DDR bit-exact against golden on 2/2 inputs$" "$tmp/run.txt"
grep -q "DDR: RTL == SystemC" "$tmp/run.txt"
grep -q "RTL final DDR vs golden expected DDR: identical" "$tmp/run.txt"
grep -Eq "^cycles: SystemC ([0-9]+), RTL \1 \(delta 0\)$" "$tmp/run.txt"

for block in resnet_basic_block mbv2_inverted_residual_s1 mbconv_se bilinear_head vit_mlp vit_encoder_layer; do
  "$npu" export "$src/subnet_bench/graphs/$block.yaml" --out "$tmp/$block" > /dev/null
  "$npu" cosim "$tmp/$block" > "$tmp/$block.txt"
  grep -q "regions equal to the expected images" "$tmp/$block.txt"
  grep -Eq "^cycles: SystemC ([0-9]+), RTL \1 \(delta 0\)$" "$tmp/$block.txt"
done
# One decode step of the tiny Llama (subnet llama_decode_step, docs/llm.md): RMSNorm, the
# projections, rotary embeddings, the KV-cache appends, grouped-query attention with its mask and
# softmax, and the SwiGLU MLP, all in one NPU segment (one bundle).
"$npu" export "$src/subnet_bench/graphs/llama_decode_step.yaml" --out "$tmp/llama" > /dev/null
"$npu" cosim "$tmp/llama" > "$tmp/llama.txt"
grep -q "regions equal to the expected images" "$tmp/llama.txt"
grep -Eq "^cycles: SystemC ([0-9]+), RTL \1 \(delta 0\)$" "$tmp/llama.txt"
"$npu" disasm "$tmp/mbv2_inverted_residual_s1/program.npub" > "$tmp/s1.s"
grep -q "out_buf=1" "$tmp/s1.s"
grep -q "on_chip: true" "$tmp/mbv2_inverted_residual_s1/manifest.yaml"
