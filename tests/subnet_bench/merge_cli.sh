#!/usr/bin/env bash
# `npu merge` as a farm uses it (docs/bench.md, "Farms"): three shards of npu bench and of npu
# opcheck merged into reports equal to one run's apart from wall times and the shard list
# (compare_merged.py), the same cases in a sharded sweep as in one run, a partial merge that says
# what is missing, baselines applied once by the merge, and one error line for every bad input.
set -uo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
cd "$tmp"
cheap='^(gap_fc_head|mbv2_inverted_residual_s2|mbv2_inverted_residual_s1)$'
compare="$src/tests/subnet_bench/compare_merged.py"
version=$("$npu" --version)

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

# npu bench: one run, and the same work as three shards, merged.
"$npu" bench --filter "$cheap" --jobs 2 --out single >"$tmp/out" 2>&1 || fail "single run: $(cat "$tmp/out")"
for i in 1 2 3; do
  "$npu" bench --filter "$cheap" --shard "$i/3" --out "s$i" >"$tmp/out" 2>&1 || fail "shard $i: $(cat "$tmp/out")"
  [ ! -e "s$i/bench.partial" ] || fail "s$i/bench.partial left behind"
done
"$npu" merge s3 s1 s2 --out merged >"$tmp/out" 2>&1 || fail "merge: $(cat "$tmp/out")"
grep -q '^merged 3 shards; reports: merged/bench.md, ' "$tmp/out" || fail "merge output: $(cat "$tmp/out")"
"$compare" single merged || fail "the merged bench reports differ from one run's"
grep -q '^- Shards: merged from 3 shards of 3 (shards 1/3 to 3/3), ' merged/bench.md \
  || fail "no shard line: $(cat merged/bench.md)"
grep -qE -- "^- Schema 2; made by $(printf '%s' "$version" | sed 's/[().]/\\&/g'), hardware fnv1a64:[0-9a-f]{16} at [0-9T:-]+Z on .+$" single/bench.md \
  || fail "no provenance line: $(cat single/bench.md)"

# A partial merge: loud in every report, and not a pass.
"$npu" merge s1 s3 --out partial --allow-partial >"$tmp/out" 2>&1 && fail "a partial merge exited 0"
grep -q '^> \*\*PARTIAL: shard 2/3 missing; 1 of 3 subnets were not run\*\*$' partial/bench.md \
  || fail "partial bench.md: $(head -5 partial/bench.md)"
grep -q "<h2 class='fail'>PARTIAL: shard 2/3 missing" partial/bench.html || fail "partial bench.html"
grep -q '<testcase classname="subnet_bench.default" name="missing shard 2/3"' partial/junit.xml \
  || fail "partial junit.xml: $(cat partial/junit.xml)"
/usr/bin/python3 - partial/bench.json <<'EOF' || fail "partial bench.json"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["missing_shards"] == ["2/3"] and not j["pass"] and j["summary"]["not_run"] == 1, j["summary"]
EOF

# Bad input: one line naming the culprit.
mkdir empty stray; echo x > stray/notes.txt
expect_error "npu: error: empty: empty folder (its task wrote nothing: it never started, or wrote elsewhere)" -- \
  "$npu" merge s1 empty --out x
expect_error "npu: error: stray: holds neither bench.json nor opcheck.json (not an \`npu bench\` or \`npu opcheck --report\` output folder)" -- \
  "$npu" merge stray --out x
expect_error "npu: error: nowhere: no such folder" -- "$npu" merge s1 nowhere --out x
expect_error "npu: error: s1: shard 1/3 given twice (also s1)" -- "$npu" merge s1 s1 s2 s3 --out x
cp -r s2 copy
expect_error "npu: error: copy: shard 2/3 given twice (also s2)" -- "$npu" merge s1 s2 copy s3 --out x
expect_error "npu: error: shard 2/3 missing (of 3; give every shard's folder, or --allow-partial)" -- \
  "$npu" merge s1 s3 --out x
"$npu" bench --filter "$cheap" --shard 1/2 --out h1 >/dev/null 2>&1 || fail "shard 1/2"
expect_error "npu: error: h1: shard 1/2 is of a split into 2, but s2 is shard 2/3 of a split into 3" -- \
  "$npu" merge s2 h1 --out x
"$npu" bench --filter "$cheap" --shard 2/3 --mode functional --out f2 >/dev/null 2>&1 || fail "functional shard"
expect_error "npu: error: f2: mode 'functional' differs from 'timed' of s1 (shards of different runs)" -- \
  "$npu" merge s1 f2 s3 --out x
"$npu" bench --filter "$cheap" --shard 2/3 --baseline other.yaml --update-baselines --out b2 >/dev/null 2>&1 \
  || fail "a shard with other baselines"
expect_error "npu: error: b2: baselines 'other.yaml' differs from '$src/subnet_bench/baselines/npu-s.yaml' of s1 (shards of different runs)" -- \
  "$npu" merge s1 b2 s3 --out x
"$npu" bench --filter 'gap|mbv2' --shard 2/3 --out g2 >/dev/null 2>&1 || fail "a shard with another filter"
expect_error "npu: error: g2: filter 'gap|mbv2' differs from '$cheap' of s1 (shards of different runs)" -- \
  "$npu" merge s1 g2 s3 --out x
printf 'suite: default\nsubnets:\n  - {name: gap_fc_head, graph: %s, input: [1, 512, 7, 7], cosine: 0.995}\n' \
  "$src/subnet_bench/graphs/gap_fc_head.yaml" > own.yaml
"$npu" bench --suite own.yaml --baseline "$src/subnet_bench/baselines/npu-s.yaml" --out w1 >/dev/null 2>&1 || fail "own suite"
expect_error "npu: error: w1: suite file 'own.yaml' differs from '$src/subnet_bench/suites/default.yaml' of s1 (shards of different runs)" -- \
  "$npu" merge s1 w1 --out x
cp -r s2 v2
sed -i 's/"tool_version": "[^"]*"/"tool_version": "npu 0.0.9 (git 0123456789ab)"/' v2/bench.json
expect_error "npu: error: v2: tools 'npu 0.0.9 (git 0123456789ab)' differs from '$version' of s1 (shards of different runs)" -- \
  "$npu" merge s1 v2 s3 --out x
expect_error "npu: error: v2: written by npu 0.0.9 (git 0123456789ab), but this is $version (merge with the tools that ran the shards)" -- \
  "$npu" merge v2 --out x
# A report of another schema: one line naming both versions.
cp -r s2 old2
sed -i 's/"schema_version": 2/"schema_version": 1/' old2/bench.json
expect_error "npu: error: old2/bench.json: report schema_version 1, these tools read schema_version 2 (written by other tools: $version)" -- \
  "$npu" merge s1 old2 s3 --out x
mkdir cut; head -n 20 s2/bench.json > cut/bench.json
expect_error "npu: error: cut/bench.json: not JSON (truncated or damaged): line 21, column 1: unexpected end of input; expected string literal" -- \
  "$npu" merge s1 cut s3 --out x
expect_error "npu: error: merged/bench.json: a merged report; merge the shards' own folders" -- \
  "$npu" merge merged --out x
expect_error "npu: error: s1: is also the --out folder; write the merged reports elsewhere" -- \
  "$npu" merge s1 s2 s3 --out s1

# A task killed mid-run leaves bench.partial; the merge names the folder.
"$npu" bench --filter '^resnet_bottleneck$' --out killed >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1000); do [ -e killed/bench.partial ] && break; sleep 0.01; done
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
expect_error "npu: error: killed: did not finish (bench.partial is there: the task was killed or is still running); run it again, or leave it out and merge with --allow-partial" -- \
  "$npu" merge s1 killed --out x

# Baselines applied once by the merge: shards that did not update, a merge that does, as one
# `npu bench --update-baselines` run would (a 10% cycle regression accepted).
/usr/bin/python3 - "$src/subnet_bench/baselines/npu-s.yaml" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r"(^  gap_fc_head: {cycles: )(\d+)",
              lambda m: m.group(1) + str(int(m.group(2)) * 9 // 10), text, flags=re.M)
open("base.yaml", "w").write(text)
open("base2.yaml", "w").write(text)
EOF
for i in 1 2 3; do
  "$npu" bench --filter "$cheap" --baseline base.yaml --shard "$i/3" --out "u$i" >/dev/null 2>&1
done
"$npu" merge u1 u2 u3 --out umerged --update-baselines >"$tmp/out" 2>&1 || fail "merge --update-baselines: $(cat "$tmp/out")"
grep -q '^baselines: 3 of 3 subnets written to base.yaml (' "$tmp/out" || fail "merge --update-baselines: $(cat "$tmp/out")"
"$npu" bench --filter "$cheap" --baseline base.yaml --out after >"$tmp/out" 2>&1 || fail "after the merge's update: $(cat "$tmp/out")"
grep -q '0 regressions, 0 improvements, 3 within tolerance' "$tmp/out" || fail "after the merge's update: $(cat "$tmp/out")"
cmp -s base.yaml base2.yaml && fail "the merge wrote nothing"
"$npu" bench --filter "$cheap" --baseline base2.yaml --update-baselines --jobs 2 --out usingle >/dev/null 2>&1
cmp base.yaml base2.yaml || fail "merge --update-baselines wrote other baselines than one --update-baselines run"
sed -i 's/base2\.yaml/base.yaml/' usingle/*
"$compare" usingle umerged || fail "merge --update-baselines reports differ from one --update-baselines run's"

# npu opcheck: one sweep, and the same sweep in three shards: the same cases, the same reports.
"$npu" opcheck all --count 66 --seed 3 --report osingle >"$tmp/out" 2>&1 || fail "opcheck: $(cat "$tmp/out")"
for i in 1 2 3; do
  "$npu" opcheck all --count 66 --seed 3 --shard "$i/3" --report "o$i" >"$tmp/out" 2>&1 || fail "opcheck shard $i: $(cat "$tmp/out")"
done
grep -q '^opcheck all: 22 cases (shard 3/3 of a 66-case sweep), seed 3,' "$tmp/out" || fail "shard summary: $(cat "$tmp/out")"
"$npu" merge o1 o2 o3 --out omerged >"$tmp/out" 2>&1 || fail "opcheck merge: $(cat "$tmp/out")"
grep -q '^opcheck all on npu-s (functional, merged from 3 shards): 66 cases, ' "$tmp/out" || fail "opcheck merge: $(cat "$tmp/out")"
"$compare" osingle omerged || fail "the merged opcheck reports differ from one sweep's"
# With failures (an injected bug): the same failing cases; repros never collide in one folder.
"$npu" opcheck conv --count 30 --seed 5 --no-field-limits --inject-bug conv-clip-hi --out repros --report bsingle >/dev/null 2>&1
for i in 1 2; do
  "$npu" opcheck conv --count 30 --seed 5 --no-field-limits --inject-bug conv-clip-hi --out repros --shard "$i/2" --report "ob$i" >/dev/null 2>&1
done
"$npu" merge ob1 ob2 --out bmerged >/dev/null 2>&1 && fail "a merge of failing shards exited 0"
/usr/bin/python3 - bsingle/opcheck.json bmerged/opcheck.json <<'EOF' || fail "the sharded sweep failed other cases"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["failures"], "the injected bug was not found"
assert [f["index"] for f in a["failures"]] == [f["index"] for f in b["failures"]], (a["failures"], b["failures"])
assert a["totals"] == b["totals"] and a["kinds"] == b["kinds"]
for f in b["failures"]:
    if f["shrunk"]:
        assert f["shrunk"]["repro"] == f"repros/conv-s5-{f['index']}-conv.yaml", f["shrunk"]["repro"]
EOF
"$npu" opcheck conv --count 30 --seed 6 --shard 2/2 --report c2 >/dev/null 2>&1
expect_error "npu: error: c2: seed 6 differs from 5 of ob1 (shards of different sweeps)" -- "$npu" merge ob1 c2 --out x
"$npu" opcheck conv --count 8 --shard 1/4 --report q1 >/dev/null 2>&1 || fail "opcheck shard 1/4"
"$npu" opcheck conv --count 8 --shard 3/4 --report q3 >/dev/null 2>&1 || fail "opcheck shard 3/4"
expect_error "npu: error: shards 2/4, 4/4 missing (of 4; give every shard's folder, or --allow-partial)" -- \
  "$npu" merge q1 q3 --out x
"$npu" merge q1 q3 --out qpartial --allow-partial >/dev/null 2>&1 && fail "a partial opcheck merge exited 0"
grep -q "^> \*\*PARTIAL: shards 2/4, 4/4 missing; 4 of the sweep's 8 cases were not run\*\*$" qpartial/opcheck.md \
  || fail "partial opcheck.md: $(head -4 qpartial/opcheck.md)"
expect_error "npu: error: merge: --update-baselines and --baseline are for \`npu bench\` outputs" -- \
  "$npu" merge o1 o2 o3 --out x --update-baselines
exit $status
