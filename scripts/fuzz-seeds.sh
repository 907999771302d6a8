#!/bin/sh
# The seed corpus of a fuzz target (fuzz/CMakeLists.txt lists the same for the replay tests):
# prints the directories and files to give libFuzzer after its working corpus.
# With --dict, prints the libFuzzer -dict= option of the target's dictionary (fuzz/dictionaries/),
# or nothing when it has none.
# usage: scripts/fuzz-seeds.sh [--dict] TARGET
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "$1" = "--dict" ]; then
  case "$2" in
    hw_config|quant_config|graph_yaml|bench_suite|baselines|repro|bundle_manifest) dict=yaml ;;
    asm) dict=asm ;;
    onnx) dict=onnx ;;
    *) exit 0 ;;
  esac
  echo "-dict=$root/fuzz/dictionaries/$dict.dict"
  exit 0
fi
case "$1" in
  asm) echo "$root/examples/asm $root/tests/data/sim $root/tests/data/rtl" ;;
  npub|npub_sealed)
    mkdir -p "$root/build-fuzz/fuzz-seeds/npub"
    "$root/build-fuzz/npu" asm "$root/tests/data/sim/conv_split.s" \
      -o "$root/build-fuzz/fuzz-seeds/npub/conv_split.npub" >/dev/null
    "$root/build-fuzz/npu" compile -o "$root/build-fuzz/fuzz-seeds/npub/digits.npub" >/dev/null
    echo "$root/build-fuzz/fuzz-seeds/npub" ;;
  npy) echo "$root/examples/digits/calib $root/tests/compiler/models" ;;
  npz) echo "$root/tests/data/npz" ;;
  onnx) echo "$root/tests/compiler/models $root/examples/digits" ;;  # libFuzzer takes folders only
  hw_config) echo "$root/configs $root/tests/data/hw" ;;
  quant_config) echo "$root/subnet_bench/quant" ;;
  graph_yaml) echo "$root/fuzz/seeds/graph_yaml" ;;
  bench_suite) echo "$root/subnet_bench/suites" ;;
  baselines) echo "$root/subnet_bench/baselines" ;;
  repro) echo "$root/tests/data/opcheck/regressions" ;;
  bundle_manifest)  # the target reads each input beside this bundle's files (NPU_FUZZ_BUNDLE)
    cmake -DNPU="$root/build-fuzz/npu" -DOUT="$root/build-fuzz/fuzz-seeds" \
      -P "$root/fuzz/export_bundle_seed.cmake" >/dev/null
    echo "$root/build-fuzz/fuzz-seeds/bundle_manifest" ;;
  *) echo "fuzz-seeds.sh: unknown target '$1' (see FUZZ_TARGETS in the Makefile)" >&2; exit 2 ;;
esac
