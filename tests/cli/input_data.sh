#!/usr/bin/env bash
# Input data of a two-input model as a user gives it (docs/main-job.md, "Input data"): one .npz
# (numpy.savez or savez_compressed) or one folder of .npy files per input. Each layout gives the
# same run, outputs and program; data that does not fit gets one error line naming the file, the
# input and the layout expected.
set -uo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
model="$src/tests/data/multi_input/two_inputs.yaml"

/usr/bin/python3 - "$tmp" <<'PY'
import os, sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
x = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)
g = rng.uniform(0.5, 2.0, (6, 4, 1, 1)).astype(np.float32)
np.savez(f"{d}/data.npz", x=x, g=g)
np.savez_compressed(f"{d}/data_c.npz", g=g, x=x)  # the archive's order does not matter
for name, a in (("x", x), ("g", g)):
    os.makedirs(f"{d}/folders/{name}")
    np.save(f"{d}/folders/{name}/a.npy", a[:4])  # files read in name order: 4 samples, then 2
    np.save(f"{d}/folders/{name}/b.npy", a[4:])
np.savez(f"{d}/missing.npz", x=x)
np.savez(f"{d}/extra.npz", x=x, g=g, mask=x)
np.savez(f"{d}/counts.npz", x=x, g=g[:5])
np.savez(f"{d}/shape.npz", x=x.reshape(6, 18), g=g)
np.savez(f"{d}/dtype.npz", x=x, g=g.astype(np.int64))
PY

# The same inputs in three layouts: the same verdict, outputs and program.
for layout in data.npz data_c.npz folders; do
  if ! "$npu" run "$model" --calib "$tmp/$layout" --data "$tmp/$layout" --mode functional \
      --out "$tmp/run-$layout" --save-outputs "$tmp/outs-$layout" >"$tmp/run-$layout.txt" 2>&1 ||
     ! grep -q "^PASS: final DDR bit-exact against golden on 6/6 inputs$" "$tmp/run-$layout.txt"; then
    echo "FAIL: npu run with $layout:"; cat "$tmp/run-$layout.txt"; status=1
  fi
  "$npu" compile "$model" --calib "$tmp/$layout" -o "$tmp/$layout.npub" >/dev/null 2>&1 ||
    { echo "FAIL: npu compile --calib $layout"; status=1; }
done
for layout in data_c.npz folders; do
  diff -r "$tmp/outs-data.npz" "$tmp/outs-$layout" >/dev/null ||
    { echo "FAIL: the outputs of $layout differ from data.npz's"; status=1; }
  cmp -s "$tmp/data.npz.npub" "$tmp/$layout.npub" ||
    { echo "FAIL: the program calibrated on $layout differs from data.npz's"; status=1; }
done
"$npu" quant-report "$model" --calib "$tmp/data_c.npz" --out "$tmp/qr" >/dev/null 2>&1 ||
  { echo "FAIL: npu quant-report --calib data_c.npz"; status=1; }

expect_error() {  # expect_error EXPECTED_LINE -- command...: exit 3, that one line on stderr
  local expected="$1"; shift; shift
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne 3 ]; then
    echo "FAIL: '$*' exited with $rc"; cat "$tmp/err"; status=1; return
  fi
  if [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ "$(cat "$tmp/err")" != "$expected" ]; then
    echo "FAIL: '$*' printed:"; cat "$tmp/err"; echo "expected: $expected"; status=1
  fi
}
arrays="x f32[1, 2, 3, 3] or [N, 2, 3, 3]; g f32[1, 4, 1, 1] or [N, 4, 1, 1]"
npz_layout="expected one array per graph input, named by it: $arrays"
folder_layout() {
  echo "expected one folder of .npy files per graph input ($1/x/, $1/g/) or a .npz with one array per graph input, named by it ($arrays)"
}
expect_error "npu: error: calibration data '$tmp/missing.npz' has no array 'g'; $npz_layout" \
  -- "$npu" run "$model" --calib "$tmp/missing.npz" --out "$tmp/o"
expect_error "npu: error: calibration data '$tmp/extra.npz' holds array 'mask', which is no graph input; $npz_layout" \
  -- "$npu" run "$model" --calib "$tmp/data.npz" --data "$tmp/extra.npz" --out "$tmp/o"
expect_error "npu: error: calibration data '$tmp/counts.npz': array 'x' has 6 samples, array 'g' has 5 samples; every graph input needs the same number of samples (sample k takes the k-th of each)" \
  -- "$npu" compile "$model" --calib "$tmp/counts.npz" -o "$tmp/o.npub"
expect_error "npu: error: $tmp/shape.npz: array 'x': shape [6, 18] does not fit input 'x' f32[1, 2, 3, 3] (one sample of that shape, or a batch [N, 2, 3, 3])" \
  -- "$npu" run "$model" --calib "$tmp/shape.npz" --out "$tmp/o"
expect_error "npu: error: $tmp/dtype.npz: array 'g': dtype i64, calibration data must be float32 or float64" \
  -- "$npu" quant-report "$model" --calib "$tmp/dtype.npz" --out "$tmp/o"
expect_error "npu: error: calibration data '$tmp/nothing' does not exist; $(folder_layout "$tmp/nothing")" \
  -- "$npu" run "$model" --calib "$tmp/nothing" --out "$tmp/o"
expect_error "npu: error: calibration data '$tmp/folders/x/a.npy' is a file, but the graph has 2 inputs; $(folder_layout "$tmp/folders/x/a.npy")" \
  -- "$npu" run "$model" --calib "$tmp/folders/x/a.npy" --out "$tmp/o"
rm -r "$tmp/folders/g"
expect_error "npu: error: calibration data '$tmp/folders' has no folder 'g' for input 'g'; $(folder_layout "$tmp/folders")" \
  -- "$npu" run "$model" --data "$tmp/folders" --out "$tmp/o"
head -c 100 "$tmp/data.npz" >"$tmp/cut.npz"
expect_error "npu: error: $tmp/cut.npz: not a readable .npz (zip) archive: Not a zip archive" \
  -- "$npu" run "$model" --calib "$tmp/cut.npz" --out "$tmp/o"
exit $status
