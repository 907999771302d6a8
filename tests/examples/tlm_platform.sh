#!/usr/bin/env bash
# The TLM NPU on the example virtual platform (examples/tlm_platform, docs/tlm.md): the digits
# model's bundle from `npu export` passes twice in one simulation with `npu sim`'s cycle count, at
# two clock periods; a flipped weight byte, a code address past the DDR and one at a data word
# fail with the region or the fault; a bundle with a corrupted expected image, a missing bundle
# and a bad command line are refused with their exit statuses.
set -euo pipefail
npu="$1"; platform="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
cd "$tmp"

"$npu" export --out bundle > export.log 2>&1 || { cat export.log; exit 1; }
expected=$(sed -n 's/^expected_cycles: //p' bundle/manifest.yaml)
"$npu" sim bundle/program.npub --stats stats.json > /dev/null
sim_cycles=$(/usr/bin/python3 -c "import json; print(json.load(open('stats.json'))['total_cycles'])")
[ "$expected" = "$sim_cycles" ] || { echo "bundle expects $expected cycles, npu sim ran $sim_cycles"; exit 1; }

# Two runs back to back: each the bundle's DDR and `npu sim`'s cycles, the interrupt that many
# clock periods after START (the CPU also checks ID/VERSION, the error response past the register
# map, and that a second START while busy is ignored and flagged).
"$platform" bundle --runs 2 > pass.txt || { cat pass.txt; exit 1; }
grep -q "^PASS: bundle: 2 runs of $sim_cycles cycles each (expected_cycles $expected), interrupt $sim_cycles ns after START at 1 ns per cycle, [0-9]* regions bit-exact, nothing else written$" pass.txt ||
  { cat pass.txt; exit 1; }
"$platform" bundle --period-ns 2.5 > slow.txt || { cat slow.txt; exit 1; }
# SystemC prints a time in the largest unit that holds it as a whole number (ns for an even
# cycle count at 2.5 ns).
slow_value=$((sim_cycles * 2500)); slow_unit=0; units=(ps ns us ms s)
while [ $((slow_value % 1000)) = 0 ] && [ "$slow_unit" -lt 4 ]; do
  slow_value=$((slow_value / 1000)); slow_unit=$((slow_unit + 1))
done
slow_time="$slow_value ${units[$slow_unit]}"
grep -q "^PASS: bundle: 1 run of $sim_cycles cycles (expected_cycles $expected), interrupt $slow_time after START at 2500 ps per cycle" slow.txt ||
  { cat slow.txt; exit 1; }

# Expects exit status $1 and a line matching $2 (stdout, or stderr for 2 and 3) from the rest.
expect() {
  local status="$1" pattern="$2"; shift 2
  local got=0
  "$platform" "$@" > out.txt 2> err.txt || got=$?
  if [ "$got" != "$status" ] || ! grep -q -- "$pattern" out.txt err.txt; then
    echo "tlm_platform $*: exit $got (expected $status)"; cat out.txt err.txt; exit 1
  fi
  # One line, and for a usage error the usage after it.
  local lines=1; [ "$status" = 2 ] && lines=2
  [ "$(cat out.txt err.txt | wc -l)" = "$lines" ] || { echo "tlm_platform $*: not $lines line(s)"; cat out.txt err.txt; exit 1; }
}
# A weight byte flipped after loading: the output region the NPU writes differs.
weights=$(/usr/bin/python3 - <<'PY'
import re
text = open("bundle/manifest.yaml").read()
print(re.search(r"kind: weights\n\s*base: (\d+)", text).group(1))
PY
)
expect 1 "^FAIL: run 1: bundle: region '.*' differs at 0x[0-9a-f]* (offset [0-9]*): expected 0x[0-9a-f]*, the TLM NPU wrote 0x[0-9a-f]*$" bundle --flip "$weights"
# Code addresses past the DDR and at a word that is not an instruction: faults in STATUS, no cycles.
expect 1 "^FAIL: run 1: STATUS 0x00000307, fault code 3 at instruction 0 after 0 cycles: ddr-out-of-range fault at instruction 0 (fetch unit): fetch reached the end of DDR at 0x4000000 without an END$" bundle --code-address 0x4000000
expect 1 "^FAIL: run 1: STATUS 0x00000107, fault code 1 at instruction 0 after 0 cycles: illegal-word fault at instruction 0 (fetch unit, DDR 0x$(printf '%x' "$weights")): " bundle --code-address "$weights"
# A bundle whose expected image was corrupted is refused by its CRC before anything runs.
cp -r bundle corrupt
file=$(ls corrupt/regions/*.expected.bin | head -1)
printf '\xff' | dd of="$file" bs=1 count=1 conv=notrunc status=none
expect 3 "^tlm_platform: .*$(basename "$file").*" corrupt
expect 3 "^tlm_platform: missing/manifest.yaml: cannot open for reading" missing
expect 2 "^tlm_platform: --runs 0: not a count from 1 to 1000$" bundle --runs 0
