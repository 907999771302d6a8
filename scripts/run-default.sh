#!/usr/bin/env bash
# The main job on the bundled default. Until the end-to-end model flow lands, it assembles the
# bundled example program, prints it back from the binary file and runs it on the simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/run
./build/npu asm examples/asm/smoke.s -o build/run/smoke.npub
echo "assembled examples/asm/smoke.s -> build/run/smoke.npub ($(stat -c %s build/run/smoke.npub) bytes)"
./build/npu disasm build/run/smoke.npub
echo
echo "simulating it (cycle-accurate SystemC model, then the functional engine):"
./build/npu sim build/run/smoke.npub --stats build/run/stats.json --trace build/run/trace.json \
  --ddr-out build/run/final.bin
./build/npu sim build/run/smoke.npub --mode functional
echo "stats: build/run/stats.json, Perfetto trace: build/run/trace.json"
