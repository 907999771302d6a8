#!/usr/bin/env bash
# The main job on the bundled default: `npu run` on the digits model (examples/digits): import,
# partition, calibrate, quantize, compile, run all 450 test inputs on the cycle-accurate model,
# verify every final DDR against golden, report accuracy and per-layer cost (build/run/report.*).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"
"./$build_dir/npu" run --out "$build_dir/run" "$@"
