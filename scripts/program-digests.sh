#!/usr/bin/env bash
# Fingerprints of everything the compiler and the cycle model produce, for a refactor that must
# change nothing (docs/architecture.md, "Refactors that change nothing"): per program, the
# SHA-256 of the .npub and the timed cycle count; per bench suite, every subnet's cycles and
# bit-exactness; for the digits run, the report's totals and per-layer cycles.
#
# usage: scripts/program-digests.sh [BUILD_DIR] [WORK_DIR] > digests.txt
#   BUILD_DIR  default build; WORK_DIR default BUILD_DIR/digests (model exports are kept there,
#   so a second run compares against the same ONNX files).
# Compare two runs with diff: any line that differs is a change.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
work="${2:-$build/digests}"
npu="$build/npu"
mkdir -p "$work/models"
rm -rf "$work/programs" && mkdir -p "$work/programs"
zoo=(mobilenet_v3_small efficientnet_b0 shufflenet_v2_x0_5 mnasnet0_5 densenet121 googlenet
     convnext_tiny regnet_y_400mf vit_tiny yolo_tiny yolo_focus)

# Exports once (kept across runs; the exporter skips files already there).
/usr/bin/python3 scripts/export_torchvision.py --out "$work/models" "${zoo[@]}" >&2

digest() {  # digest NAME: hash and timed cycles of its program (or of each NPU segment's)
  local program cycles
  for program in "$work/programs/$1".npub "$work/programs/$1".segment*.npub; do
    [ -e "$program" ] || continue
    "$npu" sim "$program" --stats "$work/programs/stats.json" -q >/dev/null
    cycles=$(jq -r '.total_cycles' "$work/programs/stats.json")
    echo "$(basename "$program" .npub) $(sha256sum < "$program" | cut -c1-16) cycles=$cycles"
  done
}

"$npu" compile -q -o "$work/programs/digits.npub"
digest digits
for model in "${zoo[@]}"; do
  "$npu" compile -q "$work/models/$model.onnx" --calib "$work/models/$model.input.npy" \
    -o "$work/programs/$model.npub"
  digest "$model"
done
for graph in subnet_bench/graphs/*.yaml; do
  name=$(basename "$graph" .yaml)
  # A graph beyond npu-s (the hires suite's) is compiled for npu-l.
  if ! "$npu" compile -q "$graph" -o "$work/programs/$name.npub" 2>/dev/null &&
    ! "$npu" compile -q "$graph" --hw npu-l -o "$work/programs/$name.npub" 2>/dev/null; then
    echo "$name compile-error"  # beyond both presets (conv_1024x2048, in no suite)
    continue
  fi
  digest "$name"
done
# Reports: everything but wall times and provenance, one fingerprint per subnet and for the run.
strip='walk(if type == "object" then del(.seconds, .wall_seconds, .provenance) else . end)'
for suite in default full; do  # hires: too slow here (docs/bench.md)
  "$npu" bench -q --suite "subnet_bench/suites/$suite.yaml" --jobs "$(nproc)" \
    --out "$work/bench-$suite" >/dev/null || true  # a regression shows as a changed line below
  jq -c ".subnets[] | $strip" "$work/bench-$suite/bench.json" | while read -r line; do
    name=$(jq -r '.name' <<<"$line")
    echo "bench/$suite/$name $(sha256sum <<<"$line" | cut -c1-16) $(jq -r '"cycles=\(.cycles) bit_exact=\(.bit_exact)"' <<<"$line")"
  done
done
"$npu" run -q --count 20 --out "$work/digits-run" >/dev/null
echo "digits-run $(jq -c "$strip | del(.data)" "$work/digits-run/report.json" | sha256sum | cut -c1-16)"
