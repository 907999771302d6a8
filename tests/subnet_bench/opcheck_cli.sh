#!/usr/bin/env bash
# npu opcheck as a user runs it: a clean sweep, an injected bug found and shrunk into a repro
# that replays (and passes once the bug is off), and the exact error lines for bad input.
set -uo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
cd "$tmp"

fail() { echo "FAIL: $*"; status=1; }

expect_error() {  # expect_error EXPECTED_LINE -- command...  (EXPECTED_RC=n for an exact exit)
  local expected="$1"; shift; shift
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 128 ] || { [ -n "${EXPECTED_RC:-}" ] && [ $rc -ne "$EXPECTED_RC" ]; }; then
    fail "'$*' exited with $rc"; return
  fi
  if [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ "$(cat "$tmp/err")" != "$expected" ]; then
    echo "FAIL: '$*' printed:"; cat "$tmp/err"; echo "expected: $expected"; status=1
  fi
}

# A clean sweep: exit 0, a progress line and the summary table.
"$npu" opcheck pool --count 30 --seed 4 --no-field-limits >"$tmp/out" 2>&1 || fail "clean sweep: $(cat "$tmp/out")"
grep -q '^opcheck: 30/30 cases: ' "$tmp/out" || fail "no progress line"
grep -qE '^  total +[0-9]+ +0 +[0-9]+$' "$tmp/out" || fail "no total row: $(cat "$tmp/out")"

# The channel slice and shuffle families by name.
for op in slice shuffle; do
  "$npu" opcheck $op --count 10 --seed 4 >"$tmp/out" 2>&1 || fail "$op sweep: $(cat "$tmp/out")"
  grep -qE "^  $op +[0-9]+ +0 +[0-9]+$" "$tmp/out" || fail "no $op row: $(cat "$tmp/out")"
done

# An injected bug: exit 1, a shrunk repro written and listed.
"$npu" opcheck conv --count 40 --seed 5 --no-field-limits --inject-bug conv-clip-hi --out repros \
  >"$tmp/out" 2>&1 && fail "a sweep with an injected bug exited 0"
repro=$(sed -n 's/^    repro: //p' "$tmp/out" | head -1)
[ -n "$repro" ] && [ -f "$repro" ] || fail "no repro file listed: $(cat "$tmp/out")"
grep -q '^inject_bug: conv-clip-hi$' "$repro" || fail "the repro does not record the bug"
grep -qE '^  input: \[1, 1, [1-9]\]$' "$repro" || fail "the repro is not shrunk to 1x1xC: $(cat "$repro")"
"$npu" opcheck --repro "$repro" >"$tmp/out" 2>&1 && fail "the repro replayed without failing"
grep -q ': FAIL (mismatch): conv 1x1x' "$tmp/out" || fail "replay output: $(cat "$tmp/out")"
"$npu" opcheck --repro "$repro" --inject-bug none >"$tmp/out" 2>&1 || fail "without the bug the repro fails: $(cat "$tmp/out")"
grep -q ': PASS: conv 1x1x' "$tmp/out" || fail "replay output: $(cat "$tmp/out")"

# Bad input: one error line.
expect_error "npu: error: $tmp/missing.yaml: cannot open for reading: No such file or directory" -- \
  "$npu" opcheck --repro "$tmp/missing.yaml"
printf 'opcheck_repro: 1\ncase:\n  op: maxpool\n  dilation: [2, 2]\n' > bad.yaml
expect_error "npu: error: bad.yaml:4: key 'dilation' does not apply to op 'maxpool'" -- \
  "$npu" opcheck --repro bad.yaml
EXPECTED_RC=2 expect_error "npu: error: opcheck: unknown injected bug 'typo' (one of none, conv-bias-bit, conv-clip-hi, eltwise-zero-point, expected-off-by-one)" -- \
  "$npu" opcheck conv --count 1 --inject-bug typo
EXPECTED_RC=2 expect_error "npu: error: opcheck: name an OP (conv, eltwise, pool, lut, concat, upsample, slice, shuffle, matmul, reduce, resize, norm, all) or --repro FILE" -- \
  "$npu" opcheck
EXPECTED_RC=2 expect_error "npu: error: opcheck: give either OP or --repro, not both" -- \
  "$npu" opcheck conv --repro bad.yaml
EXPECTED_RC=2 expect_error "npu: error: opcheck: --shard and --report are for sweeps, not --repro" -- \
  "$npu" opcheck --repro bad.yaml --shard 1/2
EXPECTED_RC=3 expect_error "npu: error: --shard: '0/2' is not i/n with 1 <= i <= n (e.g. 2/4, the second of four shards)" -- \
  "$npu" opcheck conv --shard 0/2
exit $status
