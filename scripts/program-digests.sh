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
mkdir -p "$work/models" "$work/programs"
zoo=(mobilenet_v3_small efficientnet_b0 shufflenet_v2_x0_5 mnasnet0_5 densenet121 googlenet
     convnext_tiny regnet_y_400mf vit_tiny yolo_tiny yolo_focus)

# Exports once (kept across runs; the exporter skips files already there).
/usr/bin/python3 scripts/export_torchvision.py --out "$work/models" "${zoo[@]}" >&2

digest() {  # digest NAME PROGRAM: hash and timed cycles of one program
  local cycles
  "$npu" sim "$2" --stats "$work/programs/$1.stats.json" -q >/dev/null
  cycles=$(jq -r '.cycles' "$work/programs/$1.stats.json")
  echo "$1 $(sha256sum < "$2" | cut -c1-16) cycles=$cycles"
}

"$npu" compile -q -o "$work/programs/digits.npub"
digest digits "$work/programs/digits.npub"
for model in "${zoo[@]}"; do
  "$npu" compile -q "$work/models/$model.onnx" --calib "$work/models/$model.input.npy" \
    -o "$work/programs/$model.npub"
  digest "$model" "$work/programs/$model.npub"
done
for graph in subnet_bench/graphs/*.yaml; do
  name=$(basename "$graph" .yaml)
  "$npu" compile -q "$graph" -o "$work/programs/$name.npub"
  digest "$name" "$work/programs/$name.npub"
done
for suite in default full; do
  "$npu" bench -q --suite "subnet_bench/suites/$suite.yaml" --jobs "$(nproc)" \
    --out "$work/bench-$suite" >/dev/null || true  # a regression is a line below, not an exit
  jq -r '.subnets[] | "bench/'"$suite"'/\(.name) cycles=\(.cycles) bitexact=\(.bit_exact) status=\(.status)"' \
    "$work/bench-$suite/report.json"
done
"$npu" run -q --count 20 --out "$work/digits-run" >/dev/null
jq -r '"digits-run cycles=\(.cycles // .summary.cycles) layers=\([.layers[]? | .cycles] | add)"' \
  "$work/digits-run/report.json"
