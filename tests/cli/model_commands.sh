#!/usr/bin/env bash
# npu run / compile / export on the bundled digits model as a user runs them: the PASS verdict and
# reports, a program file the simulator runs, a bundle the RTL co-simulation consumes (CRCs
# re-checked, a corrupted file named), and one exact error line per bad input.
set -euo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$npu" run --count 4 --mode functional --out "$tmp/run" > "$tmp/run.txt" 2>&1
grep -q "^PASS: final DDR bit-exact against golden on 4/4 inputs$" "$tmp/run.txt"
grep -q "^/net/conv3/conv3.0/Conv  *conv  *npu  *1179648 " "$tmp/run.txt"
grep -q "^Partition of .*model.onnx (strategy conservative): 2 segments$" "$tmp/run.txt"
/usr/bin/python3 - "$tmp/run" <<'PY'
import json, sys
d = sys.argv[1]
r = json.load(open(f"{d}/report.json"))
assert r["pass"] and r["inputs"] == 4 and r["bit_exact_inputs"] == 4, r
assert r["performance"]["total_cycles"] > 0 and r["accuracy"]["fp32_top1"] is not None
assert len([l for l in r["layers"] if l["device"] == "npu"]) == 14
html = open(f"{d}/report.html").read()
assert html.count("<svg") == 3 and "src=" not in html and "<link" not in html
assert "| layer | kind |" in open(f"{d}/report.md").read()
PY

"$npu" compile -o "$tmp/digits.npub" > /dev/null
"$npu" sim "$tmp/digits.npub" --mode functional > "$tmp/sim.txt"
grep -q "100 instructions" "$tmp/sim.txt"

"$npu" export --out "$tmp/bundle" > /dev/null
"$npu" cosim "$tmp/bundle" > "$tmp/cosim.txt"
grep -q "regions equal to the expected images" "$tmp/cosim.txt"
cp -r "$tmp/bundle" "$tmp/broken"
region=$(ls "$tmp/broken/regions" | grep 'expected.bin$' | head -1)
printf '\xff' | dd of="$tmp/broken/regions/$region" bs=1 seek=0 conv=notrunc 2>/dev/null
set +e
"$npu" cosim "$tmp/broken" > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ $rc -eq 3 ]  # bad input
grep -q "^npu: error: $tmp/broken/regions/$region: CRC-32 0x[0-9a-f]* does not match the manifest's 0x[0-9a-f]*$" "$tmp/err"
# A region moved outside the DDR in the manifest: an error naming the manifest, not a crash.
cp -r "$tmp/bundle" "$tmp/moved"
sed -i '0,/^    base: .*/s//    base: 99999999999/' "$tmp/moved/manifest.yaml"
set +e
"$npu" cosim "$tmp/moved" > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ $rc -eq 3 ] || { echo "moved region: exit $rc"; cat "$tmp/err"; exit 1; }
grep -q "^npu: error: $tmp/moved/manifest.yaml:[0-9]*: region '.*' \[0x174876e7ff, +[0-9]*) is empty or outside the 67108864-byte DDR$" "$tmp/err" \
  || { cat "$tmp/err"; exit 1; }

expect_error() {  # exit 3 (bad input) unless EXPECTED_RC says otherwise, e.g. 2 for usage errors
  local want="$1"; shift
  set +e
  "$npu" "$@" > /dev/null 2> "$tmp/err"; local rc=$?
  set -e
  [ $rc -eq "${EXPECTED_RC:-3}" ] || { echo "exit $rc for: $*"; exit 1; }
  [ "$(cat "$tmp/err")" = "$want" ] || { echo "got: $(cat "$tmp/err")"; echo "want: $want"; exit 1; }
}
expect_error "npu: error: $tmp/none.onnx: cannot open for reading: No such file or directory" \
  run "$tmp/none.onnx"
EXPECTED_RC=2 expect_error "npu: error: run: --mode: fast not in {timed,functional}" run --mode fast
EXPECTED_RC=2 expect_error "npu: error: run: --count: Value 0 not in range 1 to 1000000000" \
  run --count 0
# A bad --out fails before the run, not after it.
expect_error "npu: error: /proc/npu-run: cannot create directory: No such file or directory" \
  run --out /proc/npu-run
expect_error "npu: error: hardware config 'npu-xl' not found (looked in: $src/configs/npu-xl.yaml)" \
  compile --hw npu-xl -o "$tmp/x.npub"
