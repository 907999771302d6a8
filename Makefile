# Thin wrapper: the README's two commands, each complete on a fresh Debian 12 machine.
PRESET ?= release
# The binary directory of each preset (CMakePresets.json).
BUILD_DIR := $(if $(filter debug,$(PRESET)),build-debug,$(if $(filter asan-ubsan,$(PRESET)),build-asan,build))
JOBS ?= $(shell nproc)

.PHONY: all deps configure build run test test-farm bench asan fuzz fuzz-smoke clean format tidy

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake --preset $(PRESET) >/dev/null

build: configure
	@cmake --build --preset $(PRESET) -j $(JOBS)

# Only the npu binary and the libraries it links (not the tests, the Python module or the bench
# tools): the default run needs nothing else (README, "First build").
run: configure
	@cmake --build --preset $(PRESET) -j $(JOBS) --target npu
	BUILD_DIR=$(BUILD_DIR) ./scripts/run-default.sh

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -LE farm

# The farm recipes (scripts/farm/) on a one-node Slurm cluster started by the test itself, as
# root (docs/bench.md, "Farms"): installs munge and slurm-wlm, then runs the tests labelled farm.
test-farm: build
	@./scripts/install-deps.sh --farm
	cd $(BUILD_DIR) && ctest --verbose -L farm

# The subnetwork benchmark: the default suite, then the full networks (ResNet-18, MobileNetV2),
# each against subnet_bench/baselines/npu-s.yaml (docs/bench.md).
bench: build
	$(BUILD_DIR)/npu bench --jobs $(JOBS) --out $(BUILD_DIR)/bench-report/default
	$(BUILD_DIR)/npu bench --suite subnet_bench/suites/full.yaml --jobs $(JOBS) --out $(BUILD_DIR)/bench-report/full

# Fuzzing (docs/reliability.md): the libFuzzer targets (clang, ASan/UBSan), and a bounded run of
# each over its seeds; `make test` replays the seeds and tests/fuzz/regressions/ in any build.
FUZZ_TARGETS := asm npub npub_sealed npy npz onnx hw_config quant_config graph_yaml bench_suite baselines repro \
  bundle_manifest
FUZZ_SECONDS ?= 60
fuzz: deps
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS)) npu

fuzz-smoke: fuzz
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p build-fuzz/corpus/$$t && \
	  echo "fuzz_$$t: $(FUZZ_SECONDS) s" && \
	  build-fuzz/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -timeout=1 \
	    $$(scripts/fuzz-seeds.sh --dict $$t) \
	    -artifact_prefix=build-fuzz/corpus/$$t- build-fuzz/corpus/$$t tests/fuzz/regressions/$$t \
	    $$(scripts/fuzz-seeds.sh $$t) || exit 1; \
	done

asan: deps
	cmake --preset asan-ubsan >/dev/null
	cmake --build --preset asan-ubsan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -j $(JOBS) -LE farm

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

# clang-tidy (.clang-tidy): on the lines changed since BASE (default: the newest commit), as the
# test style.clang_tidy does; `cmake --preset tidy` builds everything through clang-tidy instead.
BASE ?= HEAD~1
tidy: build
	tests/style/check_tidy.sh . $(BUILD_DIR) $(BASE)

clean:
	rm -rf build build-debug build-asan
