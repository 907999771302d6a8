#!/usr/bin/env bash
# npu asm + npu disasm reproduce the smoke program's text, comments aside.
set -euo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$npu" asm "$src/examples/asm/smoke.s" -o "$tmp/p.npub"
"$npu" disasm "$tmp/p.npub" > "$tmp/out.s"
sed -e 's/[;#].*$//' -e 's/[[:space:]]*$//' -e '/^$/d' "$src/examples/asm/smoke.s" > "$tmp/expected.s"
diff -u "$tmp/expected.s" "$tmp/out.s"
"$npu" --version | grep -Eq '^npu [0-9]+\.[0-9]+\.[0-9]+ \((git [0-9a-f]+(-dirty)?|unknown commit)\)$'
