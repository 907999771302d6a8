#!/usr/bin/env bash
# The output conventions of docs/architecture.md ("Errors", "Output conventions"): provenance and a
# schema version in every report, --json / --quiet / --verbose on the long commands, exit statuses
# 1 (a check failed), 2 (usage) and 3 (an error prevented the check), the one deprecated alias of
# the vocabulary, the bash completion covering every subcommand and option, and `make run`
# building the npu target alone.
set -uo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
cd "$tmp" || exit 1

# json_ok FILE SCHEMA HARDWARE KEY...: FILE is one JSON document with "schema_version" SCHEMA, a
# "provenance" object (tool, commit, time_utc, host, and hardware_hash when HARDWARE is "hw") and
# every KEY (a dotted path: programs.0.path).
json_ok() {
  /usr/bin/python3 - "$@" <<'PY' || { echo "  in $1:"; head -c 600 "$1"; echo; return 1; }
import json, re, sys
path, schema, hardware, keys = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "hw", sys.argv[4:]
doc = json.load(open(path))
assert doc["schema_version"] == schema, doc["schema_version"]
p = doc["provenance"]
assert re.fullmatch(r"npu \d+\.\d+\.\d+ \((git [0-9a-f]{12}(-dirty)?|unknown commit)\)", p["tool"]), p
assert re.fullmatch(r"[0-9a-f]{12}(-dirty)?|unknown", p["commit"]), p
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", p["time_utc"]) and p["host"], p
assert ("hardware_hash" in p) == hardware, p
if hardware:
    assert re.fullmatch(r"fnv1a64:[0-9a-f]{16}", p["hardware_hash"]), p
for key in keys:
    node = doc
    for part in key.split("."):
        node = node[int(part)] if isinstance(node, list) else node[part]
PY
}

# expect_rc RC COMMAND...: the command exits RC (stdout and stderr in out.txt, err.txt).
expect_rc() {
  local want="$1"; shift
  "$@" >out.txt 2>err.txt; local rc=$?
  [ "$rc" -eq "$want" ] || { fail "'$*' exited $rc, not $want: $(cat err.txt)"; return 1; }
}

# --- npu run: --json is report.json on stdout, human lines on stderr; --quiet prints nothing.
if expect_rc 0 "$npu" run --count 2 --mode functional --out run --json; then
  json_ok out.txt 1 hw pass inputs bit_exact_inputs performance.total_cycles layers.0.layer ||
    fail "run --json"
  cmp -s out.txt run/report.json || fail "run --json is not report.json"
  grep -q '^PASS: final DDR bit-exact' err.txt || fail "run --json: the summary is not on stderr"
  grep -q "^<p class='provenance'>Schema 1; made by npu " run/report.html || fail "run: no HTML provenance"
  grep -q "^- Schema 1; made by npu .*, hardware fnv1a64:[0-9a-f]* at .*Z on " run/report.md ||
    fail "run: no Markdown provenance"
  # The commit is one of this checkout's history (HEAD, or an earlier commit the binary was built
  # from), when the source is a git checkout.
  if git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
    commit=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["provenance"]["commit"].split("-")[0])' out.txt)
    git -C "$src" merge-base --is-ancestor "$commit" HEAD 2>/dev/null ||
      fail "run: the commit $commit is not in the history of $src"
  fi
fi
if expect_rc 0 "$npu" run --count 2 --mode functional --out run --quiet; then
  [ ! -s out.txt ] && [ ! -s err.txt ] || fail "run --quiet printed: $(cat out.txt err.txt)"
fi
if expect_rc 0 "$npu" run --count 2 --mode functional --out run --verbose; then
  grep -q "^output '.*': int8 vs fp32 cosine " out.txt || fail "run --verbose: no per-output lines"
  grep -q "^Schema 1; made by " out.txt || fail "run --verbose: no provenance line"
fi

# --- npu compile and export: their own summaries; the bundle's manifest carries the deterministic
# provenance only, so two exports are byte-identical.
if expect_rc 0 "$npu" compile -o p.npub --json; then
  json_ok out.txt 1 hw command programs.0.path programs.0.instructions programs.0.npu_segment ||
    fail "compile --json"
  grep -q "^p.npub: [0-9]* instructions" err.txt || fail "compile --json: no summary on stderr"
fi
expect_rc 0 "$npu" compile -o p2.npub --quiet && { [ ! -s out.txt ] || fail "compile --quiet printed"; }
cmp -s p.npub p2.npub || fail "two compiles gave different program files"
if expect_rc 0 "$npu" export --out b1 --json; then
  json_ok out.txt 1 hw bundles.0.path bundles.0.expected_cycles || fail "export --json"
  "$npu" export --out b2 --quiet >/dev/null 2>&1
  diff -r b1 b2 >/dev/null || fail "two exports differ"
  grep -Eq '^  hardware_hash: fnv1a64:[0-9a-f]{16}$' b1/manifest.yaml || fail "manifest: no hardware hash"
  grep -q 'time_utc\|host:' b1/manifest.yaml && fail "manifest: time or host in a deterministic file"
  "$npu" verify-bundle b1 >/dev/null 2>&1 || fail "verify-bundle refuses a manifest with provenance"
fi

# --- npu sim and cosim.
"$npu" asm "$src/examples/asm/smoke.s" -o s.npub >/dev/null
if expect_rc 0 "$npu" sim s.npub --json --wave w.vcd; then
  json_ok out.txt 1 hw total_cycles units fault || fail "sim --json"
  grep -q '^\$enddefinitions' w.vcd || fail "sim --wave wrote no VCD"
fi
expect_rc 0 "$npu" sim s.npub --quiet && { [ ! -s out.txt ] && [ ! -s err.txt ] || fail "sim --quiet printed"; }
if expect_rc 0 "$npu" sim s.npub --verbose; then
  grep -q "^  compute: [0-9]* instructions, [0-9]* busy cycles" out.txt || fail "sim --verbose: $(cat out.txt)"
fi
if expect_rc 0 "$npu" cosim s.npub --json; then
  json_ok out.txt 1 hw matches simulator_cycles rtl_cycles cycle_delta || fail "cosim --json"
fi

# --- npu opcheck: the sweep's report JSON; a failing check exits 1 and still prints it.
if expect_rc 0 "$npu" opcheck conv --count 3 --json --out repros; then
  json_ok out.txt 2 hw pass totals.pass kinds || fail "opcheck --json"
fi
expect_rc 0 "$npu" opcheck conv --count 3 --quiet --out repros && { [ ! -s out.txt ] && [ ! -s err.txt ] || fail "opcheck --quiet printed"; }
if expect_rc 0 "$npu" opcheck conv --count 3 --verbose --out repros; then
  [ "$(grep -c '^opcheck: [0-9]/3 cases' out.txt)" -eq 3 ] || fail "opcheck --verbose: not a line per case: $(cat out.txt)"
fi
if expect_rc 1 "$npu" opcheck conv --count 20 --seed 5 --no-field-limits --inject-bug conv-clip-hi --max-repros 1 --out repros --json; then
  json_ok out.txt 2 hw failures.0.message || fail "opcheck --json of a failing sweep"
fi

# --- npu bench and merge: bench.json; JUnit properties.
cheap='^(gap_fc_head)$'
if expect_rc 0 "$npu" bench --filter "$cheap" --out bench --json; then
  json_ok out.txt 2 hw subnets.0.name summary || fail "bench --json"
  cmp -s out.txt bench/bench.json || fail "bench --json is not bench.json"
  grep -q '<property name="provenance.commit" value="' bench/junit.xml || fail "junit: no provenance"
  grep -q '<property name="schema_version" value="2"/>' bench/junit.xml || fail "junit: no schema version"
  grep -q "<p class='provenance'>Schema 2; made by " bench/bench.html || fail "bench.html: no provenance"
  grep -q '^\[1/1\] PASS  gap_fc_head' err.txt || fail "bench: no progress line on stderr: $(cat err.txt)"
  if expect_rc 0 "$npu" merge bench --out merged --json; then
    json_ok out.txt 2 hw subnets.0.name shards || fail "merge --json"
  fi
fi
expect_rc 0 "$npu" bench --filter "$cheap" --out bench --quiet && { [ ! -s out.txt ] && [ ! -s err.txt ] || fail "bench --quiet printed: $(cat out.txt err.txt)"; }
if expect_rc 0 "$npu" bench --filter "$cheap" --out bench --verbose; then
  grep -q "^gap_fc_head (" out.txt || fail "bench --verbose: no per-subnet layers"
fi

# --- npu quant-report: no hardware config, so no hardware hash.
if expect_rc 0 "$npu" quant-report "$src/examples/digits/model.onnx" --samples 2 --out q --json; then
  json_ok out.txt 1 none layers.0.layer outputs || fail "quant-report --json"
  cmp -s out.txt q/quant_report.json || fail "quant-report --json is not quant_report.json"
fi

# --- Exit statuses: 2 usage, 3 an error that prevented the check.
expect_rc 2 "$npu" compile -o - --json &&
  grep -qx "npu: error: --json prints its summary on standard output, which an output file ('-') also uses; give the file a name" err.txt ||
  fail "compile -o - --json: $(cat err.txt)"
expect_rc 2 "$npu" run --quiet --verbose && grep -q "^npu: error: run: --quiet excludes --verbose" err.txt ||
  fail "run --quiet --verbose: $(cat err.txt)"
expect_rc 3 "$npu" sim missing.npub --json && [ ! -s out.txt ] || fail "a missing program: $(cat out.txt)"
# (Outputs are captured before grep -q reads them: grep -q stops at the first match, and under
# pipefail the writer's SIGPIPE would fail the pipeline.)
help=$("$npu" --help)
grep -q "3 an error prevented the check" <<<"$help" || fail "npu --help does not list the exit statuses"

# --- Vocabulary: sim --vcd is the hidden deprecated alias of --wave.
expect_rc 0 "$npu" sim s.npub --vcd v.vcd --quiet && { cmp -s v.vcd w.vcd || fail "--vcd and --wave wrote different VCDs"; }
help=$("$npu" sim --help)
grep -q -- '--vcd' <<<"$help" && fail "sim --help shows the deprecated --vcd"

# --- Bash completion: every subcommand, and every option of each, as `npu --help` lists them.
/bin/bash - "$src/scripts/npu-completion.bash" "$npu" <<'BASH' || fail "bash completion"
source "$1"
npu="$2"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _npu_complete; echo "${COMPREPLY[*]}"; }
subcommands=$("$npu" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
[ "$(echo "$subcommands" | wc -l)" -ge 14 ] || { echo "subcommands: $subcommands"; exit 1; }
offered=" $(complete_words "$npu" "") "
for sub in $subcommands run compile export sim cosim bench opcheck quant-report merge; do
  [[ $offered == *" $sub "* ]] || { echo "no subcommand $sub in: $offered"; exit 1; }
  options=" $(complete_words "$npu" "$sub" "--") "
  for option in $("$npu" "$sub" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
    [[ $options == *" $option "* ]] || { echo "$sub: no $option in: $options"; exit 1; }
  done
done
options=" $(complete_words "$npu" run "--") "
for option in --json --quiet --verbose --jobs --out; do
  [[ $options == *" $option "* ]] || { echo "run: no $option"; exit 1; }
done
options=" $(complete_words "$npu" sim "--") "
[[ $options == *" --wave "* && $options != *" --vcd "* ]] || { echo "sim: $options"; exit 1; }
BASH

# --- make run builds the npu target only (not the tests).
recipe=$(make -n -C "$src" run BUILD_DIR=build 2>&1)
grep -q -- "--build --preset release -j [0-9]* --target npu$" <<<"$recipe" ||
  fail "make run does not build --target npu alone: $recipe"

exit $status
