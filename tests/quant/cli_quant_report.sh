#!/usr/bin/env bash
# `npu quant-report`: the per-layer table for the bundled digits model (its calibration set by
# default), the JSON and Markdown files, and one error line for each kind of bad input.
set -uo pipefail
npu="$1"; src="$2"
digits="$src/examples/digits/model.onnx"
convnet="$src/tests/compiler/models/convnet.onnx"
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

expect_in() {  # expect_in FILE PATTERN...: every fixed-string PATTERN is in FILE
  local file="$1"; shift
  for pattern in "$@"; do
    if ! grep -qF -- "$pattern" "$file"; then
      echo "FAIL: $file does not hold '$pattern':"; cat "$file"; status=1
    fi
  done
}

npy() {  # npy FILE DESCR SHAPE < raw bytes: writes a version 1.0 .npy file
  local header="{'descr': '$2', 'fortran_order': False, 'shape': $3, }"
  local pad=$(( (64 - (10 + ${#header} + 1) % 64) % 64 ))
  header="$header$(printf '%*s' "$pad" '')"
  local n=$(( ${#header} + 1 ))
  { printf '\223NUMPY\001\000'; printf "\\$(printf %03o $((n % 256)))\\$(printf %03o $((n / 256)))"
    printf '%s\n' "$header"; cat; } >"$1"
}

# The bundled model with its bundled calibration set, from the source folder and from elsewhere.
if (cd "$src" && "$npu" quant-report examples/digits/model.onnx --out "$tmp/report" >"$tmp/table" 2>"$tmp/err"); then
  expect_in "$tmp/table" \
    "Partition of examples/digits/model.onnx (strategy conservative)" \
    "Per-layer accuracy, int8 vs fp32 (32 samples; flagged '!': cosine < 0.99 or isolated SQNR < 20 dB)" \
    "  layer                                op                    cosine  SQNR dB     cosine  SQNR dB   SQNR dB" \
    "  /net/stem/stem.0/Conv                Conv+Relu  " \
    "  /net/branch_silu/branch_silu.0/Conv  Conv+Silu  " \
    "  /net/Concat                          Concat     " \
    "probs: cosine 0.9999" \
    "top-1 agrees with fp32 on 100.0% of samples" \
    "0 of 15 layers flagged"
  expect_in "$tmp/report/quant_report.json" '"schema_version": 1' '"provenance": {' '"time_utc": "' \
    '"model": "examples/digits/model.onnx"' \
    '"calibration_samples": 128' '"layer": "/net/fc/Gemm/conv"' '"isolated": {' '"accumulated": {'
  expect_in "$tmp/report/quant_report.md" "# Quantization report: examples/digits/model.onnx" \
    '| `/net/dw/dw.0/Conv` | Conv+Relu |' "## Flagged layers"
else
  echo "FAIL: quant-report on the digits model:"; cat "$tmp/err"; status=1
fi
# Samples on two threads: the same table and the same files.
if (cd "$src" && "$npu" quant-report examples/digits/model.onnx --jobs 2 --out "$tmp/report2" >"$tmp/table2" 2>"$tmp/err"); then
  # Compared without their provenance (the JSON object, the Markdown's last line): time may differ.
  if ! diff -q <(grep -v '"time_utc"' "$tmp/report/quant_report.json") \
         <(grep -v '"time_utc"' "$tmp/report2/quant_report.json") >/dev/null ||
     ! diff -q <(grep -v '^\*Schema ' "$tmp/report/quant_report.md") \
         <(grep -v '^\*Schema ' "$tmp/report2/quant_report.md") >/dev/null ||
     ! diff -q <(grep -v '^Wrote' "$tmp/table") <(grep -v '^Wrote' "$tmp/table2") >/dev/null; then
    echo "FAIL: quant-report --jobs 2 differs from --jobs 1"; status=1
  fi
else
  echo "FAIL: quant-report --jobs 2:"; cat "$tmp/err"; status=1
fi

if "$npu" quant-report "$digits" --out "$tmp/flagged" --threshold 0.99999 --sqnr-threshold 40 --samples 4 \
    >"$tmp/table" 2>"$tmp/err"; then
  expect_in "$tmp/table" "(4 samples; flagged '!': cosine < 0.99999 or isolated SQNR < 40 dB)" \
    "! /net/branch_silu/branch_silu.0/Conv  Conv+Silu  " \
    "  /net/branch_silu/branch_silu.0/Conv: LUT range: the 256-entry table samples its input"
else
  echo "FAIL: quant-report with thresholds:"; cat "$tmp/err"; status=1
fi

# Bad input: one line each.
expect_error "npu: error: quant-report: $convnet has no bundled calibration set; pass --calib with a .npy file, a folder of .npy files (one per input for several inputs) or a .npz with an array per input" \
  -- "$npu" quant-report "$convnet"
layout="expected a .npy file, a folder of .npy files (read in name order) or a .npz with an array named 'input'; each array f32[1, 1, 8, 8] or [N, 1, 8, 8]"
expect_error "npu: error: calibration data '$tmp/missing' does not exist; $layout" \
  -- "$npu" quant-report "$digits" --calib "$tmp/missing" --out "$tmp/o"
mkdir "$tmp/empty"
expect_error "npu: error: no calibration data: '$tmp/empty' holds no .npy files; $layout" \
  -- "$npu" quant-report "$digits" --calib "$tmp/empty" --out "$tmp/o"
expect_error "npu: error: $src/tests/compiler/models/convnet.input.npy: shape [1, 3, 32, 32] does not fit input 'input' f32[1, 1, 8, 8] (one sample of that shape, or a batch [N, 1, 8, 8])" \
  -- "$npu" quant-report "$digits" --calib "$src/tests/compiler/models/convnet.input.npy" --out "$tmp/o"
expect_error "npu: error: $src/examples/digits/test_labels.npy: dtype i64, calibration data must be float32 or float64" \
  -- "$npu" quant-report "$digits" --calib "$src/examples/digits/test_labels.npy" --out "$tmp/o"
{ head -c 80 /dev/zero; printf '\000\000\300\177'; head -c 172 /dev/zero; } | npy "$tmp/nan.npy" '<f4' '(1, 1, 8, 8)'
expect_error "npu: error: $tmp/nan.npy: sample 0 of input 'input' holds NaN at element 20 (calibration data must be finite)" \
  -- "$npu" quant-report "$digits" --calib "$tmp/nan.npy" --out "$tmp/o"
printf 'overrides:\n  - layers: [/net/nope/Conv]\n    activations: {method: kl}\n' >"$tmp/layer.yaml"
expect_error "npu: error: $tmp/layer.yaml:2: layer '/net/nope/Conv' is not in $digits" \
  -- "$npu" quant-report "$digits" --config "$tmp/layer.yaml" --out "$tmp/o"
printf 'activations:\n  method: magic\n' >"$tmp/method.yaml"
expect_error "npu: error: $tmp/method.yaml:2: unknown method 'magic' (methods: minmax, percentile, kl, mse)" \
  -- "$npu" quant-report "$digits" --config "$tmp/method.yaml" --out "$tmp/o"
exit $status
