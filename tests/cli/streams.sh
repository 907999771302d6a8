#!/usr/bin/env bash
# Output paths that are not plain files (support/file_io.h): '-' is standard output, and a
# character device (/dev/stdout), a FIFO or a symlink is written through and never replaced by a
# regular file; a plain file still appears whole (no PATH.tmp left behind).
set -euo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
"$npu" asm "$src/examples/asm/smoke.s" -o p.npub
"$npu" sim p.npub --stats stats.json > /dev/null
[ -f stats.json ] && [ ! -e stats.json.tmp ]
json_equal() {  # $1 holds exactly the JSON of stats.json (a summary line would break it)
  # Compared without the provenance's time (another run, perhaps another second).
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open("stats.json"))
a["provenance"].pop("time_utc"), b["provenance"].pop("time_utc")
assert a == b, open(sys.argv[1]).read()
PY
}

# '-': the stats on standard output, no file named '-'; the summary line moves to stderr.
"$npu" sim p.npub --stats - > dash.txt 2> dash.err
json_equal dash.txt
grep -q "^p.npub: 6 instructions, 400 cycles" dash.err
[ ! -e ./- ]

# /dev/stdout (a symlink to the process's descriptor): written through, left as it was.
before=$(stat -c '%F %N' /dev/stdout)
"$npu" sim p.npub --stats /dev/stdout > devstdout.txt
json_equal devstdout.txt
[ "$(stat -c '%F %N' /dev/stdout)" = "$before" ]
[ ! -e /dev/stdout.tmp ]

# A FIFO: a reader gets the bytes, the FIFO stays a FIFO.
mkfifo pipe
cat pipe > from_pipe.txt &
reader=$!
"$npu" sim p.npub --stats pipe > /dev/null
wait "$reader"
json_equal from_pipe.txt
[ -p pipe ]

# A symlink: its target gets the bytes (truncated first), the link stays a link.
printf '%*s' 100000 '' > target.json
ln -s target.json link.json
"$npu" sim p.npub --stats link.json > /dev/null
[ -L link.json ]
json_equal target.json

# Binary outputs too: a program assembled to standard output disassembles like the file.
"$npu" asm "$src/examples/asm/smoke.s" -o - > piped.npub
cmp piped.npub p.npub
"$npu" sim p.npub --mode functional --ddr-out - > ddr_stdout.bin
"$npu" sim p.npub --mode functional --ddr-out ddr_file.bin > /dev/null
cmp ddr_stdout.bin ddr_file.bin
# A compiled program piped straight into the disassembler; a calibration table on stdout.
"$npu" compile -o digits.npub > /dev/null
"$npu" compile -o - 2> /dev/null | "$npu" disasm /dev/stdin > piped.s
"$npu" disasm digits.npub | cmp - piped.s
"$npu" compile -o digits2.npub --dump-calib - 2> /dev/null > calib.json
/usr/bin/python3 -c "import json; assert json.load(open('calib.json'))['format'] == 'npu-calibration-table'"
