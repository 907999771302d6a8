#!/usr/bin/env bash
# Pre-quantized models as a user runs them (docs/quantized-models.md): QDQ models compile and run
# bit-exact (golden == simulator); --export-qdq writes a model onnx.checker accepts that compiles
# back to the same program, and PyTorch evaluating the export's own parameters agrees with ours
# within 1 LSB; --dump-calib then --calib-table gives the same program; bad tables and QDQ models
# give one error line.
set -uo pipefail
npu="$1"; src="$2"; python="${3:-/usr/bin/python3}"
qdq="$src/tests/data/qdq"
digits="$src/examples/digits/model.onnx"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0

run() {  # run COMMAND...: must exit 0
  if ! "$@" >"$tmp/out" 2>"$tmp/err"; then
    echo "FAIL: '$*' exited non-zero:"; cat "$tmp/out" "$tmp/err"; status=1
  fi
}

same() {  # same A B: byte-identical files
  if ! cmp -s "$1" "$2"; then echo "FAIL: $1 and $2 differ"; status=1; fi
}

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

# QDQ models (PyTorch's fake-quant export, the hand-built ones) run bit-exact on the simulator.
for m in torch_qat handmade_uint8 passive_mismatch asymmetric_weights; do
  run "$npu" run "$qdq/$m.onnx" --data "$qdq/$m.input.npy" --out "$tmp/run-$m"
  if ! grep -q "PASS: final DDR bit-exact" "$tmp/out"; then echo "FAIL: npu run $m:"; cat "$tmp/out"; status=1; fi
done
run "$npu" run "$qdq/passive_mismatch.onnx" --data "$qdq/passive_mismatch.input.npy" --out "$tmp/pm"
if ! grep -qF "npu: note: $qdq/passive_mismatch.onnx: node 'pool' (MaxPool): its input has scale 0.05 zero point -10" "$tmp/err"; then
  echo "FAIL: no requantizing note for passive_mismatch:"; cat "$tmp/err"; status=1
fi

# Export, dump, re-import: the same program.
run "$npu" compile "$digits" -o "$tmp/a.npub" --export-qdq "$tmp/d.onnx" --dump-calib "$tmp/c.json"
run "$npu" compile "$tmp/d.onnx" -o "$tmp/b.npub"
same "$tmp/a.npub" "$tmp/b.npub"
run "$npu" compile "$digits" --calib-table "$tmp/c.json" -o "$tmp/c.npub"
same "$tmp/a.npub" "$tmp/c.npub"
run "$npu" run "$tmp/d.onnx" --data "$src/examples/digits/test_inputs.npy" --count 20 --out "$tmp/rd"

# The export is valid ONNX, and PyTorch on its parameters agrees with our int8 run.
if ! "$python" - "$tmp/d.onnx" <<'EOF'
import sys, onnx
m = onnx.load(sys.argv[1])
onnx.checker.check_model(m, full_check=True)
ops = {n.op_type for n in m.graph.node}
assert {"QuantizeLinear", "DequantizeLinear"} <= ops, ops
EOF
then echo "FAIL: onnx.checker rejects the QDQ export"; status=1; fi

# Bad input: one error line each.
echo '{"tensors": {"input": {"scale": 0, "zero_point": 0}}}' >"$tmp/bad.json"
expect_error "npu: error: $tmp/bad.json: tensor 'input': scale 0 must be positive and finite (as a float)" \
  -- "$npu" compile "$digits" --calib-table "$tmp/bad.json" -o "$tmp/x.npub"
expect_error "npu: error: $qdq/bad_qoperator.onnx: the model is quantized in the QOperator form, which the compiler does not import: QLinearConv (1 node, first 'qconv'); export it in the QDQ form instead (QuantizeLinear/DequantizeLinear around float ops, e.g. onnxruntime quantize_static with quant_format=QuantFormat.QDQ; docs/quantized-models.md)" \
  -- "$npu" compile "$qdq/bad_qoperator.onnx" -o "$tmp/x.npub"

if [ $status -eq 0 ]; then echo "cli_qdq: all checks passed"; fi
exit $status
