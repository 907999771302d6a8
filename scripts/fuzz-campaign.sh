#!/bin/bash
# A recorded fuzz campaign (docs/reliability.md, "Campaigns"): each named target of `make fuzz`
# runs 10^6 executions (or --runs N), one after another at low priority, over its working corpus
# (build-fuzz/corpus/TARGET), its regression inputs and its seeds, with the limits the issue sets
# (1 s per input, 2 GiB RSS). Each target's log (with libFuzzer's final stats) goes to
# OUT/TARGET.log, any crashing input to OUT/TARGET-crash-..., and one line per target to
# OUT/summary.txt.
#
# usage: scripts/fuzz-campaign.sh [--runs N] [--out DIR] TARGET...
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=1000000
out="$root/build-fuzz/campaign"
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -*) echo "fuzz-campaign.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: scripts/fuzz-campaign.sh [--runs N] [--out DIR] TARGET..." >&2; exit 2; }
mkdir -p "$out"
cd "$root"
status=0
for t in "$@"; do
  [ -x "build-fuzz/fuzz/fuzz_$t" ] || { echo "fuzz-campaign.sh: no build-fuzz/fuzz/fuzz_$t (make fuzz)" >&2; exit 2; }
  mkdir -p "build-fuzz/corpus/$t"
  start=$(date +%s)
  # shellcheck disable=SC2046  # the seed script prints folders and options to split
  nice -n 10 "build-fuzz/fuzz/fuzz_$t" -runs="$runs" -rss_limit_mb=2048 -timeout=1 \
    -print_final_stats=1 $(scripts/fuzz-seeds.sh --dict "$t") -artifact_prefix="$out/$t-" \
    "build-fuzz/corpus/$t" "tests/fuzz/regressions/$t" $(scripts/fuzz-seeds.sh "$t") \
    >"$out/$t.log" 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || status=1
  echo "$t exit=$rc seconds=$(($(date +%s) - start)) $(grep -h '^#[0-9]*[[:space:]]*DONE' "$out/$t.log" | tail -n 1)" \
    >>"$out/summary.txt"
done
exit "$status"
