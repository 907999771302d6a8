#!/usr/bin/env bash
# `npu import`: the dump after the passes shows shapes; bad input is one error line, never a crash.
set -uo pipefail
npu="$1"; src="$2"
models="$src/tests/compiler/models"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0

expect_error() {  # expect_error EXPECTED_LINE -- command...
  local expected="$1"; shift; shift
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 128 ]; then
    echo "FAIL: '$*' exited with $rc"; status=1; return
  fi
  if [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ "$(cat "$tmp/err")" != "$expected" ]; then
    echo "FAIL: '$*' printed:"; cat "$tmp/err"; echo "expected: $expected"; status=1
  fi
}

expect_output() {  # expect_output PATTERN -- command...
  local pattern="$1"; shift; shift
  if ! "$@" >"$tmp/out" 2>"$tmp/err"; then
    echo "FAIL: '$*' failed:"; cat "$tmp/err"; status=1; return
  fi
  if ! grep -qF -- "$pattern" "$tmp/out"; then
    echo "FAIL: '$*' does not print '$pattern':"; cat "$tmp/out"; status=1
  fi
}

expect_output "  %/Relu_output_0: f32[1, 16, 16, 16] = Conv[/stem/Conv](%input, %/stem/Conv.weight_bn, %/stem/Conv.bias_bn) {activation=\"Relu\"" \
  -- "$npu" import "$models/convnet.onnx" --dump
expect_output "  output %output: f32[1, 10]" -- "$npu" import "$models/convnet.onnx" --dump --verify-each
expect_output "BatchNormalization[/bn1/BatchNormalization]" -- "$npu" import "$models/convnet.onnx" --dump --no-passes
expect_output "; after fold-batch-norm" -- "$npu" import "$models/convnet.onnx" --dump-after=fold-batch-norm
expect_output "convnet.onnx: 9 nodes, 1 inputs, 1 outputs, 9 constants" -- "$npu" import "$models/convnet.onnx"

printf 'inputs: {x: [1, 3, 8, 8]}\nlayers:\n  - {op: Conv, out_channels: 4, kernel: 3, activation: relu}\n' >"$tmp/net.yaml"
expect_output "activation=\"Relu\"" -- "$npu" import "$tmp/net.yaml" --dump

expect_error "npu: error: $tmp/missing.onnx: cannot open for reading: No such file or directory" -- "$npu" import "$tmp/missing.onnx"
printf 'garbage\n' >"$tmp/model.txt"
expect_error "npu: error: $tmp/model.txt: unknown model format '.txt' (expected .onnx, .yaml or .yml)" -- "$npu" import "$tmp/model.txt"
head -c 1000 "$models/convnet.onnx" >"$tmp/truncated.onnx"
expect_error "npu: error: $tmp/truncated.onnx: not a valid ONNX model (the protobuf does not parse: truncated or another format)" -- "$npu" import "$tmp/truncated.onnx"
expect_error "npu: error: --dump-after: unknown pass 'nope' (passes: infer-shapes, fold-constants, eliminate-dead-code, simplify-reshapes, fold-batch-norm, fold-pad, split-to-slices, slice-space-to-depth, fold-channel-shuffle, recognize-activations, reduce-to-global-pool, split-linear-resize, sink-nhwc-transposes, fuse-rms-norm, rotary-to-tokens, masks-to-adds, split-grouped-attention, lift-token-tensors, fuse-channel-layernorm, gemm-to-conv, fold-conv-affine, merge-channel-affines, fold-flatten-into-fc, fuse-activations, or all)" -- "$npu" import "$models/convnet.onnx" --dump-after=nope
printf 'inputs: {x: [1, 3, 8, 8]}\nlayers:\n  - {op: Conv, kernel: 11}\n' >"$tmp/bad.yaml"
expect_error "npu: error: $tmp/bad.yaml:3: layer 'Conv_0' (Conv): kernel 11x11 does not fit the padded input [1, 3, 8, 8]" -- "$npu" import "$tmp/bad.yaml"
exit $status
