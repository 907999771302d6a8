#!/bin/bash
# Soak test (docs/reliability.md, "Soak"): a long opcheck sweep and repeated bench runs in a
# sanitizer build, with LeakSanitizer on. Every process must exit 0 (a leak or any sanitizer report
# makes it exit non-zero); the opcheck process's resident set is sampled while it runs so growth
# shows, and each bench round's peak resident set is recorded.
#
# usage: scripts/soak.sh [--build DIR] [--count N] [--rounds R] [--interval S] [--out DIR]
#   --build     build folder holding the sanitizer build of npu (default build-asan: `make asan`)
#   --count     opcheck cases (default 100000)
#   --rounds    bench rounds (default 20)
#   --interval  seconds between resident-set samples (default 10)
#   --out       where the logs, samples and summary.md go (default BUILD/soak)
#   --asan-options OPTS  appended to ASAN_OPTIONS (e.g. quarantine_size_mb=16, to tell the
#               quarantine's filling from growth)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-asan"
count=100000
rounds=20
interval=10
out=""
extra_asan=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --count) count=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --asan-options) extra_asan=$2; shift 2 ;;
    *) echo "soak.sh: unknown argument '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
npu="$build/npu"
[ -x "$npu" ] || { echo "soak.sh: no $npu (build it with \`make asan\`)" >&2; exit 2; }
out=${out:-$build/soak}
rm -rf "$out"
mkdir -p "$out"
# Leaks are reported at exit and make the exit status non-zero; stop at the first report.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0${extra_asan:+:$extra_asan}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || true; }
# Memory mappings: a process may hold at most vm.max_map_count of them, and oneDNN maps each
# JIT kernel it generates.
maps() { wc -l <"/proc/$1/maps" 2>/dev/null || true; }

# 1. One long opcheck process, its resident set sampled every $interval seconds.
echo "soak: npu opcheck all --count $count (samples every $interval s in $out/opcheck-rss.csv)" >&2
start=$(date +%s)
"$npu" opcheck all --count "$count" --report "$out/opcheck" >"$out/opcheck.log" 2>&1 &
pid=$!
echo "seconds,rss_kib,mappings" >"$out/opcheck-rss.csv"
while kill -0 "$pid" 2>/dev/null; do
  rss=$(kib "$pid")
  [ -n "$rss" ] && echo "$(( $(date +%s) - start )),$rss,$(maps "$pid")" >>"$out/opcheck-rss.csv"
  sleep "$interval"
done
set +e
wait "$pid"
opcheck_status=$?
set -e
opcheck_seconds=$(( $(date +%s) - start ))

# 2. Bench rounds, each a process of its own, its peak resident set measured by GNU time.
echo "round,exit,seconds,max_rss_kib" >"$out/bench-rounds.csv"
bench_failed=0
for round in $(seq 1 "$rounds"); do
  echo "soak: npu bench, round $round of $rounds" >&2
  round_start=$(date +%s)
  set +e
  /usr/bin/time -f "%M" -o "$out/bench-$round.rss" "$npu" bench --jobs 1 \
    --out "$out/bench-$round" >"$out/bench-$round.log" 2>&1
  status=$?
  set -e
  echo "$round,$status,$(( $(date +%s) - round_start )),$(tail -n 1 "$out/bench-$round.rss")" \
    >>"$out/bench-rounds.csv"
  [ "$status" -eq 0 ] || bench_failed=1
  rm -rf "$out/bench-$round"  # keep the log, not the report folders
done

# Summary: opcheck's resident set at 10% of the run and at the end, and its peak.
summary=$(awk -F, 'NR > 1 {n++; s[n] = $2; if ($2 > m) m = $2}
  END {if (n == 0) {print "no samples"; exit}
       e = int(n / 10) + 1; printf "%d samples; at 10%%: %d KiB, last: %d KiB, peak: %d KiB", n, s[e], s[n], m}' \
  "$out/opcheck-rss.csv")
{
  echo "# Soak ($(date -u +%Y-%m-%dT%H:%MZ), $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown))"
  echo
  echo "- \`npu opcheck all --count $count\` under $(basename "$build") (ASAN_OPTIONS $ASAN_OPTIONS): exit $opcheck_status in ${opcheck_seconds} s;"
  echo "  $(grep -E '^opcheck: [0-9]+/[0-9]+ cases' "$out/opcheck.log" | tail -n 1)"
  echo "  resident set: $summary"
  echo "  memory mappings (first, last sample; vm.max_map_count $(cat /proc/sys/vm/max_map_count)): $(awk -F, 'NR == 2 {f = $3} NR > 1 {l = $3} END {print f ", " l}' "$out/opcheck-rss.csv")"
  echo "- \`npu bench\` x $rounds (one process each): peak resident set per round (KiB):"
  echo "  $(awk -F, 'NR > 1 {printf "%s%s", sep, $4; sep = ", "}' "$out/bench-rounds.csv")"
  echo "  exits: $(awk -F, 'NR > 1 {printf "%s%s", sep, $2; sep = " "}' "$out/bench-rounds.csv")"
} >"$out/summary.md"
cat "$out/summary.md"
[ "$opcheck_status" -eq 0 ] && [ "$bench_failed" -eq 0 ]
