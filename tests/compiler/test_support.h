// Helpers for the compiler tests: small graphs built in code, errors as text, tensor comparison.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "npu/compiler/frontend/npy.h"
#include "npu/compiler/interp/interpreter.h"
#include "npu/compiler/ir/dump.h"
#include "npu/compiler/ir/graph.h"
#include "npu/compiler/ir/verify.h"
#include "npu/compiler/passes/infer_shapes.h"
#include "npu/support/error.h"

namespace npu::compiler::testing {

inline std::filesystem::path sourcePath(const std::filesystem::path& relative) {
  return std::filesystem::path(NPU_SOURCE_DIR) / relative;
}

/// The message of the Error `body` throws, or "(no error)".
inline std::string errorOf(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

/// norm(a - b) / norm(b), the accuracy measure of the issue.
inline double relativeError(const golden::FloatTensor& actual,
                            const golden::FloatTensor& expected) {
  double diff = 0.0;
  double norm = 0.0;
  for (std::size_t i = 0; i < expected.data.size(); ++i) {
    double d = static_cast<double>(actual.data.at(i)) - expected.data[i];
    diff += d * d;
    norm += static_cast<double>(expected.data[i]) * expected.data[i];
  }
  return std::sqrt(diff) / std::max(std::sqrt(norm), 1e-30);
}

inline golden::FloatTensor loadFloatNpy(const std::filesystem::path& path) {
  Tensor t = readNpy(path);
  std::span<const float> v = t.data.floats();
  return golden::FloatTensor{t.shape, std::vector<float>(v.begin(), v.end())};
}

/// A deterministic pseudo-random tensor in [-1, 1).
inline golden::FloatTensor pattern(Shape shape, unsigned seed = 1) {
  golden::FloatTensor t{shape, std::vector<float>(static_cast<std::size_t>(elementCount(shape)))};
  unsigned state = seed * 2654435761U + 12345U;
  for (float& v : t.data) {
    state = state * 1664525U + 1013904223U;
    v = static_cast<float>(state >> 8) / static_cast<float>(1U << 23) - 1.0F;
  }
  return t;
}

/// Builds small graphs: every node gets one output named after the node.
class GraphBuilder {
 public:
  explicit GraphBuilder(std::string name = "test") : m_graph(name, name + ".onnx") {}

  ValueId input(const std::string& name, Shape shape) {
    Value v;
    v.name = name;
    v.shape = std::move(shape);
    v.typed = true;
    ValueId id = m_graph.addValue(std::move(v));
    m_graph.addInput(id);
    return id;
  }

  ValueId constant(const std::string& name, Shape shape, std::vector<float> values) {
    return m_graph.addConstant(name, std::move(shape), TensorData(std::move(values)));
  }

  /// A constant of `shape` filled with a pattern in [-1, 1).
  ValueId weights(const std::string& name, Shape shape, unsigned seed = 7) {
    return constant(name, shape, pattern(shape, seed).data);
  }

  ValueId ints(const std::string& name, std::vector<std::int64_t> values) {
    Shape shape{static_cast<std::int64_t>(values.size())};
    return m_graph.addConstant(name, shape, TensorData(std::move(values)));
  }

  ValueId node(OpKind op, const std::string& name, std::vector<ValueId> inputs,
               Attributes attributes = {}) {
    Node n;
    n.name = name;
    n.op = op;
    n.inputs = std::move(inputs);
    n.attributes = std::move(attributes);
    ValueId out = m_graph.addIntermediate(name);
    n.outputs = {out};
    m_graph.addNode(std::move(n));
    return out;
  }

  /// Marks the outputs and runs shape inference.
  Graph finish(const std::vector<ValueId>& outputs) {
    for (ValueId id : outputs) {
      m_graph.addOutput(id);
    }
    inferShapes(m_graph);
    return std::move(m_graph);
  }

  Graph& graph() { return m_graph; }

 private:
  Graph m_graph;
};

/// Attributes from a list of name/value pairs.
inline Attributes attrs(std::initializer_list<std::pair<std::string, AttributeValue>> list) {
  Attributes a;
  for (const auto& [name, value] : list) {
    a.set(name, value);
  }
  return a;
}

/// The ops of a graph in node order, e.g. "Conv Relu Add".
inline std::string opSequence(const Graph& graph) {
  std::string out;
  for (const Node& node : graph.nodes()) {
    if (!out.empty()) {
      out += ' ';
    }
    out += std::string(opName(node.op));
  }
  return out;
}

/// The single output of running `graph` on one input.
inline golden::FloatTensor runSingle(const Graph& graph, const golden::FloatTensor& x) {
  TensorMap inputs{{graph.value(graph.inputs().at(0)).name, x}};
  TensorMap outputs = interpret(graph, inputs);
  return outputs.begin()->second;
}

/// Runs `pass` on `graph`, verifies the result, and checks the output on an input made from
/// `seed` did not change by more than `tolerance` (relative).
inline void runAndCompare(Graph& graph, const std::function<void(Graph&)>& pass, unsigned seed = 5,
                          double tolerance = 1e-6) {
  const golden::FloatTensor x = pattern(graph.value(graph.inputs().at(0)).shape, seed);
  const golden::FloatTensor before = runSingle(graph, x);
  pass(graph);
  verifyGraph(graph);
  const golden::FloatTensor after = runSingle(graph, x);
  EXPECT_EQ(after.shape, before.shape);
  EXPECT_LT(relativeError(after, before), tolerance) << dumpGraph(graph);
}

}  // namespace npu::compiler::testing
