#!/usr/bin/env bash
# npu sim on the bundled example in both modes: outputs written, JSON well-formed, trace and VCD
# show every unit, the two modes agree on the final DDR; --max-cycles only in timed mode; a
# faulting program still writes its outputs and exits with one line.
set -euo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$npu" asm "$src/examples/asm/smoke.s" -o "$tmp/p.npub"
"$npu" sim "$tmp/p.npub" --mode timed --stats "$tmp/t.json" --trace "$tmp/trace.json" \
  --wave "$tmp/w.vcd" --ddr-out "$tmp/timed.bin" > "$tmp/out.txt"
grep -q "6 instructions, 400 cycles" "$tmp/out.txt"
"$npu" sim "$tmp/p.npub" --mode functional --stats "$tmp/f.json" --ddr-out "$tmp/functional.bin" >/dev/null
cmp "$tmp/timed.bin" "$tmp/functional.bin"
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
t = json.load(open(f"{d}/t.json")); f = json.load(open(f"{d}/f.json"))
assert t["total_cycles"] == 400 and t["fault"] is None, t
assert f["mode"] == "functional" and f["macs"] == t["macs"] == 4096
# One track per unit; one span per instruction on its unit (each word on fetch, END included;
# the CONV also on mac_array), agreeing with the stats.
trace = json.load(open(f"{d}/trace.json"))
tracks = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
units = ["fetch", "load", "compute", "mac_array", "vector", "store"]
assert [tracks[tid] for tid in sorted(tracks)] == units, tracks
spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
assert all(e["dur"] >= 0 for e in spans)
names = {u: [e["name"] for e in spans if tracks[e["tid"]] == u] for u in units}
assert names == {"fetch": ["LOAD", "LOAD", "LOAD", "CONV", "STORE", "END"],
                 "load": ["LOAD"] * 3, "compute": ["CONV"], "mac_array": ["CONV"], "vector": [],
                 "store": ["STORE"]}, names
for u in units:
    assert len(names[u]) == t["units"][u]["instructions"], u
    assert sum(e["dur"] for e in spans if tracks[e["tid"]] == u) == t["units"][u]["busy_cycles"], u
# The VCD: every unit's busy wire; time stamps strictly increase and end at the last cycle.
vcd = open(f"{d}/w.vcd").read().splitlines()
wires = [line.split()[4] for line in vcd if line.startswith("$var")]
assert wires == [u + "_busy" for u in units], wires
times = [int(line[1:]) for line in vcd if line.startswith("#")]
assert times == sorted(set(times)) and times[-1] == t["total_cycles"], times
PY
# --max-cycles is the timed mode's watchdog: a usage error in functional mode, a fault naming
# every unit's state in timed mode.
set +e
"$npu" sim "$tmp/p.npub" --mode functional --max-cycles 100 > "$tmp/out.txt" 2> "$tmp/err"
rc=$?
set -e
[ $rc -eq 2 ]
[ "$(cat "$tmp/err")" = "npu: error: sim: --max-cycles applies to the timed mode, not --mode functional" ]
# Functional mode has no time either for a trace or a VCD.
set +e
"$npu" sim "$tmp/p.npub" --mode functional --vcd "$tmp/f.vcd" > "$tmp/out.txt" 2> "$tmp/err"
rc=$?
set -e
[ $rc -eq 2 ]
[ ! -e "$tmp/f.vcd" ]
[ "$(cat "$tmp/err")" = "npu: error: sim: --vcd applies to the timed mode, not --mode functional" ]
# The datapath thread count changes nothing: same DDR and the same stats with 1 and 2 threads.
"$npu" sim "$tmp/p.npub" --threads 1 --stats "$tmp/t1.json" --ddr-out "$tmp/t1.bin" >/dev/null
"$npu" sim "$tmp/p.npub" --threads 2 --stats "$tmp/t2.json" --ddr-out "$tmp/t2.bin" >/dev/null
cmp "$tmp/t1.bin" "$tmp/t2.bin"
# The stats compared without their "provenance" object (its time may differ by a second).
/usr/bin/python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a.pop("provenance")["commit"] and b.pop("provenance")["commit"]
assert a == b, (a, b)' "$tmp/t1.json" "$tmp/t2.json"
set +e
"$npu" sim "$tmp/p.npub" --max-cycles 100 --stats "$tmp/wd.json" 2> "$tmp/err"
rc=$?
set -e
[ $rc -eq 1 ]
grep -Eq '^npu: error: watchdog fault: still running after 100 cycles; load unit runs instruction 0 \(LOAD\) until cycle [0-9]+; compute unit waits at instruction 3 \(CONV\) for a load->compute token; store unit waits at instruction 4 \(STORE\) for a compute->store token; fetch has reached END \(instruction 5\)$' "$tmp/err" || { cat "$tmp/err"; exit 1; }
/usr/bin/python3 -c "import json,sys; s=json.load(open(sys.argv[1])); assert s['fault']['kind']=='watchdog' and s['total_cycles']==100" "$tmp/wd.json"
# A fault: the second load runs past the input SRAM.
printf '.hw npu-s\nLOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=8\nLOAD sram_addr=0x1fffc ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=8\nEND\n' > "$tmp/bad.s"
"$npu" asm "$tmp/bad.s" -o "$tmp/bad.npub"
set +e
"$npu" sim "$tmp/bad.npub" --stats "$tmp/bad.json" --ddr-out "$tmp/bad.bin" 2> "$tmp/err"
rc=$?
set -e
[ $rc -eq 1 ]
[ "$(cat "$tmp/err")" = "npu: error: sram-out-of-range fault at instruction 1 (LOAD, load unit): input SRAM write [0x1fffc, 0x20004) exceeds its 131072 bytes" ]
/usr/bin/python3 -c "import json,sys; s=json.load(open(sys.argv[1])); assert s['fault']['kind']=='sram-out-of-range' and s['units']['load']['instructions']==1" "$tmp/bad.json"
[ -s "$tmp/bad.bin" ]
