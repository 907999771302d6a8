# Thin wrapper: the README's two commands, each complete on a fresh Debian 12 machine.
PRESET ?= release
BUILD_DIR := build
JOBS ?= $(shell nproc)

.PHONY: all deps configure build run test asan clean format

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake --preset $(PRESET) >/dev/null

build: configure
	@cmake --build --preset $(PRESET) -j $(JOBS)

run: build
	./scripts/run-default.sh

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

asan: deps
	cmake --preset asan-ubsan >/dev/null
	cmake --build --preset asan-ubsan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -j $(JOBS)

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

clean:
	rm -rf build build-debug build-asan
