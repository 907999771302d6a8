#!/usr/bin/env bash
# SIGINT and SIGTERM stop the long commands cleanly (docs/reliability.md, "Interrupts"): bench and
# opcheck report what finished, marked interrupted, keep their .partial marker (a merge refuses the
# folder) and exit 130 / 143; the subnet in progress is not counted as an error.
set -euo pipefail
npu="$1"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Starts "$@" in the background with its output in $tmp/log, waits for a line matching $pattern,
# sends $signal, and leaves the exit status in $rc.
interrupt_after() {
  local pattern="$1" signal="$2"; shift 2
  "$npu" "$@" > "$tmp/log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 600); do
    grep -q "$pattern" "$tmp/log" && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
  done
  kill "-$signal" $pid
  set +e; wait $pid; rc=$?; set -e
}

interrupt_after '^\[ *1/' INT bench --jobs 1 --out "$tmp/bench"
[ "$rc" -eq 130 ] || { echo "bench: exit $rc, want 130"; cat "$tmp/log"; exit 1; }
grep -q '^npu: interrupted by SIGINT$' "$tmp/log" || { cat "$tmp/log"; exit 1; }
grep -q '^> \*\*INTERRUPTED by SIGINT: [0-9]* of 23 subnets were not run\*\*$' "$tmp/bench/bench.md" \
  || { cat "$tmp/bench/bench.md"; exit 1; }
grep -q '^- \*\*INTERRUPTED\*\*$' "$tmp/bench/bench.md" || { cat "$tmp/bench/bench.md"; exit 1; }
/usr/bin/python3 - "$tmp/bench/bench.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["interrupted"] == "SIGINT" and j["pass"] is False, j
assert j["summary"]["errors"] == 0, "the subnet in progress was counted as an error"
assert 1 <= j["summary"]["subnets"] < 23 and j["summary"]["not_run"] == 23 - j["summary"]["subnets"]
PY
grep -q 'name="interrupted"' "$tmp/bench/junit.xml"
[ -e "$tmp/bench/bench.partial" ] || { echo "bench.partial was removed"; exit 1; }
set +e; "$npu" merge "$tmp/bench" --out "$tmp/merged" > /dev/null 2>&1; merge_rc=$?; set -e
[ "$merge_rc" -ne 0 ] || { echo "merge accepted an interrupted shard"; exit 1; }

interrupt_after '^opcheck: [0-9]' TERM opcheck all --count 100000 --mode functional --report "$tmp/op"
[ "$rc" -eq 143 ] || { echo "opcheck: exit $rc, want 143"; cat "$tmp/log"; exit 1; }
grep -q '^INTERRUPTED by SIGTERM: [0-9]* of the 100000 cases were not run$' "$tmp/log" \
  || { cat "$tmp/log"; exit 1; }
grep -q '^> \*\*INTERRUPTED by SIGTERM' "$tmp/op/opcheck.md" || { cat "$tmp/op/opcheck.md"; exit 1; }
[ -e "$tmp/op/opcheck.partial" ]
echo "interrupts: bench exit 130, opcheck exit 143, reports marked"
