#!/usr/bin/env bash
# Eight concurrent `npu bench --update-baselines` processes on one baseline file, as the tasks of a
# job array run them: every process's entry must be in the file afterwards (docs/bench.md,
# "Baselines on a farm"). Before the file was locked and re-read, each process wrote back what it
# had read at its start, and all but the last writer's new figures were lost.
set -uo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
cd "$tmp"
fail() { echo "FAIL: $*"; status=1; }

# Eight names for the cheapest subnet, one per shard.
{
  echo "suite: race"
  echo "subnets:"
  for i in 1 2 3 4 5 6 7 8; do
    echo "  - {name: head_$i, graph: $src/subnet_bench/graphs/gap_fc_head.yaml, input: [1, 512, 7, 7], cosine: 0.995}"
  done
} > race.yaml

# Every process starts, reads the file, runs its subnet for a while and then writes; all eight
# runs overlap, so without the lock and the re-read under it the last rename wins.
race() {  # race BASELINE -- the eight processes, each with its own shard and output folder
  local pids=() i
  for i in 1 2 3 4 5 6 7 8; do
    "$npu" bench --suite race.yaml --baseline "$1" --update-baselines --shard "$i/8" \
      --out "out-$i" >"log-$i" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || fail "process $((i + 1)) exited non-zero: $(cat "log-$((i + 1))")"
  done
}

check() {  # check BASELINE CYCLES: all eight entries hold CYCLES
  local n
  n=$(grep -cE "^  head_[1-8]: \{cycles: $2," "$1")
  [ "$n" -eq 8 ] || fail "$1 holds $n of the 8 new entries:"$'\n'"$(cat "$1")"
}

# A baseline file whose figures are all 5% high, as after a compiler improvement: the eight
# processes each accept their subnet's new figure.
cycles=$("$npu" bench --suite race.yaml --filter '^head_1$' --baseline measured.yaml \
  --update-baselines --out measure 2>&1 | sed -n 's/^.* PASS  *head_1  *\([0-9,]*\) cycles.*/\1/p' | tr -d ,)
[ -n "$cycles" ] || fail "could not measure the subnet's cycles"
{
  echo "hardware: npu-s"
  echo "subnets:"
  for i in 1 2 3 4 5 6 7 8; do
    echo "  head_$i: {cycles: $((cycles * 105 / 100)), macs: 1, utilization: 0.1, cosine: 0.9}"
  done
  echo "  other_suite_entry: {cycles: 1234, macs: 1, utilization: 0.1, cosine: 0.9}"
} > shared.yaml
race shared.yaml
check shared.yaml "$cycles"
grep -q '^  other_suite_entry: {cycles: 1234,' shared.yaml || fail "an entry of no shard was lost"
"$npu" bench --suite race.yaml --baseline shared.yaml --out after >"$tmp/out" 2>&1 \
  || fail "the run after the update failed: $(cat "$tmp/out")"
grep -q 'cycles vs baseline: 0 regressions, 0 improvements, 8 within tolerance' "$tmp/out" \
  || fail "the run after the update: $(tail -1 "$tmp/out")"

# No file at all: the eight processes create it together.
race new/created.yaml
check new/created.yaml "$cycles"
[ -z "$(find . -name '*.tmp')" ] || fail "temporary files left: $(find . -name '*.tmp')"
exit $status
