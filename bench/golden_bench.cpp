// Golden reference speed against oneDNN used directly, same run, one thread: the int8 conv
// (golden: prepared Conv2dInt8Layer, its oneDNN sums plus the golden's compensation, requant, clip;
// oneDNN: u8 x s8 -> s8 with per-channel output scales, what a framework runs) and the fp32
// reference conv (golden: Conv2dLayer from and to NCHW; oneDNN: in its preferred layouts), on the
// 56x56x64 -> 64 3x3 layer and ResNet-18's convolutions; the plain loops for scale. MAC/s counters;
// docs/performance.md has the figures and the command.
#include <benchmark/benchmark.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <random>
#include <string>

#include "npu/golden/fp32_conv.h"
#include "npu/golden/int8_conv.h"
#include "npu/golden/plain_kernels.h"

namespace {

namespace golden = npu::golden;
using dnnl::memory;

/// One convolution of the benchmark: square image, square kernel, symmetric padding.
struct ConvCase {
  std::string name;
  std::int64_t size, inC, outC, kernel, stride, pad, groups;

  std::int64_t outSize() const { return (size + 2 * pad - kernel) / stride + 1; }
  double macs() const {
    return static_cast<double>(outSize() * outSize() * outC * kernel * kernel * (inC / groups));
  }
};

const std::vector<ConvCase> kCases{
    {"dense56x56x64to64_3x3", 56, 64, 64, 3, 1, 1, 1},
    {"resnet18_conv1_224x224x3to64_7x7s2", 224, 3, 64, 7, 2, 3, 1},
    {"resnet18_layer2_56x56x64to128_3x3s2", 56, 64, 128, 3, 2, 1, 1},
    {"resnet18_layer2_28x28x128to128_3x3", 28, 128, 128, 3, 1, 1, 1},
    {"resnet18_layer2_down_56x56x64to128_1x1s2", 56, 64, 128, 1, 2, 0, 1},
    {"resnet18_layer3_14x14x256to256_3x3", 14, 256, 256, 3, 1, 1, 1},
    {"resnet18_layer4_7x7x512to512_3x3", 7, 512, 512, 3, 1, 1, 1},
    {"depthwise112x112x32_3x3", 112, 32, 32, 3, 1, 1, 32},
};

memory::dims dims(std::initializer_list<std::int64_t> values) {
  return memory::dims(values.begin(), values.end());
}

golden::Int8Tensor randomInt8(std::vector<std::int64_t> shape, std::mt19937& rng, int lo, int hi) {
  golden::Int8Tensor t = golden::makeInt8Tensor(std::move(shape));
  std::uniform_int_distribution<int> dist(lo, hi);
  for (auto& v : t.data) {
    v = static_cast<std::int8_t>(dist(rng));
  }
  return t;
}

golden::FloatTensor randomFloat(std::vector<std::int64_t> shape, std::mt19937& rng) {
  golden::FloatTensor t = golden::makeFloatTensor(std::move(shape));
  std::normal_distribution<float> dist(0.0F, 1.0F);
  for (float& v : t.data) {
    v = dist(rng);
  }
  return t;
}

struct Int8Layer {
  golden::Int8Tensor x, w;
  golden::Conv2dInt8Params params;
};

Int8Layer int8Layer(const ConvCase& c) {
  std::mt19937 rng(7);
  Int8Layer l;
  l.x = randomInt8({1, c.size, c.size, c.inC}, rng, -128, 127);
  l.w = randomInt8({c.outC, c.kernel, c.kernel, c.inC / c.groups}, rng, -127, 127);
  l.params.pads = {c.pad, c.pad, c.pad, c.pad};
  l.params.strides = {c.stride, c.stride};
  l.params.groups = c.groups;
  l.params.inputZeroPoint = -3;
  l.params.output.zeroPoint = 5;
  l.params.bias.assign(static_cast<std::size_t>(c.outC), 1000);
  l.params.multipliers = {golden::quantizeMultiplier(1.0 / 4096.0)};
  return l;
}

void setMacRate(benchmark::State& state, const ConvCase& c) {
  state.counters["MAC/s"] =
      benchmark::Counter(c.macs(), benchmark::Counter::kIsIterationInvariantRate);
}

void goldenInt8(benchmark::State& state, const ConvCase& c) {
  const Int8Layer l = int8Layer(c);
  const golden::Conv2dInt8Layer layer(l.x.shape, l.w, l.params);
  for (auto _ : state) {
    benchmark::DoNotOptimize(layer.run(l.x));
  }
  setMacRate(state, c);
}

void plainInt8(benchmark::State& state, const ConvCase& c) {
  const Int8Layer l = int8Layer(c);
  for (auto _ : state) {
    benchmark::DoNotOptimize(golden::plain::conv2dInt8(l.x, l.w, l.params));
  }
  setMacRate(state, c);
}

/// A oneDNN convolution run the way a framework runs it, with its memories.
struct DirectConv {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_forward conv;
  std::unordered_map<int, memory> args;

  void run() {
    conv.execute(stream, args);
    stream.wait();
  }
};

/// oneDNN's weights for `c` (OIHW or GOIHW data type `type`) in the layout `pd` chose.
memory reorderedWeights(DirectConv& d, const ConvCase& c, memory::data_type type, void* data,
                        const memory::desc& wanted) {
  const bool grouped = c.groups > 1;
  const memory::desc plain(
      grouped ? dims({c.groups, c.outC / c.groups, c.inC / c.groups, c.kernel, c.kernel})
              : dims({c.outC, c.inC, c.kernel, c.kernel}),
      type, grouped ? memory::format_tag::goihw : memory::format_tag::oihw);
  memory user(plain, d.engine, data);
  memory result(wanted, d.engine);
  dnnl::reorder(user, result).execute(d.stream, user, result);
  d.stream.wait();
  return result;
}

dnnl::convolution_forward::desc convDesc(const ConvCase& c, const memory::desc& src,
                                         const memory::desc& weights, const memory::desc& dst) {
  return dnnl::convolution_forward::desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src, weights, dst,
      dims({c.stride, c.stride}), dims({0, 0}), dims({c.pad, c.pad}), dims({c.pad, c.pad}));
}

memory::dims weightDims(const ConvCase& c) {
  return c.groups > 1 ? dims({c.groups, c.outC / c.groups, c.inC / c.groups, c.kernel, c.kernel})
                      : dims({c.outC, c.inC, c.kernel, c.kernel});
}

void onednnInt8(benchmark::State& state, const ConvCase& c) {
  using dt = memory::data_type;
  using tag = memory::format_tag;
  Int8Layer l = int8Layer(c);
  DirectConv d;
  const memory::desc src(dims({1, c.inC, c.size, c.size}), dt::u8, tag::nhwc);
  const memory::desc dst(dims({1, c.outC, c.outSize(), c.outSize()}), dt::s8, tag::nhwc);
  dnnl::primitive_attr attr;
  attr.set_output_scales(2, std::vector<float>(static_cast<std::size_t>(c.outC), 1.0F / 4096));
  const dnnl::convolution_forward::primitive_desc pd(
      convDesc(c, src, memory::desc(weightDims(c), dt::s8, tag::any), dst), attr, d.engine);
  d.conv = dnnl::convolution_forward(pd);
  // The OHWI int8 weights, reordered as OIHW data (the values do not matter for the speed).
  d.args = {{DNNL_ARG_SRC, memory(src, d.engine, l.x.data.data())},
            {DNNL_ARG_WEIGHTS, reorderedWeights(d, c, dt::s8, l.w.data.data(), pd.weights_desc())},
            {DNNL_ARG_DST, memory(dst, d.engine)}};
  for (auto _ : state) {
    d.run();
  }
  setMacRate(state, c);
}

struct Fp32Layer {
  golden::FloatTensor x, w;
  std::vector<float> bias;
  golden::Conv2dParams params;
};

Fp32Layer fp32Layer(const ConvCase& c) {
  std::mt19937 rng(5);
  Fp32Layer l;
  l.x = randomFloat({1, c.inC, c.size, c.size}, rng);
  l.w = randomFloat({c.outC, c.inC / c.groups, c.kernel, c.kernel}, rng);
  l.bias.assign(static_cast<std::size_t>(c.outC), 0.5F);
  l.params.pads = {c.pad, c.pad, c.pad, c.pad};
  l.params.strides = {c.stride, c.stride};
  l.params.group = c.groups;
  return l;
}

void goldenFp32(benchmark::State& state, const ConvCase& c) {
  const Fp32Layer l = fp32Layer(c);
  const golden::Conv2dLayer layer(l.x.shape, l.w, l.bias, l.params);
  for (auto _ : state) {
    benchmark::DoNotOptimize(layer.run(l.x));
  }
  setMacRate(state, c);
}

void plainFp32(benchmark::State& state, const ConvCase& c) {
  const Fp32Layer l = fp32Layer(c);
  for (auto _ : state) {
    benchmark::DoNotOptimize(golden::plain::conv2d(l.x, l.w, l.bias, l.params));
  }
  setMacRate(state, c);
}

void onednnFp32(benchmark::State& state, const ConvCase& c) {
  using dt = memory::data_type;
  using tag = memory::format_tag;
  Fp32Layer l = fp32Layer(c);
  DirectConv d;
  const memory::desc bias(dims({c.outC}), dt::f32, tag::a);
  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      memory::desc(dims({1, c.inC, c.size, c.size}), dt::f32, tag::any),
      memory::desc(weightDims(c), dt::f32, tag::any), bias,
      memory::desc(dims({1, c.outC, c.outSize(), c.outSize()}), dt::f32, tag::any),
      dims({c.stride, c.stride}), dims({0, 0}), dims({c.pad, c.pad}), dims({c.pad, c.pad}));
  const dnnl::convolution_forward::primitive_desc pd(desc, d.engine);
  d.conv = dnnl::convolution_forward(pd);
  // The input already in the layout oneDNN chose (its values do not matter for the speed).
  d.args = {{DNNL_ARG_SRC, memory(pd.src_desc(), d.engine)},
            {DNNL_ARG_WEIGHTS, reorderedWeights(d, c, dt::f32, l.w.data.data(), pd.weights_desc())},
            {DNNL_ARG_BIAS, memory(bias, d.engine, l.bias.data())},
            {DNNL_ARG_DST, memory(pd.dst_desc(), d.engine)}};
  for (auto _ : state) {
    d.run();
  }
  setMacRate(state, c);
}

}  // namespace

int main(int argc, char** argv) {
  omp_set_num_threads(1);  // oneDNN direct on one thread, as the golden runs
  for (const ConvCase& c : kCases) {
    const std::pair<const char*, void (*)(benchmark::State&, const ConvCase&)> runs[] = {
        {"goldenInt8", goldenInt8}, {"onednnInt8", onednnInt8}, {"plainInt8", plainInt8},
        {"goldenFp32", goldenFp32}, {"onednnFp32", onednnFp32}, {"plainFp32", plainFp32}};
    for (const auto& [kind, fn] : runs) {
      benchmark::RegisterBenchmark((std::string(kind) + "/" + c.name).c_str(), fn, c)
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
