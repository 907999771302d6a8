// The dispatcher: which nodes each strategy puts on the NPU, segment borders, the report.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <functional>
#include <numeric>

#include "npu/compiler/driver/compile.h"
#include "npu/compiler/partition/partition.h"
#include "npu/compiler/partition/partition_report.h"
#include "npu/compiler/quant/quantize_model.h"
#include "npu/compiler/target/npu_support.h"
#include "npu/isa/instruction.h"
#include "npu/isa/npu_config.h"
#include "test_models.h"

namespace npu::compiler {
namespace {

using testing::attrs;
using testing::errorOf;
using testing::GraphBuilder;
using testing::makeSmallNet;

/// "npu:5 host:1 npu:3" for the segments of a partition.
std::string segmentSummary(const Partition& p) {
  std::string out;
  for (const Segment& s : p.segments) {
    out += fmt::format("{}{}:{}", out.empty() ? "" : " ", deviceName(s.device), s.nodes.size());
  }
  return out;
}

std::size_t nodeIndex(const Graph& g, const std::string& name) {
  for (std::size_t n = 0; n < g.nodes().size(); ++n) {
    if (g.nodes()[n].name == name) {
      return n;
    }
  }
  throw Error("no node " + name);
}

TEST(Partition, TokenLayoutConstantsRunOnTheNpu) {
  // [1, C, 4, 4] read as 16 tokens [1, C, 16, 1], a class-token row concatenated along H, a
  // whole-shape position embedding added; what stays on the host says why.
  GraphBuilder b("tokens");
  ValueId x = b.input("x", {1, 8, 4, 4});
  ValueId tokens = b.node(OpKind::Reshape, "tokens", {x, b.ints("tokens.shape", {1, 8, 16, 1})});
  ValueId cls = b.constant("cls", {1, 8, 1, 1}, std::vector<float>(8, 0.25F));
  ValueId cat =
      b.node(OpKind::Concat, "with_cls", {cls, tokens}, attrs({{"axis", std::int64_t{2}}}));
  ValueId pos = b.constant("pos", {1, 8, 17, 1}, std::vector<float>(8 * 17, -0.5F));
  ValueId add = b.node(OpKind::Add, "embedded", {cat, pos});
  ValueId sub = b.node(OpKind::Sub, "shifted", {add, pos});
  ValueId wide =
      b.node(OpKind::Concat, "by_columns", {sub, sub}, attrs({{"axis", std::int64_t{3}}}));
  Graph g = b.finish({wide});
  Partition p = partitionGraph(g, {DispatchStrategy::Aggressive, {}, {}});
  EXPECT_EQ(p.npuKind[nodeIndex(g, "tokens")], NpuOpKind::Alias);
  EXPECT_EQ(p.npuKind[nodeIndex(g, "with_cls")], NpuOpKind::Concat);
  EXPECT_EQ(p.npuKind[nodeIndex(g, "embedded")], NpuOpKind::Add);
  EXPECT_EQ(p.npuKind[nodeIndex(g, "shifted")], NpuOpKind::Sub);  // a constant of its shape
  EXPECT_EQ(
      p.hostReason[nodeIndex(g, "by_columns")],
      "only concatenation along channels of [1, C, H, W] or [1, C] tensors, or along rows (H) "
      "of [1, C, H, W] tensors, runs on the NPU");
}

TEST(Partition, ConservativeKeepsBytesMovingOpsOnTheHost) {
  Graph g = makeSmallNet();
  Partition p = partitionGraph(g);
  EXPECT_EQ(p.strategy, DispatchStrategy::Conservative);
  // conv1 maxpool dw pw add branch_a branch_b concat | scale | avgpool tanh gap fc/conv
  // fc/to_2d probs
  EXPECT_EQ(segmentSummary(p), "npu:8 host:1 npu:6");
  EXPECT_EQ(p.device[nodeIndex(g, "scale")], Device::Host);
  EXPECT_EQ(p.hostReason[nodeIndex(g, "scale")],
            "the constant is not per channel, scalar or of the activation's whole shape");
  // The FC's [1, 10, 1, 1] -> [1, 10] keeps the NHWC bytes: an alias, so the softmax after it
  // joins the NPU segment too.
  EXPECT_EQ(p.npuKind[nodeIndex(g, "fc/to_2d")], NpuOpKind::Alias);
  EXPECT_EQ(p.npuKind[nodeIndex(g, "probs")], NpuOpKind::Softmax);  // a NORM row of 10 classes
  EXPECT_EQ(p.npuKind[nodeIndex(g, "tanh")], NpuOpKind::Lut);
  EXPECT_EQ(p.npuKind[nodeIndex(g, "fc/conv")], NpuOpKind::Conv);
  // Borders: the concat output leaves the first NPU segment, the scaled value enters the second.
  ASSERT_EQ(p.segments[0].inputs.size(), 1U);
  EXPECT_EQ(g.value(p.segments[0].inputs[0]).name, "x");
  ASSERT_EQ(p.segments[0].outputs.size(), 1U);
  EXPECT_EQ(g.value(p.segments[0].outputs[0]).name, "concat");
  EXPECT_EQ(g.value(p.segments[2].inputs[0]).name, "scale");
  EXPECT_EQ(g.value(p.segments[2].outputs[0]).name, "probs");
}

TEST(Partition, EveryStrategyPullsLayoutNoOpReshapesIn) {
  Graph g = makeSmallNet();
  for (DispatchStrategy strategy :
       {DispatchStrategy::Conservative, DispatchStrategy::Aggressive, DispatchStrategy::AllIn}) {
    Partition p = partitionGraph(g, {strategy, {}, {}});
    EXPECT_EQ(segmentSummary(p), "npu:8 host:1 npu:6") << strategyName(strategy);
    EXPECT_EQ(p.npuKind[nodeIndex(g, "fc/to_2d")], NpuOpKind::Alias) << strategyName(strategy);
  }
}

/// The NHWC byte of every row-major element of an activation of NHWC form: [1, C, H, W] element
/// (n, c, h, w) at ((n * H + h) * W + w) * C + c, [1, C] element (n, c) at n * C + c (the
/// layout of docs/numerics.md section 1, written out independently of npu_support.cpp).
std::vector<std::int64_t> nhwcBytes(const Shape& shape) {
  std::vector<std::int64_t> bytes;
  if (shape.size() == 2) {
    for (std::int64_t k = 0; k < shape[0] * shape[1]; ++k) {
      bytes.push_back(k);
    }
    return bytes;
  }
  const std::int64_t c = shape[1], h = shape[2], w = shape[3];
  for (std::int64_t n = 0; n < shape[0]; ++n) {
    for (std::int64_t ci = 0; ci < c; ++ci) {
      for (std::int64_t y = 0; y < h; ++y) {
        for (std::int64_t x = 0; x < w; ++x) {
          bytes.push_back(((n * h + y) * w + x) * c + ci);
        }
      }
    }
  }
  return bytes;
}

/// Shapes with an NHWC form, [1, C, H, W] and [1, C], of up to 12 elements.
std::vector<Shape> nhwcShapes() {
  std::vector<Shape> shapes;
  const std::array<std::int64_t, 5> dims{1, 2, 3, 4, 6};
  for (std::int64_t c : dims) {
    for (std::int64_t h : dims) {
      for (std::int64_t w : dims) {
        if (c * h * w <= 12) {
          shapes.push_back({1, c, h, w});
        }
      }
    }
    shapes.push_back({1, c});
  }
  return shapes;
}

TEST(NpuSupport, AReshapeIsFreeExactlyWhenEveryElementKeepsItsNhwcByte) {
  // Against every pair of shapes of one size: the rule equals the element-by-element
  // comparison, and both outcomes occur (so neither "always" nor "never" passes).
  int free = 0;
  int moving = 0;
  for (const Shape& from : nhwcShapes()) {
    for (const Shape& to : nhwcShapes()) {
      if (elementCount(from) != elementCount(to)) {
        continue;
      }
      const bool same = nhwcBytes(from) == nhwcBytes(to);
      EXPECT_EQ(isFreeReshape(from, to), same) << formatShape(from) << " -> " << formatShape(to);
      (same ? free : moving) += 1;
    }
  }
  EXPECT_GT(free, 100);
  EXPECT_GT(moving, 100);
  // The cases the rule names: same channels (a token map), one channel or one pixel on both
  // sides (a flatten of [1, C, 1, 1], a one-channel map as a vector), and not a flatten of a map.
  EXPECT_TRUE(isFreeReshape({1, 8, 4, 4}, {1, 8, 16, 1}));
  EXPECT_TRUE(isFreeReshape({1, 10, 1, 1}, {1, 10}));
  EXPECT_TRUE(isFreeReshape({1, 1, 4, 4}, {1, 16}));
  EXPECT_FALSE(isFreeReshape({1, 8, 4, 4}, {1, 128}));
  EXPECT_FALSE(isFreeReshape({1, 8, 4, 4}, {1, 4, 8, 4}));
  // No NHWC form (a token tensor [1, T, D], batch 2): never an alias.
  EXPECT_FALSE(isFreeReshape({1, 16, 8}, {1, 8, 16, 1}));
  EXPECT_FALSE(isFreeReshape({2, 4}, {1, 8}));
}

/// Whether Transpose(perm) of `from` leaves every element at its NHWC byte, element by element.
bool transposeKeepsBytes(const Shape& from, const std::vector<std::int64_t>& perm) {
  Shape to(from.size());
  for (std::size_t j = 0; j < perm.size(); ++j) {
    to[j] = from[static_cast<std::size_t>(perm[j])];
  }
  if (!nhwcShapeOf(to)) {
    return false;
  }
  const std::vector<std::int64_t> in = nhwcBytes(from);
  const std::vector<std::int64_t> out = nhwcBytes(to);
  std::vector<std::int64_t> inStride(from.size(), 1);
  for (std::size_t a = from.size() - 1; a > 0; --a) {
    inStride[a - 1] = inStride[a] * from[a];
  }
  // Output element k at index o is input element i with o[j] = i[perm[j]].
  for (std::int64_t k = 0; k < elementCount(to); ++k) {
    std::int64_t rest = k;
    std::int64_t i = 0;
    for (std::size_t j = to.size(); j-- > 0;) {
      i += rest % to[j] * inStride[static_cast<std::size_t>(perm[j])];
      rest /= to[j];
    }
    if (in[static_cast<std::size_t>(i)] != out[static_cast<std::size_t>(k)]) {
      return false;
    }
  }
  return true;
}

TEST(NpuSupport, ATransposeIsFreeExactlyWhenEveryElementKeepsItsNhwcByte) {
  int free = 0;
  int moving = 0;
  for (const Shape& from : nhwcShapes()) {
    std::vector<std::int64_t> perm(from.size());
    std::iota(perm.begin(), perm.end(), 0);
    do {
      const bool same = transposeKeepsBytes(from, perm);
      EXPECT_EQ(isFreeTranspose(from, perm), same)
          << formatShape(from) << " perm [" << fmt::format("{}", fmt::join(perm, ", ")) << "]";
      (same ? free : moving) += 1;
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
  EXPECT_GT(free, 100);
  EXPECT_GT(moving, 100);
  const std::vector<std::int64_t> toNhwc{0, 2, 3, 1};
  EXPECT_TRUE(isFreeTranspose({1, 8, 1, 1}, toNhwc));
  EXPECT_FALSE(isFreeTranspose({1, 8, 4, 4}, toNhwc));
  EXPECT_FALSE(isFreeTranspose({1, 8, 4}, std::vector<std::int64_t>{0, 2, 1}));  // no NHWC form
}

TEST(Partition, FreeReshapesAndTransposesNeverSplitASegment) {
  // conv -> token reshape [1, 8, 16, 1] -> conv -> GAP -> transpose to [1, 1, 1, 8] -> sigmoid
  // -> transpose back -> flatten [1, 8]: every layout step keeps the NHWC bytes, so all of it is
  // one NPU segment under every strategy. A flatten of the [1, 8, 4, 4] map and a transpose of
  // it to channels-last move bytes: on the host, with their reasons.
  GraphBuilder b("aliases");
  ValueId x = b.input("x", {1, 3, 8, 8});
  ValueId map = b.node(OpKind::Conv, "patch", {x, b.weights("pw", {8, 3, 2, 2})},
                       attrs({{"strides", std::vector<std::int64_t>{2, 2}}}));
  ValueId tokens = b.node(OpKind::Reshape, "tokens", {map, b.ints("tokens.shape", {1, 8, 16, 1})});
  ValueId mixed = b.node(OpKind::Conv, "mix", {tokens, b.weights("mw", {8, 8, 1, 1})});
  ValueId pooled = b.node(OpKind::GlobalAveragePool, "gap", {mixed});
  ValueId last = b.node(OpKind::Transpose, "to_last", {pooled},
                        attrs({{"perm", std::vector<std::int64_t>{0, 2, 3, 1}}}));
  ValueId gate = b.node(OpKind::Sigmoid, "gate", {last});
  ValueId back = b.node(OpKind::Transpose, "to_first", {gate},
                        attrs({{"perm", std::vector<std::int64_t>{0, 3, 1, 2}}}));
  ValueId flat = b.node(OpKind::Flatten, "flat", {back});
  ValueId wide = b.node(OpKind::Flatten, "flat_map", {map});
  ValueId nhwc = b.node(OpKind::Transpose, "channels_last", {map},
                        attrs({{"perm", std::vector<std::int64_t>{0, 2, 3, 1}}}));
  Graph g = b.finish({flat, wide, nhwc});
  for (DispatchStrategy strategy :
       {DispatchStrategy::Conservative, DispatchStrategy::Aggressive, DispatchStrategy::AllIn}) {
    Partition p = partitionGraph(g, {strategy, {}, {}});
    EXPECT_EQ(segmentSummary(p), "npu:8 host:2") << strategyName(strategy);
    for (const char* alias : {"tokens", "to_last", "to_first", "flat"}) {
      EXPECT_EQ(p.npuKind[nodeIndex(g, alias)], NpuOpKind::Alias)
          << alias << ": " << p.hostReason[nodeIndex(g, alias)];
    }
    EXPECT_EQ(p.hostReason[nodeIndex(g, "flat_map")],
              "the reshape moves bytes in NHWC (no NPU form)");
    EXPECT_EQ(p.hostReason[nodeIndex(g, "channels_last")],
              "the transpose moves bytes in NHWC (no NPU form)");
  }
}

TEST(Partition, PerChannelOpsRunOnTheNpuUnderEveryStrategy) {
  // Unfolded BatchNorm, a per-channel constant and a squeeze-excitation multiply of a
  // [1, C, 1, 1] activation over [1, C, H, W]: all on the NPU, in one segment.
  GraphBuilder b("per_channel");
  ValueId x = b.input("x", {1, 2, 4, 4});
  ValueId bn =
      b.node(OpKind::BatchNormalization, "bn",
             {x, b.constant("gamma", {2}, {1.0F, 2.0F}), b.constant("beta", {2}, {0.F, 1.F}),
              b.constant("mean", {2}, {0.5F, 0.F}), b.constant("var", {2}, {1.F, 4.F})});
  ValueId scaled = b.node(OpKind::Mul, "scale", {bn, b.constant("k", {1, 2, 1, 1}, {0.5F, 3.F})});
  ValueId pooled = b.node(OpKind::GlobalAveragePool, "gap", {scaled});
  ValueId gate = b.node(OpKind::Sigmoid, "gate", {pooled});
  ValueId se = b.node(OpKind::Mul, "se", {scaled, gate});
  ValueId spatial = b.node(OpKind::Mul, "spatial", {se, b.input("m", {1, 1, 4, 4})});
  Graph g = b.finish({spatial});
  for (DispatchStrategy strategy :
       {DispatchStrategy::Conservative, DispatchStrategy::Aggressive, DispatchStrategy::AllIn}) {
    Partition p = partitionGraph(g, {strategy, {}});
    EXPECT_EQ(segmentSummary(p), "npu:5 host:1") << strategyName(strategy);
    EXPECT_EQ(p.npuKind[nodeIndex(g, "bn")], NpuOpKind::ChannelAffine);
    EXPECT_EQ(p.npuKind[nodeIndex(g, "scale")], NpuOpKind::ChannelAffine);
    EXPECT_EQ(p.npuKind[nodeIndex(g, "se")], NpuOpKind::Mul);
    // A [1, 1, H, W] operand (spatial attention) does not broadcast on the NPU.
    EXPECT_EQ(p.hostReason[nodeIndex(g, "spatial")],
              "operands are not two [1, C, H, W] tensors of one shape or one of them [1, C, 1, 1]");
  }
}

TEST(Partition, HostLayersFromTheConfigStayOnTheHost) {
  Graph g = makeSmallNet();
  Partition p = partitionGraph(g, {DispatchStrategy::AllIn, {"add", "gap"}});
  EXPECT_EQ(p.device[nodeIndex(g, "add")], Device::Host);
  EXPECT_EQ(p.hostReason[nodeIndex(g, "add")], "kept on the host by the quantization config");
  EXPECT_EQ(segmentSummary(p), "npu:4 host:1 npu:3 host:1 npu:2 host:1 npu:3");
  EXPECT_EQ(errorOf([&] {
              partitionGraph(g, {DispatchStrategy::AllIn, {"nope"}});
            }),
            "smallnet.onnx: host layer 'nope' names no node of the graph");
}

TEST(Partition, DeviceGreedyOrderJoinsIndependentBranches) {
  // a (npu) -> softmax over axis 2 (host); a -> b (npu): the host branch goes after both NPU
  // nodes.
  GraphBuilder b("branches");
  ValueId x = b.input("x", {1, 2, 4, 4});
  ValueId a = b.node(OpKind::Sigmoid, "a", {x});
  ValueId s = b.node(OpKind::Softmax, "soft", {a}, attrs({{"axis", std::int64_t{2}}}));
  ValueId c = b.node(OpKind::Tanh, "c", {a});
  Graph g = b.finish({s, c});
  Partition p = partitionGraph(g);
  EXPECT_EQ(segmentSummary(p), "npu:2 host:1");
  ASSERT_EQ(p.segments[0].outputs.size(), 2U);
  EXPECT_EQ(g.value(p.segments[0].outputs[0]).name, "a");
  EXPECT_EQ(g.value(p.segments[0].outputs[1]).name, "c");
}

TEST(Partition, AnAliasAloneGoesBackToTheHost) {
  GraphBuilder b("alias");
  ValueId x = b.input("x", {1, 4, 1, 1});
  ValueId r = b.node(OpKind::Flatten, "flat", {x});
  Graph g = b.finish({b.node(OpKind::Softmax, "soft", {r})});
  Partition p = partitionGraph(g, {DispatchStrategy::Aggressive, {}});
  EXPECT_EQ(segmentSummary(p), "host:2");
  EXPECT_EQ(p.hostReason[0], "layout no-op with no NPU compute next to it");
}

TEST(Partition, LimitsAndShapesKeepNodesOnTheHost) {
  GraphBuilder b("limits");
  ValueId x = b.input("x", {1, 2, 369, 369});  // stride 16: 24 x 24 out, as before
  ValueId big = b.node(OpKind::Conv, "big", {x, b.weights("w", {2, 2, 1, 1})},
                       attrs({{"strides", std::vector<std::int64_t>{16, 16}}}));
  ValueId ceilAvg = b.node(OpKind::AveragePool, "ceil_avg", {big},
                           attrs({{"kernel_shape", std::vector<std::int64_t>{3, 3}},
                                  {"strides", std::vector<std::int64_t>{2, 2}},
                                  {"ceil_mode", std::int64_t{1}}}));
  ValueId y = b.input("y", {1, 2, 12, 12});
  ValueId bcast = b.node(OpKind::Add, "bcast", {ceilAvg, b.input("z", {1, 1, 1, 1})});
  ValueId sub = b.node(OpKind::Sub, "sub", {bcast, y});
  Graph g = b.finish({sub});
  Partition p = partitionGraph(g, {DispatchStrategy::AllIn, {}});
  EXPECT_EQ(p.hostReason[0], "stride 16x16 above the NPU's limit of 15");
  EXPECT_EQ(p.hostReason[1],
            "ceil_mode average pool with a partial last window (the divisor varies)");
  EXPECT_EQ(p.hostReason[2],
            "operands are not two [1, C, H, W] tensors of one shape or one of them [1, C, 1, 1]");
  EXPECT_EQ(p.npuKind[3], NpuOpKind::Sub);  // two activations of one shape
}

// Every window limit the dispatcher applies is the range of an instruction field: a value at the
// field's highest legal value runs on the NPU, one above it stays on the host. The expectations
// read instructions.def (isa::fieldMax), so widening a field there moves these cases with it,
// and a limit retyped as a literal anywhere in the dispatcher fails here.
TEST(Partition, WindowLimitsAreTheInstructionFieldRanges) {
  struct Case {
    std::string what;
    std::int64_t limit;
    std::function<Graph(std::int64_t)> graph;
  };
  auto conv = [](std::array<std::int64_t, 2> kernel, std::array<std::int64_t, 2> stride,
                 std::array<std::int64_t, 2> dilation, std::int64_t padTop) {
    GraphBuilder b("conv");
    const std::int64_t side = 2 * std::max({kernel[0] * dilation[0], kernel[1] * dilation[1],
                                            stride[0], stride[1], padTop}) +
                              2;
    ValueId x = b.input("x", {1, 1, side, side});
    ValueId y = b.node(OpKind::Conv, "conv", {x, b.weights("w", {1, 1, kernel[0], kernel[1]})},
                       attrs({{"strides", std::vector<std::int64_t>{stride[0], stride[1]}},
                              {"dilations", std::vector<std::int64_t>{dilation[0], dilation[1]}},
                              {"pads", std::vector<std::int64_t>{padTop, 0, 0, 0}}}));
    return b.finish({y});
  };
  auto pool = [](OpKind op, std::array<std::int64_t, 2> kernel, std::array<std::int64_t, 2> stride,
                 std::int64_t padTop) {
    GraphBuilder b("pool");
    const std::int64_t side = std::max({kernel[0], kernel[1], stride[0], stride[1], padTop}) + 2;
    ValueId x = b.input("x", {1, 1, side, side});
    ValueId y = b.node(op, "pool", {x},
                       attrs({{"kernel_shape", std::vector<std::int64_t>{kernel[0], kernel[1]}},
                              {"strides", std::vector<std::int64_t>{stride[0], stride[1]}},
                              {"pads", std::vector<std::int64_t>{padTop, 0, 0, 0}}}));
    return b.finish({y});
  };
  auto globalMax = [](std::int64_t h, std::int64_t w) {
    GraphBuilder b("gmp");
    ValueId x = b.input("x", {1, 1, h, w});
    return b.finish({b.node(OpKind::GlobalMaxPool, "gmp", {x})});
  };
  const std::vector<Case> cases = {
      {"conv stride height", isa::fieldMax<&isa::Conv::sh>(),
       [&](std::int64_t v) {
         return conv({1, 1}, {v, 1}, {1, 1}, 0);
       }},
      {"conv stride width", isa::fieldMax<&isa::Conv::sw>(),
       [&](std::int64_t v) {
         return conv({1, 1}, {1, v}, {1, 1}, 0);
       }},
      {"max pool window height", isa::fieldMax<&isa::Pool::kh>(),
       [&](std::int64_t v) {
         return pool(OpKind::MaxPool, {v, 1}, {1, 1}, 0);
       }},
      {"max pool window width", isa::fieldMax<&isa::Pool::kw>(),
       [&](std::int64_t v) {
         return pool(OpKind::MaxPool, {1, v}, {1, 1}, 0);
       }},
      {"max pool stride height", isa::fieldMax<&isa::Pool::sh>(),
       [&](std::int64_t v) {
         return pool(OpKind::MaxPool, {1, 1}, {v, 1}, 0);
       }},
      {"max pool stride width", isa::fieldMax<&isa::Pool::sw>(),
       [&](std::int64_t v) {
         return pool(OpKind::MaxPool, {1, 1}, {1, v}, 0);
       }},
      {"global max pool height", isa::fieldMax<&isa::Pool::kh>(),
       [&](std::int64_t v) { return globalMax(v, 1); }},
      {"global max pool width", isa::fieldMax<&isa::Pool::kw>(),
       [&](std::int64_t v) { return globalMax(1, v); }},
  };
  for (const Case& c : cases) {
    for (const std::int64_t value : {c.limit, c.limit + 1}) {
      Graph g = c.graph(value);
      Partition p = partitionGraph(g, {DispatchStrategy::AllIn, {}});
      EXPECT_EQ(p.device[0], value <= c.limit ? Device::Npu : Device::Host)
          << c.what << " = " << value << " (field limit " << c.limit << "): " << p.hostReason[0];
    }
  }
  // Kernels past CONV's field stay on the NPU: codegen splits them into parts that accumulate.
  for (const std::int64_t kernel : {isa::fieldMax<&isa::Conv::kh>() + 1, std::int64_t{31}}) {
    Graph tall = conv({kernel, 1}, {1, 1}, {1, 1}, 0);
    EXPECT_EQ(partitionGraph(tall, {DispatchStrategy::AllIn, {}}).device[0], Device::Npu)
        << "conv kernel height " << kernel;
    Graph wide = conv({1, kernel}, {1, 1}, {1, 1}, 0);
    EXPECT_EQ(partitionGraph(wide, {DispatchStrategy::AllIn, {}}).device[0], Device::Npu)
        << "conv kernel width " << kernel;
  }
  // Dilations past CONV's field stay on the NPU: codegen splits them into phases of dilation 1.
  for (const std::int64_t dilation : {isa::fieldMax<&isa::Conv::dh>() + 1, std::int64_t{36}}) {
    Graph rows = conv({2, 1}, {1, 1}, {dilation, 1}, 0);
    EXPECT_EQ(partitionGraph(rows, {DispatchStrategy::AllIn, {}}).device[0], Device::Npu)
        << "conv dilation height " << dilation;
    Graph cols = conv({1, 2}, {1, 1}, {1, dilation}, 0);
    EXPECT_EQ(partitionGraph(cols, {DispatchStrategy::AllIn, {}}).device[0], Device::Npu)
        << "conv dilation width " << dilation;
  }
  // Padding past LOAD's fields stays on the NPU: codegen fills it from a run of pad bytes.
  const std::int64_t padLimit = isa::fieldMax<&isa::Load::pad_top>();
  for (const std::int64_t pad : {padLimit + 1, 4 * padLimit}) {
    Graph convGraph = conv({1, 1}, {1, 1}, {1, 1}, pad);
    EXPECT_EQ(partitionGraph(convGraph, {DispatchStrategy::AllIn, {}}).device[0], Device::Npu)
        << "conv padding " << pad;
    Graph poolGraph = pool(OpKind::MaxPool, {pad + 1, 1}, {1, 1}, pad);
    EXPECT_EQ(partitionGraph(poolGraph, {DispatchStrategy::AllIn, {}}).device[0], Device::Npu)
        << "max pool padding " << pad;
  }
}

TEST(Partition, ChannelSlicesRunOnTheNpu) {
  GraphBuilder b("slices");
  ValueId x = b.input("x", {1, 6, 4, 4});
  ValueId conv = b.node(OpKind::Conv, "conv", {x, b.weights("w", {6, 6, 1, 1})});
  ValueId half = b.node(OpKind::Slice, "half",
                        {conv, b.ints("s0", {3}), b.ints("e0", {6}), b.ints("a0", {1})});
  ValueId rows = b.node(OpKind::Slice, "rows",
                        {conv, b.ints("s1", {1}), b.ints("e1", {3}), b.ints("a1", {2})});
  ValueId odd =
      b.node(OpKind::Slice, "odd",
             {conv, b.ints("s2", {1}), b.ints("e2", {6}), b.ints("a2", {-3}), b.ints("st2", {2})});
  ValueId back =
      b.node(OpKind::Slice, "back",
             {conv, b.ints("s3", {-1}), b.ints("e3", {0}), b.ints("a3", {3}), b.ints("st3", {-1})});
  Graph g = b.finish({half, rows, odd, back});
  Partition p = partitionGraph(g);
  EXPECT_EQ(p.npuKind[nodeIndex(g, "half")], NpuOpKind::Slice);
  EXPECT_EQ(sliceWindowOf(g, g.nodes()[nodeIndex(g, "half")]).channelBegin, 3);
  // Rows at any positive step (a Focus stem's every other row) run on the NPU too.
  EXPECT_EQ(p.npuKind[nodeIndex(g, "rows")], NpuOpKind::Slice);
  SliceWindow window = sliceWindowOf(g, g.nodes()[nodeIndex(g, "rows")]);
  EXPECT_EQ(window.rowBegin, 1);
  EXPECT_EQ(window.rowStep, 1);
  EXPECT_EQ(p.hostReason[nodeIndex(g, "odd")],
            "only consecutive channels, and rows and columns at a positive step, run on the NPU");
  EXPECT_EQ(p.hostReason[nodeIndex(g, "back")],
            "only consecutive channels, and rows and columns at a positive step, run on the NPU");
}

TEST(Partition, ChannelShufflesRunOnTheNpu) {
  GraphBuilder b("shuffle");
  ValueId x = b.input("x", {1, 4, 2, 2});
  ValueId conv = b.node(OpKind::Conv, "conv", {x, b.weights("w", {4, 4, 1, 1})});
  ValueId shuffle = b.node(OpKind::Gather, "shuffle", {conv, b.ints("order", {0, 2, 1, 3})},
                           attrs({{"axis", std::int64_t{1}}}));
  ValueId other = b.node(OpKind::Gather, "reverse", {conv, b.ints("rev", {3, 2, 1, 0})},
                         attrs({{"axis", std::int64_t{1}}}));
  Graph g = b.finish({shuffle, other});
  Partition p = partitionGraph(g);
  EXPECT_EQ(p.npuKind[nodeIndex(g, "shuffle")], NpuOpKind::ChannelShuffle);
  EXPECT_EQ(p.hostReason[nodeIndex(g, "reverse")],
            "only a channel shuffle (a Gather of the channels in shuffle order) runs on the NPU");
}

TEST(CapacityCheck, APlanThatCannotFitIsRefusedBeforeCalibration) {
  isa::NpuConfig hw =
      isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "configs" / "npu-s.yaml");
  // The small net's NPU constants: conv1 8*27 + dw 8*9 + pw 8*8 + branch_a 4*8 + branch_b 4*72 +
  // fc 10*8 = 752 int8 weights and 4 * (8+8+8+4+4+10) = 168 bias bytes.
  hw.ddrBytes = 919;
  CompileOptions options;
  options.hw = hw;
  // No calibration samples: the error must come before calibration would need them.
  EXPECT_EQ(errorOf([&] { compileOptimizedGraph(makeSmallNet(), {}, options); }),
            "smallnet.onnx: the NPU layers' int8 weights and int32 biases alone need 920 bytes "
            "of DDR, 'npu-s' has 919 (largest: layer 'branch_b', 304 bytes); use hardware with "
            "more DDR (--hw) or keep layers on the host (host_layers in the quantization config)");
  // Beside them, the layer with the most int8 activations in and out at once: the max pool,
  // 8 x 16 x 16 in and 8 x 8 x 8 out.
  options.hw->ddrBytes = 920 + 2560 - 1;
  EXPECT_EQ(errorOf([&] { compileOptimizedGraph(makeSmallNet(), {}, options); }),
            "smallnet.onnx: the NPU layer 'maxpool' reads and writes 2560 bytes of int8 "
            "activations at once, beside 920 bytes of the NPU layers' weights and biases; 'npu-s' "
            "has 3479 bytes of DDR; use hardware with more DDR (--hw) or keep layers on the host "
            "(host_layers in the quantization config)");
  options.hw->ddrBytes = 920 + 2560;
  EXPECT_NE(errorOf([&] { compileOptimizedGraph(makeSmallNet(), {}, options); }).find("calib"),
            std::string::npos)
      << "with enough DDR the flow goes on to calibration, which has no samples";
}

TEST(PartitionReport, CountsOpsAndMacsPerDevice) {
  Graph g = makeSmallNet();
  Partition p = partitionGraph(g);
  std::array<DeviceTotals, 2> t = partitionTotals(g, p);
  // conv1 16*16*8*27 + dw 8*8*8*9 + pw 8*8*8*8 + branch_a 8*8*4*8 + branch_b 8*8*4*72 + fc 10*8
  EXPECT_EQ(t[0].macs, 55296 + 4608 + 4096 + 2048 + 18432 + 80);
  EXPECT_EQ(t[1].macs, 0);
  EXPECT_EQ(t[0].ops, 14);
  EXPECT_EQ(t[1].ops, 1);
  std::string report = formatPartitionReport(g, p);
  EXPECT_NE(report.find("NPU           14    93.3%            84,560   100.0%"), std::string::npos)
      << report;
  EXPECT_NE(report.find("  #1 host: 1 ops, 0 MACs (scale .. scale)\n"
                        "      inputs:  concat f32[1, 8, 8, 8]\n"
                        "      outputs: scale f32[1, 8, 8, 8]\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("  scale (Mul): the constant is not per channel, scalar or of the "
                        "activation's whole shape\n"),
            std::string::npos)
      << report;
}

}  // namespace
}  // namespace npu::compiler
