#!/usr/bin/env bash
# The main job on the bundled default. Until the end-to-end flow lands, it assembles the bundled
# example program and prints it back from the binary program file.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/run
./build/npu asm examples/asm/smoke.s -o build/run/smoke.npub
echo "assembled examples/asm/smoke.s -> build/run/smoke.npub ($(stat -c %s build/run/smoke.npub) bytes)"
./build/npu disasm build/run/smoke.npub
