#!/usr/bin/env bash
# Bad input gives one error line on stderr and a non-zero exit, never a crash.
set -uo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0

expect_error() {  # expect_error EXPECTED_LINE -- command...  (also EXPECTED_RC=n for an exact exit)
  local expected="$1"; shift; shift
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 128 ] || { [ -n "${EXPECTED_RC:-}" ] && [ $rc -ne "$EXPECTED_RC" ]; }; then
    echo "FAIL: '$*' exited with $rc"; status=1; return
  fi
  if [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ "$(cat "$tmp/err")" != "$expected" ]; then
    echo "FAIL: '$*' printed:"; cat "$tmp/err"; echo "expected: $expected"; status=1
  fi
}

# Bad input exits 3 (docs/architecture.md lists the exit statuses).
bad_input() { EXPECTED_RC=3 expect_error "$@"; }
printf 'garbage\n' > "$tmp/hostname"
bad_input "npu: error: $tmp/hostname: truncated program file: 8 bytes, the header alone needs 48" -- "$npu" disasm "$tmp/hostname"
head -c 100 /dev/zero > "$tmp/zeros"
bad_input "npu: error: $tmp/zeros: not an NPU program file (bad magic)" -- "$npu" disasm "$tmp/zeros"
bad_input "npu: error: $tmp/missing.npub: cannot open for reading: No such file or directory" -- "$npu" disasm "$tmp/missing.npub"
printf '.hw npu-s\nLOAD y_size=0 x_size=1 c_bytes=1\nEND\n' > "$tmp/bad.s"
bad_input "npu: error: $tmp/bad.s:2: LOAD: field 'y_size' = 0 is out of range [1, 65535]" -- "$npu" asm "$tmp/bad.s" -o "$tmp/bad.npub"
[ -e "$tmp/bad.npub" ] && { echo "FAIL: a failed asm left an output file"; status=1; }
# Usage errors: one line naming what was not understood, exit 2 (CLI11's own two-line output aside).
usage_error() { EXPECTED_RC=2 expect_error "$@"; }
usage_error "npu: error: a subcommand is required (npu --help lists them)" -- "$npu"
usage_error "npu: error: unknown subcommand 'frob' (npu --help lists them)" -- "$npu" frob
usage_error "npu: error: unknown option '--frob'" -- "$npu" --frob
usage_error "npu: error: asm: FILE is required" -- "$npu" asm
usage_error "npu: error: asm: unknown option '--bogus'" -- "$npu" asm "$tmp/bad.s" --bogus
usage_error "npu: error: asm: --output: 1 required TEXT missing" -- "$npu" asm "$tmp/bad.s" -o
usage_error "npu: error: disasm: unexpected arguments 'b', 'c'" -- "$npu" disasm a b c
usage_error "npu: error: sim: --mode: x not in {functional,timed}" -- "$npu" sim --mode x a.npub
"$npu" --help >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/err" ] && grep -q "2 command-line usage error" "$tmp/out" \
  || { echo "FAIL: npu --help (exit, stderr or the exit-status footer)"; status=1; }
# The issue's own example: /etc/hostname is not a program.
if [ -r /etc/hostname ]; then
  "$npu" disasm /etc/hostname >/dev/null 2>"$tmp/err"; rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 128 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
    echo "FAIL: disasm /etc/hostname: rc=$rc"; cat "$tmp/err"; status=1
  fi
fi
exit $status
