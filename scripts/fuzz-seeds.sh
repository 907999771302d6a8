#!/bin/sh
# The seed corpus of a fuzz target (fuzz/CMakeLists.txt lists the same for the replay tests):
# prints the directories and files to give libFuzzer after its working corpus.
# usage: scripts/fuzz-seeds.sh asm|npub|npy|onnx
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
case "$1" in
  asm) echo "$root/examples/asm $root/tests/data/sim $root/tests/data/rtl" ;;
  npub)
    mkdir -p "$root/build-fuzz/fuzz-seeds/npub"
    "$root/build-fuzz/npu" asm "$root/tests/data/sim/conv_split.s" \
      -o "$root/build-fuzz/fuzz-seeds/npub/conv_split.npub" >/dev/null
    echo "$root/build-fuzz/fuzz-seeds/npub" ;;
  npy) echo "$root/examples/digits/calib $root/tests/compiler/models" ;;
  onnx) echo "$root/tests/compiler/models $root/examples/digits/model.onnx" ;;
  *) echo "fuzz-seeds.sh: unknown target '$1' (asm, npub, npy, onnx)" >&2; exit 2 ;;
esac
