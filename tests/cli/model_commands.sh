#!/usr/bin/env bash
# npu run / compile / export on the bundled digits model as a user runs them: the PASS verdict and
# reports, a program file the simulator runs, a bundle the RTL co-simulation consumes (CRCs
# re-checked, a corrupted file named), and one exact error line per bad input.
set -euo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$npu" run --count 4 --mode functional --out "$tmp/run" --save-outputs "$tmp/outs" > "$tmp/run.txt" 2>&1
# --save-outputs: the same files for any --jobs; scored against the labels they give the report's
# top-1 figures; the NPU's int8 probabilities (the whole model is one NPU segment, softmax
# included) dequantize to within a few steps of the fp32 model's.
"$npu" run --count 4 --mode functional --jobs 2 --out "$tmp/run2" --save-outputs "$tmp/outs2" \
  > /dev/null 2>&1
diff -r "$tmp/outs" "$tmp/outs2"
/usr/bin/python3 - "$tmp/outs" "$tmp/run/report.json" "$src/examples/digits/test_labels.npy" <<'PY'
import json, sys
import numpy as np
outs, report, labels = sys.argv[1], json.load(open(sys.argv[2])), np.load(sys.argv[3])[:4]
index = json.load(open(f"{outs}/outputs.json"))
probs, = index["outputs"]
assert probs["name"] == "probs" and probs["shape"] == [4, 1, 10] and "int8" in probs
npu_out, fp32_out = np.load(f"{outs}/{probs['npu']}"), np.load(f"{outs}/{probs['fp32']}")
assert npu_out.dtype == np.float32 and npu_out.shape == (4, 1, 10)
acc = report["accuracy"]
assert 100 * np.mean(npu_out.reshape(4, 10).argmax(1) == labels) == acc["int8_top1"]
assert 100 * np.mean(fp32_out.reshape(4, 10).argmax(1) == labels) == acc["fp32_top1"]
assert index["npu_segment_outputs"] == [], index["npu_segment_outputs"]
q = np.load(f"{outs}/{probs['int8']}")
assert q.dtype == np.int8 and q.shape[0] == 4
deq = (q.astype(np.float64) - probs["zero_point"]) * probs["scale"]
assert np.abs(deq - fp32_out).max() < 8 * probs["scale"]
PY
# --save-layers: every layer's fp32 value and, for NPU layers, golden's int8, in the fp32 layout:
# each dequantizes to the fp32 interpreter's value (a layout slip would break the cosine).
"$npu" run --count 2 --mode functional --out "$tmp/runL" --save-outputs "$tmp/layers" \
  --save-layers > /dev/null 2>&1
/usr/bin/python3 - "$tmp/layers" <<'PY'
import json, sys
import numpy as np
d = sys.argv[1]
layers = json.load(open(f"{d}/outputs.json"))["layers"]
assert len(layers) >= 13 and sum("int8" in e for e in layers) >= 12, layers
for e in layers:
    f = np.load(f"{d}/{e['fp32']}").astype(np.float64)
    assert list(f.shape) == e["shape"], e
    if "int8" in e:
        q = (np.load(f"{d}/{e['int8']}").astype(np.float64) - e["zero_point"]) * e["scale"]
        assert q.shape == f.shape, e
        cosine = q.ravel() @ f.ravel() / np.linalg.norm(q) / np.linalg.norm(f)
        assert cosine > 0.99, (e["name"], cosine)
PY
grep -q "^PASS: final DDR bit-exact against golden on 4/4 inputs$" "$tmp/run.txt"
grep -q "^/net/conv3/conv3.0/Conv  *conv  *npu  *1179648 " "$tmp/run.txt"
grep -q "^Partition of .*model.onnx (strategy conservative): 1 segments$" "$tmp/run.txt"
/usr/bin/python3 - "$tmp/run" <<'PY'
import json, sys
d = sys.argv[1]
r = json.load(open(f"{d}/report.json"))
assert r["pass"] and r["inputs"] == 4 and r["bit_exact_inputs"] == 4, r
assert r["performance"]["total_cycles"] > 0 and r["accuracy"]["fp32_top1"] is not None
assert len([l for l in r["layers"] if l["device"] == "npu"]) == 15
html = open(f"{d}/report.html").read()
# cycles, utilization, roofline, accuracy per layer, timeline
assert html.count("<svg") == 5 and "src=" not in html and "<link" not in html
assert "<p class='pass'>" in html and r["cosine_warning"]["layers_below"] == [], r["cosine_warning"]
assert "| layer | kind |" in open(f"{d}/report.md").read()
PY

"$npu" compile -o "$tmp/digits.npub" > /dev/null
"$npu" sim "$tmp/digits.npub" --mode functional > "$tmp/sim.txt"
grep -q "85 instructions" "$tmp/sim.txt"
# The program's manifest maps layers to instructions: disasm shows them as comments, and the text
# still assembles, to the same instructions and data (the layer table aside).
"$npu" disasm "$tmp/digits.npub" > "$tmp/digits.s"
grep -q "^; layer '/net/conv3/conv3.0/Conv' (instructions [0-9]*\.\.[0-9]*)$" "$tmp/digits.s" \
  || { grep '^;' "$tmp/digits.s"; exit 1; }
[ "$(grep -c "^; layer '" "$tmp/digits.s")" -ge 14 ]
"$npu" asm "$tmp/digits.s" -o "$tmp/reassembled.npub"
"$npu" disasm "$tmp/reassembled.npub" > "$tmp/reassembled.s"
grep -v "^; layer '" "$tmp/digits.s" | diff - "$tmp/reassembled.s"

# --trace: the first input's run, every NPU slice named by a layer of the model, the host's
# modelled slices on their own track (the softmax kept on the host by the config, so there is a
# host segment); --cosine-warn: a threshold no layer reaches flags them all, and the verdict is no
# longer an unqualified PASS.
printf 'host_layers: [/Softmax]\n' > "$tmp/host_softmax.yaml"
"$npu" run --count 1 --trace "$tmp/trace.json" --cosine-warn 1 --out "$tmp/runT" \
  --config "$tmp/host_softmax.yaml" > "$tmp/runT.txt" 2>&1
grep -q "^PASS: final DDR bit-exact against golden on 1/1 inputs$" "$tmp/runT.txt"
grep -q "^WARNING: 14 layers below cosine 1: " "$tmp/runT.txt" || { cat "$tmp/runT.txt"; exit 1; }
/usr/bin/python3 - "$tmp/trace.json" "$tmp/runT" <<'PY'
import json, sys
trace, d = json.load(open(sys.argv[1])), sys.argv[2]
r = json.load(open(f"{d}/report.json"))
# A concat whose producers stored its inputs in place has no instructions, so no trace events.
layers = {l["layer"] for l in r["layers"] if l["device"] == "npu" and l["instructions"] > 0}
tracks = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
assert set(tracks.values()) == {"host", "fetch", "load", "compute", "mac_array", "vector", "store"}
npu = [e for e in trace["traceEvents"] if e["ph"] == "X" and tracks[e["tid"]] != "host"]
assert len(npu) >= 2 * 80, len(npu)
for e in npu:
    assert e["name"] in layers or (e["name"] == "END" and e["args"]["opcode"] == "END"), e
assert {e["name"] for e in npu} - {"END"} == layers
host = [e for e in trace["traceEvents"] if e["ph"] == "X" and tracks[e["tid"]] == "host"]
assert host and all(e["args"]["cost"] == "modelled" for e in host), host
assert max(e["ts"] + e["dur"] for e in trace["traceEvents"] if e["ph"] == "X") == \
    r["performance"]["total_cycles"] + r["performance"]["host_cycles"]
w = r["cosine_warning"]
assert w["threshold"] == 1 and len(w["layers_below"]) == 14, w
html = open(f"{d}/report.html").read()
assert "<p class='warn'>PASS: final DDR bit-exact against golden on 1/1 inputs; 14 layers below cosine 1:" in html
assert html.count("<tr class='low'>") == 14
PY

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
grep -q "^npu: error: $tmp/broken/manifest.yaml:[0-9]*: $tmp/broken/regions/$region: CRC-32 0x[0-9a-f]* does not match the manifest's 0x[0-9a-f]*$" "$tmp/err"
# A region moved in the manifest: an error naming the manifest line and the field, not a crash.
cp -r "$tmp/bundle" "$tmp/moved"
sed -i '0,/^    base: .*/s//    base: 99999999999/' "$tmp/moved/manifest.yaml"
set +e
"$npu" cosim "$tmp/moved" > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ $rc -eq 3 ] || { echo "moved region: exit $rc"; cat "$tmp/err"; exit 1; }
grep -q "^npu: error: $tmp/moved/manifest.yaml:[0-9]*: region 0 'program': 'base' is 99999999999, the program has [0-9]*$" "$tmp/err" \
  || { cat "$tmp/err"; exit 1; }

# verify-bundle: the bundle replays on the timed simulator; an edited field is named.
"$npu" verify-bundle "$tmp/bundle" > "$tmp/verify.txt"
grep -q "as expected$" "$tmp/verify.txt" || { cat "$tmp/verify.txt"; exit 1; }
cp -r "$tmp/bundle" "$tmp/edited"
sed -i 's/^instructions: .*/instructions: 7/' "$tmp/edited/manifest.yaml"
set +e
"$npu" verify-bundle "$tmp/edited" > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ $rc -eq 3 ] || { echo "edited manifest: exit $rc"; cat "$tmp/err"; exit 1; }
grep -q "^npu: error: $tmp/edited/manifest.yaml:[0-9]*: 'instructions' is 7, the program has 85$" "$tmp/err" \
  || { cat "$tmp/err"; exit 1; }

# Whole or nothing: an export that hits a file-size limit fails naming the file and leaves
# neither the bundle folder nor its staging folder; an existing bundle is left as it was.
set +e
(ulimit -f 16; "$npu" export --out "$tmp/limited" > /dev/null 2> "$tmp/err"); rc=$?
set -e
[ $rc -ne 0 ] || { echo "export under a 16 KiB file-size limit succeeded"; exit 1; }
grep -q "^npu: error: .*File too large" "$tmp/err" || { cat "$tmp/err"; exit 1; }
[ ! -e "$tmp/limited" ] || { echo "a half-written bundle was left"; exit 1; }
! ls -a "$tmp" | grep -q "partial" || { echo "a staging folder was left"; ls -a "$tmp"; exit 1; }
before=$(cat "$tmp/bundle/manifest.yaml")
set +e
(ulimit -f 16; "$npu" export --out "$tmp/bundle" > /dev/null 2> "$tmp/err"); rc=$?
set -e
[ $rc -ne 0 ] && [ "$(cat "$tmp/bundle/manifest.yaml")" = "$before" ] \
  || { echo "the previous bundle was not kept"; exit 1; }

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
