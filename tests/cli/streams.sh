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
json_equal() {  # the JSON object in $1 (the sim summary line around it aside) equals stats.json
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
stats, _ = json.JSONDecoder().raw_decode(text[text.index("{"):])
assert stats == json.load(open("stats.json")), text
PY
}

# '-': the stats on standard output, no file named '-'.
"$npu" sim p.npub --stats - > dash.txt
json_equal dash.txt
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
/usr/bin/python3 -c "import sys; sys.exit(open('ddr_file.bin','rb').read() not in open('ddr_stdout.bin','rb').read())"
