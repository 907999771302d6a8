#!/usr/bin/env bash
# Regenerates the artefacts derived from isa/include/npu/isa/instructions.def.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target isa-gen >/dev/null
./build/isa-gen sv-isa rtl/generated/npu_isa_pkg.sv
./build/isa-gen doc docs/isa.md
echo "regenerated rtl/generated/npu_isa_pkg.sv and the field tables of docs/isa.md"
