// Golden int8 reference speed: the dense and depthwise conv layers of docs/performance.md, in
// MAC/s.
#include <benchmark/benchmark.h>

#include <random>

#include "npu/golden/int8_conv.h"

namespace {

using npu::golden::Conv2dInt8Params;
using npu::golden::Int8Tensor;

Int8Tensor randomTensor(std::vector<std::int64_t> shape, std::mt19937& rng, int lo, int hi) {
  Int8Tensor t = npu::golden::makeInt8Tensor(std::move(shape));
  std::uniform_int_distribution<int> dist(lo, hi);
  for (auto& v : t.data) {
    v = static_cast<std::int8_t>(dist(rng));
  }
  return t;
}

/// A same-padded 3x3 stride-1 conv on one H x W x C image; depthwise when `depthwise`.
void runConv(benchmark::State& state, std::int64_t size, std::int64_t inC, std::int64_t outC,
             bool depthwise) {
  std::mt19937 rng(7);
  const Int8Tensor x = randomTensor({1, size, size, inC}, rng, -128, 127);
  const Int8Tensor w = randomTensor({outC, 3, 3, depthwise ? 1 : inC}, rng, -127, 127);
  Conv2dInt8Params p;
  p.pads = {1, 1, 1, 1};
  p.groups = depthwise ? inC : 1;
  p.inputZeroPoint = -3;
  p.output.zeroPoint = 5;
  p.bias.assign(static_cast<std::size_t>(outC), 1000);
  p.multipliers = {npu::golden::quantizeMultiplier(1.0 / 4096.0)};
  for (auto _ : state) {
    benchmark::DoNotOptimize(npu::golden::conv2dInt8(x, w, p));
  }
  const double macs = double(size * size * outC * 9 * (depthwise ? 1 : inC));
  state.counters["MAC/s"] = benchmark::Counter(macs, benchmark::Counter::kIsIterationInvariantRate);
}

void denseConv56x56x64To64(benchmark::State& state) {
  runConv(state, 56, 64, 64, false);
}
void depthwiseConv112x112x32(benchmark::State& state) {
  runConv(state, 112, 32, 32, true);
}

BENCHMARK(denseConv56x56x64To64)->Unit(benchmark::kMillisecond);
BENCHMARK(depthwiseConv112x112x32)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
