#!/usr/bin/env bash
# The installed toolchain without its source and build trees: `cmake --install` into a temporary
# prefix, then, in a private mount namespace where both trees are hidden under empty tmpfs mounts
# and from another working folder, the installed `npu run` on the bundled model, a moved copy of
# the prefix, the NPU_DATA_DIR override, a CMake consumer (find_package(npu CONFIG)) and a
# pkg-config consumer, each checked against the installed CLI's own figures, the installed Python
# module and the bash completion.
set -euo pipefail
build="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
cp -r "$src/tests/install/consumer" "$tmp/consumer"
for f in bin/npu share/npu/configs/npu-s.yaml share/npu/examples/digits/model.onnx \
         share/npu/subnet_bench/suites/default.yaml lib/cmake/npu/npuConfig.cmake \
         lib/pkgconfig/npu.pc include/npu/runtime/main_job.h lib/libnpu_runtime.a \
         share/bash-completion/completions/npu; do
  [ -e "$tmp/prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
# No path into the source tree's data or the build tree is compiled into the binary (the one
# source path it holds is Verilator's: the generated RTL model names rtl/sv/npu_top.sv in its
# convergence-failure messages, a file it never opens).
for tree in "$src/configs" "$src/examples" "$src/subnet_bench" "$build"; do
  if grep -qaF "$(realpath "$tree")" "$tmp/prefix/bin/npu"; then
    echo "bin/npu contains the path $tree"; exit 1
  fi
done

# Hide the trees: unshare as root, or as an unprivileged user through a user namespace.
hide=(unshare --mount --propagation private)
if [ "$(id -u)" -ne 0 ]; then hide=(unshare --user --map-root-user --mount --propagation private); fi
if ! "${hide[@]}" true 2>/dev/null; then
  echo "SKIP: no mount namespace (unshare) to hide the source tree in"; exit 77
fi
cat > "$tmp/hidden.sh" <<'SH'
set -euo pipefail
tmp="$1"; src="$2"; build="$3"
mount -t tmpfs none "$src"
[ -d "$build/tests" ] && mount -t tmpfs none "$build"
[ -z "$(ls -A "$src")" ] && [ ! -e "$build/npu" ] || { echo "the trees are still visible"; exit 1; }
cd "$tmp"
unset NPU_DATA_DIR NPU_CONFIG_DIR NPU_EXAMPLES_DIR NPU_SUBNET_BENCH_DIR
npu="$tmp/prefix/bin/npu"

# The installed CLI on its bundled model, presets and suite, found from its own location.
"$npu" run --count 8 --mode functional --out "$tmp/run" > run.txt 2>&1 || { cat run.txt; exit 1; }
grep -q "^PASS: final DDR bit-exact against golden on 8/8 inputs$" run.txt
"$npu" bench --filter '^gap_fc_head$' --mode functional --out bench > bench.txt 2>&1 ||
  { cat bench.txt; exit 1; }
grep -q '"gap_fc_head"' bench/bench.json

# A copy of the prefix elsewhere works the same (nothing of the prefix is compiled in).
cp -a "$tmp/prefix" "$tmp/moved"
"$tmp/moved/bin/npu" compile --hw npu-l -o moved.npub > /dev/null
# NPU_DATA_DIR overrides the lookup: a folder without presets is an error naming it.
mkdir empty
if NPU_DATA_DIR="$tmp/empty" "$npu" compile -o x.npub 2> err.txt; then exit 1; fi
grep -q "not found in the data folder $tmp/empty" err.txt || { cat err.txt; exit 1; }

# A CMake project using the installed package; its figures are the installed CLI's.
cmake -S consumer -B consumer-build -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release \
  > consumer-configure.log 2>&1 || { cat consumer-configure.log; exit 1; }
cmake --build consumer-build -j 2 > consumer-build.log 2>&1 || { cat consumer-build.log; exit 1; }
consumer-build/npu_consumer > consumer.txt
read -r inputs exact cycles top1 < consumer.txt
[ "$inputs" = 8 ] && [ "$exact" = 8 ]
/usr/bin/python3 - "$tmp/run/report.json" "$cycles" "$top1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["performance"]["total_cycles"] == int(sys.argv[2]), (r["performance"], sys.argv[2])
assert abs(r["accuracy"]["int8_top1"] - float(sys.argv[3])) < 0.01, (r["accuracy"], sys.argv[3])
PY

# A pkg-config build of a simulator consumer; its cycle count is `npu sim`'s.
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
datadir=$(pkg-config --variable=datadir npu)
g++ -std=c++20 -O1 consumer/sim_main.cpp -o sim_consumer $(pkg-config --cflags --libs npu) \
  > pkgconfig-build.log 2>&1 || { cat pkgconfig-build.log; exit 1; }
NPU_DATA_DIR="$datadir" ./sim_consumer "$datadir/examples/asm/smoke.s" > sim_consumer.txt
"$npu" asm "$datadir/examples/asm/smoke.s" -o smoke.npub
"$npu" sim smoke.npub --stats smoke.json > /dev/null
/usr/bin/python3 -c "import json,sys; assert json.load(open('smoke.json'))['total_cycles'] == int(open('sim_consumer.txt').read()), 'cycles differ'"

# The installed Python module finds the data folder above its own location and compiles and
# runs the bundled model bit-exactly with the cycles `npu run` reported for its first input.
if [ -d "$tmp/prefix/lib/python3/dist-packages/npu" ]; then
  PYTHONPATH="$tmp/prefix/lib/python3/dist-packages" /usr/bin/python3 - "$tmp/run/report.json" <<'PY'
import json, sys
import numpy as np
import npu
assert npu.data_dir().endswith("prefix/share/npu"), npu.data_dir()
model = npu.compile(npu.bundled_model())
x = np.load(npu.data_dir() + "/examples/digits/test_inputs.npy")[:1].reshape(model.inputs[0][1])
result = model.run(x)
assert result.bit_exact
assert result.cycles == json.load(open(sys.argv[1]))["performance"]["total_cycles"]
PY
fi

# The bash completion offers the subcommands and a subcommand's options.
cat > completion.sh <<'BASH'
source "$1/share/bash-completion/completions/npu"
COMP_WORDS=("$1/bin/npu" r); COMP_CWORD=1; _npu_complete
[[ " ${COMPREPLY[*]} " == *" run "* ]] || { echo "completion: ${COMPREPLY[*]}"; exit 1; }
COMP_WORDS=("$1/bin/npu" run --cou); COMP_CWORD=2; _npu_complete
[[ " ${COMPREPLY[*]} " == *" --count "* ]] || { echo "completion: ${COMPREPLY[*]}"; exit 1; }
COMP_WORDS=("$1/bin/npu" bench --j); COMP_CWORD=2; _npu_complete
[[ " ${COMPREPLY[*]} " == *" --jobs "* && " ${COMPREPLY[*]} " == *" --json "* ]] ||
  { echo "completion: ${COMPREPLY[*]}"; exit 1; }
BASH
bash completion.sh "$tmp/prefix"
SH
"${hide[@]}" bash "$tmp/hidden.sh" "$tmp" "$(realpath "$src")" "$(realpath "$build")"
