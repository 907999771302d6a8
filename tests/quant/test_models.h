// Small fp32 graphs for the quantization tests, built in code and run through the front-end passes.
#pragma once

#include "npu/compiler/passes/pipeline.h"
#include "test_support.h"

namespace npu::compiler::testing {

/// A conv net touching every NPU form: conv + ReLU, max pool, depthwise conv + ReLU6, residual
/// add + ReLU, a sigmoid-fused conv and a ReLU conv concatenated, a multiply by a constant (NPU
/// only in allin mode), average pool, a standalone tanh, global average pool, a fully connected
/// layer and a softmax. Input "x" [1, 3, 16, 16], output "probs" [1, 10].
inline Graph makeSmallNet() {
  GraphBuilder b("smallnet");
  auto conv = [&](const std::string& name, ValueId x, std::int64_t cin, std::int64_t cout,
                  std::int64_t k, std::int64_t group, unsigned seed) {
    ValueId w = b.weights(name + ".w", {cout, cin / group, k, k}, seed);
    ValueId bias = b.weights(name + ".b", {cout}, seed + 100);
    std::int64_t p = k / 2;
    return b.node(OpKind::Conv, name, {x, w, bias},
                  attrs({{"pads", std::vector<std::int64_t>{p, p, p, p}}, {"group", group}}));
  };
  ValueId x = b.input("x", {1, 3, 16, 16});
  ValueId c1 = b.node(OpKind::Relu, "relu1", {conv("conv1", x, 3, 8, 3, 1, 1)});
  ValueId p1 = b.node(OpKind::MaxPool, "maxpool", {c1},
                      attrs({{"kernel_shape", std::vector<std::int64_t>{2, 2}},
                             {"strides", std::vector<std::int64_t>{2, 2}}}));
  ValueId dw = b.node(OpKind::Clip, "relu6",
                      {conv("dw", p1, 8, 8, 3, 8, 2), b.constant("zero", {}, {0.0F}),
                       b.constant("six", {}, {6.0F})});
  ValueId pw = conv("pw", dw, 8, 8, 1, 1, 3);
  ValueId add = b.node(OpKind::Relu, "relu_add", {b.node(OpKind::Add, "add", {p1, pw})});
  ValueId s1 = b.node(OpKind::Sigmoid, "sigmoid", {conv("branch_a", add, 8, 4, 1, 1, 4)});
  ValueId s2 = b.node(OpKind::Relu, "relu_b", {conv("branch_b", add, 8, 4, 3, 1, 5)});
  ValueId cat = b.node(OpKind::Concat, "concat", {s1, s2}, attrs({{"axis", std::int64_t{1}}}));
  // Per row, not per channel: the one op of the net the NPU cannot run, so the net has a host
  // segment between two NPU segments.
  ValueId scaled = b.node(OpKind::Mul, "scale",
                          {cat, b.constant("half", {1, 1, 8, 1}, std::vector<float>(8, 0.5F))});
  ValueId ap = b.node(OpKind::AveragePool, "avgpool", {scaled},
                      attrs({{"kernel_shape", std::vector<std::int64_t>{2, 2}},
                             {"strides", std::vector<std::int64_t>{2, 2}}}));
  ValueId th = b.node(OpKind::Tanh, "tanh", {ap});
  ValueId gap = b.node(OpKind::GlobalAveragePool, "gap", {th});
  ValueId flat = b.node(OpKind::Flatten, "flatten", {gap});
  ValueId fc =
      b.node(OpKind::Gemm, "fc", {flat, b.weights("fc.w", {10, 8}, 6), b.weights("fc.b", {10}, 7)},
             attrs({{"transB", std::int64_t{1}}}));
  ValueId probs = b.node(OpKind::Softmax, "probs", {fc}, attrs({{"axis", std::int64_t{1}}}));
  Graph graph = b.finish({probs});
  runFrontEndPasses(graph);
  return graph;
}

/// Deterministic calibration-like inputs for makeSmallNet: `count` patterns in [-1, 1).
inline std::vector<TensorMap> smallNetSamples(int count, unsigned seed = 11) {
  std::vector<TensorMap> samples;
  for (int i = 0; i < count; ++i) {
    samples.push_back(TensorMap{{"x", pattern({1, 3, 16, 16}, seed + static_cast<unsigned>(i))}});
  }
  return samples;
}

}  // namespace npu::compiler::testing
