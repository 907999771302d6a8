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
#   --heap-every K  every K-th sample, attach gdb to the opcheck process for a moment and read the
#               sanitizer allocator's counters: the program's live heap
#               (__sanitizer_get_current_allocated_bytes) and what the allocator has mapped
#               (__sanitizer_get_heap_size). Default 3; 0 turns it off. Skipped, with the columns
#               left empty, where gdb is missing, the build has no ASan or ptrace is refused.
#
# Besides the resident set, each sample splits it by mapping class from /proc/PID/smaps (x86-64
# Linux ASan layout): the shadow memory (0x7fff8000-0x10007fff8000), the allocator's primary
# region (0x600000000000-0x640000000000, blocks up to 128 KiB in size classes), other anonymous
# memory (the allocator's large blocks, each an mmap of its own, the sanitizer's internal
# allocator and stack depot, oneDNN's JIT code, stacks, [heap]) and file-backed pages (the
# program's code).
# summary.md gives the means by fifths of the run (in time; the cases each fifth reached are
# shown, as the sweep's pace varies), so a growth shows and where it lives.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-asan"
count=100000
rounds=20
interval=10
out=""
extra_asan=""
heap_every=3
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --count) count=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --asan-options) extra_asan=$2; shift 2 ;;
    --heap-every) heap_every=$2; shift 2 ;;
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
# Resident KiB by mapping class: "shadow,allocator,anon,file" (empty if smaps is unreadable).
# Addresses are compared as zero-padded hex strings (mawk has no strtonum).
classes() {
  awk 'function pad(h) { return substr("0000000000000000", 1, 16 - length(h)) h }
    /^[0-9a-f]+-[0-9a-f]+ / {
      split($1, r, "-"); lo = pad(r[1]); hi = pad(r[2])
      if (NF >= 6 && substr($6, 1, 1) == "/") c = "file"
      else if (lo >= "000000007fff8000" && hi <= "000010007fff8000") c = "shadow"
      else if (lo >= "0000600000000000" && hi <= "0000640000000000") c = "alloc"
      else c = "anon"
      next }
    /^Rss:/ { k[c] += $2 }
    END { if (NR) printf "%d,%d,%d,%d", k["shadow"], k["alloc"], k["anon"], k["file"] }' \
    "/proc/$1/smaps" 2>/dev/null || true
}
# The sanitizer allocator's counters in bytes, "live,mapped", read by gdb without loading debug
# information; the process stops for the 0.5-3 s that takes. Empty when they cannot be read.
# Only these statistics calls are made: __sanitizer_purge_allocator() called the same way once
# hung the process (the stopped thread held an allocator lock the call needed).
gdb_ok=0
if [ "$heap_every" -gt 0 ] && command -v gdb >/dev/null 2>&1; then gdb_ok=1; fi
heap_failures=0
heap() {  # sets heap_now ("live,mapped", or "," when not read)
  heap_now=","
  [ "$gdb_ok" -eq 1 ] || return 0
  local line
  line=$(timeout 60 gdb -nx -batch -q --readnever -iex 'set auto-load off' \
      -iex 'set debuginfod enabled off' -ex "attach $1" \
      -ex 'printf "SOAKHEAP %lu,%lu\n", (unsigned long)__sanitizer_get_current_allocated_bytes(), (unsigned long)__sanitizer_get_heap_size()' \
      -ex detach </dev/null 2>/dev/null | awk '/^SOAKHEAP [0-9]+,[0-9]+$/ {print $2}') || true
  if [ -n "$line" ]; then heap_failures=0; heap_now=$line; return 0; fi
  # No ASan runtime, ptrace refused, or the process ended: stop trying after three misses.
  heap_failures=$((heap_failures + 1))
  [ "$heap_failures" -lt 3 ] || gdb_ok=0
}

# 1. One long opcheck process, its resident set sampled every $interval seconds.
echo "soak: npu opcheck all --count $count (samples every $interval s in $out/opcheck-rss.csv)" >&2
start=$(date +%s)
"$npu" opcheck all --count "$count" --report "$out/opcheck" >"$out/opcheck.log" 2>&1 &
pid=$!
echo "seconds,rss_kib,mappings,shadow_kib,allocator_kib,other_anon_kib,file_kib,live_heap_bytes,allocator_mapped_bytes,cases_done" \
  >"$out/opcheck-rss.csv"
sample=0
while kill -0 "$pid" 2>/dev/null; do
  rss=$(kib "$pid")
  cls=$(classes "$pid"); [ -n "$cls" ] || cls=",,,"
  heap_now=","
  # Not in the first seconds (a call before the sanitizer has set itself up fails a CHECK and
  # ends the process) nor once the sweep has printed its last case (the leak check at exit stops
  # the process with ptrace, which an attached gdb would refuse it).
  if [ "$heap_every" -gt 0 ] && [ "$sample" -gt 0 ] && [ $((sample % heap_every)) -eq 0 ] &&
     [ $(( $(date +%s) - start )) -ge 3 ] &&
     ! grep -qE "^opcheck: ([0-9]+)/\1 cases|^opcheck all:" "$out/opcheck.log" 2>/dev/null; then
    heap "$pid"
  fi
  # Cases done as of the sweep's last progress line (one every 30 s or tenth of the sweep).
  done_cases=$(grep -oE '^opcheck: [0-9]+/' "$out/opcheck.log" 2>/dev/null | tail -n 1 | tr -dc 0-9) || true
  [ -n "$rss" ] && echo "$(( $(date +%s) - start )),$rss,$(maps "$pid"),$cls,$heap_now,$done_cases" \
    >>"$out/opcheck-rss.csv"
  sample=$((sample + 1))
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

# The samples' means by fifths (MB), as a markdown table, and the last fifth against the second.
fifths() {
  awk -F, 'NR > 1 && $2 != "" {n++; for (c = 1; c <= 10; c++) v[n, c] = $c}
    function mean(c, a, b,   i, s, k) {
      for (i = a; i <= b; i++) if (v[i, c] != "") {s += v[i, c]; k++}
      return k ? s / k : -1 }
    function mb(x, unit) { return x < 0 ? "-" : sprintf("%.0f", x * unit / 1048576) }
    END {
      if (n < 5) {print "(fewer than five samples)"; exit}
      print "| fifth | seconds | cases done | resident | shadow | allocator | other anon | file | live heap | allocator mapped | gdb reads |"
      print "|---|---|---|---|---|---|---|---|---|---|---|"
      for (f = 1; f <= 5; f++) {
        a = int((f - 1) * n / 5) + 1; b = int(f * n / 5)
        r[f] = mean(2, a, b); l[f] = mean(8, a, b)
        reads = 0; for (i = a; i <= b; i++) if (v[i, 8] != "") reads++
        printf "| %d | %d-%d | %s-%s | %s | %s | %s | %s | %s | %s | %s | %d |\n", f, v[a, 1], v[b, 1],
          v[a, 10] == "" ? 0 : v[a, 10], v[b, 10] == "" ? "?" : v[b, 10],
          mb(r[f], 1024), mb(mean(4, a, b), 1024), mb(mean(5, a, b), 1024),
          mb(mean(6, a, b), 1024), mb(mean(7, a, b), 1024), mb(l[f], 1), mb(mean(9, a, b), 1), reads
      }
      printf "\nlast fifth against the second: resident %+.1f%%", 100 * (r[5] / r[2] - 1)
      if (l[2] > 0 && l[5] >= 0) printf ", live heap %+.1f%%", 100 * (l[5] / l[2] - 1)
      # The live heap is read at instants: one read inside a large case lifts a fifth'"'"'s mean.
      for (i = 1; i <= n; i++) if (v[i, 8] != "") {k++; h[k] = v[i, 8]}
      if (k > 0) {
        for (i = 2; i <= k; i++) {x = h[i]; for (j = i - 1; j >= 1 && h[j] > x; j--) h[j + 1] = h[j]; h[j + 1] = x}
        printf "; live heap over all %d reads: median %s MB, max %s MB", k, mb(h[int((k + 1) / 2)], 1), mb(h[k], 1)
      }
      print ""
    }' "$1"
}

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
  echo "  by fifths of the samples (mean MB; shadow, allocator = ASan's primary region, other"
  echo "  anonymous and file-backed from smaps; live heap and allocator mapped from the sanitizer's"
  echo "  counters via gdb, '-' where not read):"
  echo
  fifths "$out/opcheck-rss.csv"
  echo
  echo "- \`npu bench\` x $rounds (one process each): peak resident set per round (KiB):"
  echo "  $(awk -F, 'NR > 1 {printf "%s%s", sep, $4; sep = ", "}' "$out/bench-rounds.csv")"
  echo "  exits: $(awk -F, 'NR > 1 {printf "%s%s", sep, $2; sep = " "}' "$out/bench-rounds.csv")"
} >"$out/summary.md"
cat "$out/summary.md"
[ "$opcheck_status" -eq 0 ] && [ "$bench_failed" -eq 0 ]
