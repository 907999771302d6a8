#!/usr/bin/env bash
# npu cosim as a user runs it: the two verdict lines on the bundled example, a waveform and the
# RTL's DDR written on request, and the exact error for a program built for other hardware.
set -euo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$npu" asm "$src/examples/asm/smoke.s" -o "$tmp/p.npub"
"$npu" cosim "$tmp/p.npub" --wave "$tmp/w.fst" --ddr-out "$tmp/rtl.bin" > "$tmp/out.txt"
grep -qx "DDR: RTL == SystemC (67108864 bytes compared)" "$tmp/out.txt"
grep -qx "cycles: SystemC 400, RTL 400 (delta 0)" "$tmp/out.txt"
test -s "$tmp/w.fst"
"$npu" sim "$tmp/p.npub" --ddr-out "$tmp/sim.bin" > /dev/null
cmp "$tmp/rtl.bin" "$tmp/sim.bin"
# The model is built for npu-s; an npu-l program is refused with one line.
sed 's/^\.hw npu-s$/.hw npu-l/' "$src/examples/asm/smoke.s" > "$tmp/large.s"
"$npu" asm "$tmp/large.s" -o "$tmp/large.npub"
set +e
"$npu" cosim "$tmp/large.npub" > /dev/null 2> "$tmp/err"
rc=$?
set -e
test "$rc" -eq 3  # unsupported: an error that prevented the check
grep -qx "npu: error: the program targets hardware config 'npu-l', but the RTL model was built for 'npu-s'" "$tmp/err"
