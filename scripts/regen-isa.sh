#!/usr/bin/env bash
# Regenerates the artefacts derived from isa/include/npu/isa/instructions.def and npu_config.def.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target isa-gen >/dev/null
./build/isa-gen sv-isa rtl/generated/npu_isa_pkg.sv
./build/isa-gen doc docs/isa.md
./build/isa-gen doc-config docs/hardware-config.md
echo "regenerated rtl/generated/npu_isa_pkg.sv, the field tables of docs/isa.md and the key table of docs/hardware-config.md"
