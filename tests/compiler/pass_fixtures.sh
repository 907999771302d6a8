#!/usr/bin/env bash
# Pass tests as text (docs/compiler-frontend.md, "Pass fixtures"): each tests/compiler/
# pass_fixtures/NAME.yaml is a graph in and names the passes to run (`# passes: a,b`); NAME.expected
# is the IR as imported, then after each of those passes, as `npu import --passes --dump-after`
# prints it. A difference fails, printed as a unified diff.
# usage: pass_fixtures.sh NPU FIXTURE_DIR [--update]   (--update rewrites the .expected files)
set -euo pipefail
npu="$1"
dir="$2"
update="${3:-}"
failed=0
count=0
for fixture in "$dir"/*.yaml; do
  count=$((count + 1))
  passes=$(sed -n 's/^# passes: *//p' "$fixture" | head -n 1)
  if [ -z "$passes" ]; then
    echo "$fixture: no '# passes:' line" >&2
    failed=$((failed + 1))
    continue
  fi
  expected="${fixture%.yaml}.expected"
  actual=$(mktemp)
  {
    echo "; as imported"
    "$npu" import "$fixture" --no-passes --dump
    "$npu" import "$fixture" --passes "$passes" --dump-after "$passes" --verify-each
  } > "$actual" 2>&1 || true
  if [ "$update" = "--update" ]; then
    cp "$actual" "$expected"
  elif ! diff -u "$expected" "$actual" > "$actual.diff" 2>&1; then
    echo "$fixture: the IR after '$passes' differs from $(basename "$expected"):" >&2
    cat "$actual.diff" >&2
    failed=$((failed + 1))
  fi
  rm -f "$actual" "$actual.diff"
done
echo "pass fixtures: $((count - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
