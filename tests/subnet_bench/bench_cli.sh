#!/usr/bin/env bash
# npu bench as a user runs it, on the cheapest subnets: the four reports (JUnit and JSON parsed),
# a baseline edited to fewer cycles caught as a regression, one edited to more reported as an
# improvement, shards that split the suite and merge back with scripts/merge_junit.py, writing
# baselines, and the exact error line for bad input.
set -uo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
cd "$tmp"
baselines="$src/subnet_bench/baselines/npu-s.yaml"
cheap='^(gap_fc_head|mbv2_inverted_residual_s2|mbv2_inverted_residual_s1)$'

fail() { echo "FAIL: $*"; status=1; }

expect_error() {  # expect_error EXPECTED_LINE -- command...
  local expected="$1"; shift; shift
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 128 ]; then
    fail "'$*' exited with $rc"; return
  fi
  if [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ "$(cat "$tmp/err")" != "$expected" ]; then
    echo "FAIL: '$*' printed:"; cat "$tmp/err"; echo "expected: $expected"; status=1
  fi
}

# Set one subnet's baseline cycles to a multiple of the committed figure.
scale_baseline() {  # scale_baseline NAME FACTOR OUT
  /usr/bin/python3 - "$baselines" "$1" "$2" "$3" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
name, factor = sys.argv[2], float(sys.argv[3])
def edit(m):
    return f"{m.group(1)}{int(int(m.group(2)) * factor)}"
text, n = re.subn(rf"(^  {re.escape(name)}: {{cycles: )(\d+)", edit, text, flags=re.M)
assert n == 1, f"no baseline for {name}"
open(sys.argv[4], "w").write(text)
EOF
}

# A clean run: progress lines, the table, exit 0, four well-formed reports.
"$npu" bench --filter "$cheap" --jobs 2 --out clean >"$tmp/out" 2>&1 || fail "clean run: $(cat "$tmp/out")"
grep -qE '^\[[ 0-9]+/3\] PASS +gap_fc_head ' "$tmp/out" || fail "no progress line: $(cat "$tmp/out")"
grep -q '^bench default on npu-s (timed): 3 subnets, 3 passed, 0 failed' "$tmp/out" \
  || fail "no summary line: $(cat "$tmp/out")"
for f in bench.md bench.json bench.html junit.xml; do
  [ -s "clean/$f" ] || fail "clean/$f not written"
done
/usr/bin/python3 - clean <<'EOF' || fail "reports not well-formed"
import json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
root = ET.parse(f"{d}/junit.xml").getroot()
assert root.tag == "testsuites" and root.get("tests") == "3" and root.get("failures") == "0", root.attrib
names = sorted(c.get("name") for c in root.iter("testcase"))
assert names == ["gap_fc_head", "mbv2_inverted_residual_s1", "mbv2_inverted_residual_s2"], names
j = json.load(open(f"{d}/bench.json"))
assert j["pass"] and j["summary"]["within_tolerance"] == 3, j["summary"]
assert all(s["bit_exact"] and s["cycle_verdict"] == "within" for s in j["subnets"])
html = open(f"{d}/bench.html").read()
assert html.count("<svg") == 3 and "src=" not in html and "<link" not in html
EOF

# A baseline edited to 10% fewer cycles: the run is a regression and fails.
scale_baseline gap_fc_head 0.9 lower.yaml
"$npu" bench --filter '^gap_fc_head$' --baseline lower.yaml --out lower >"$tmp/out" 2>&1 \
  && fail "a 10% cycle regression exited 0"
grep -qE '^FAIL gap_fc_head: cycles: [0-9]+ vs baseline [0-9]+ \(\+11\.[0-9]+%, tolerance 2\.00%\)$' \
  "$tmp/out" || fail "regression not reported: $(cat "$tmp/out")"
grep -q '<failure message="cycles: ' lower/junit.xml || fail "no JUnit failure: $(cat lower/junit.xml)"

# A baseline edited to 10% more cycles: an improvement, reported, not a failure.
scale_baseline gap_fc_head 1.1 higher.yaml
"$npu" bench --filter '^gap_fc_head$' --baseline higher.yaml --out higher >"$tmp/out" 2>&1 \
  || fail "an improvement failed: $(cat "$tmp/out")"
grep -q ' improvement ' "$tmp/out" || fail "improvement not in the table: $(cat "$tmp/out")"
grep -q '^## Improvements' higher/bench.md || fail "no improvements section in bench.md"

# Two shards: disjoint, together the filtered suite, merged into one JUnit file.
"$npu" bench --filter "$cheap" --shard 1/2 --out s1 >/dev/null 2>&1 || fail "shard 1/2 failed"
"$npu" bench --filter "$cheap" --shard 2/2 --out s2 >/dev/null 2>&1 || fail "shard 2/2 failed"
"$src/scripts/merge_junit.py" --check -o merged.xml s1/junit.xml s2/junit.xml >"$tmp/out" \
  || fail "merge: $(cat "$tmp/out")"
grep -q '^merged.xml: 2 files, 3 tests, 0 failures, 0 errors$' "$tmp/out" || fail "merge: $(cat "$tmp/out")"
/usr/bin/python3 - <<'EOF' || fail "merged shards are not the suite"
import xml.etree.ElementTree as ET
names = [c.get("name") for c in ET.parse("merged.xml").getroot().iter("testcase")]
assert sorted(names) == ["gap_fc_head", "mbv2_inverted_residual_s1", "mbv2_inverted_residual_s2"], names
EOF
"$src/scripts/merge_junit.py" --check -o m2.xml lower/junit.xml >/dev/null \
  && fail "merge --check passed a failing run"

# Writing baselines into a new file.
"$npu" bench --filter '^gap_fc_head$' --baseline new/npu-s.yaml --update-baselines --out upd \
  >"$tmp/out" 2>&1 || fail "update: $(cat "$tmp/out")"
grep -q '^hardware: npu-s$' new/npu-s.yaml && grep -qE '^  gap_fc_head: \{cycles: [0-9]+' new/npu-s.yaml \
  || fail "written baseline: $(cat new/npu-s.yaml)"

# Bad input: one error line naming the file.
expect_error "npu: error: nope.yaml: cannot open for reading: No such file or directory" -- \
  "$npu" bench --suite nope.yaml
printf 'subnets:\n  - name: a\n    grahp: x.yaml\n' > bad.yaml
expect_error "npu: error: bad.yaml:3: unknown key 'grahp' in a subnet (keys: name, graph, input, quant, cosine, cycle_tolerance)" -- \
  "$npu" bench --suite bad.yaml
expect_error "npu: error: $src/subnet_bench/baselines/npu-l.yaml: no baseline file (create it with \`npu bench --update-baselines\` on this hardware, or name one with --baseline)" -- \
  "$npu" bench --hw npu-l
printf 'hardware: npu-s\nsubnets:\n  resnet_basic_block: {cycles: 5}\n' > partial.yaml
expect_error "npu: error: partial.yaml: no baseline for subnet 'gap_fc_head' ($src/subnet_bench/suites/default.yaml:39); add it with \`npu bench --suite $src/subnet_bench/suites/default.yaml --filter '^gap_fc_head\$' --update-baselines\`" -- \
  "$npu" bench --filter gap_fc --baseline partial.yaml
expect_error "npu: error: --filter: 'nothing' matches no subnet of $src/subnet_bench/suites/default.yaml" -- \
  "$npu" bench --filter nothing
expect_error "npu: error: --shard: '3/2' is not i/n with 1 <= i <= n (e.g. 2/4, the second of four shards)" -- \
  "$npu" bench --shard 3/2
expect_error "npu: error: bench: --mode: fast not in {timed,functional}" -- \
  "$npu" bench --mode fast
expect_error "npu: error: bench: --jobs: Value -1 not in range 1 to 256" -- "$npu" bench --jobs -1
expect_error "npu: error: /proc/npu-bench: cannot create directory: No such file or directory" -- \
  "$npu" bench --out /proc/npu-bench
exit $status
