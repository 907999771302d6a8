// Output types of every op, and of a whole graph with the data of index tensors propagated.
#pragma once

#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// What is known about a value before running the graph: its type and, for constants and index
/// tensors computed from static shapes, its elements.
struct KnownValue {
  DType dtype = DType::Float32;
  Shape shape;
  /// The elements when known statically; points into the graph or an InferredTypes.
  const TensorData* data = nullptr;
};

/// One output type computed by an op rule, with its elements when the op was evaluated.
struct InferredOutput {
  DType dtype = DType::Float32;
  Shape shape;
  std::optional<TensorData> data;
};

/// The output types of `node` from its inputs (nullptr for an omitted optional input), with ONNX
/// semantics. Index ops whose inputs are all known are evaluated, so a Reshape fed by a
/// Shape/Gather/Concat chain learns its target shape. Throws Error without node context.
std::vector<InferredOutput> inferNode(const Node& node, std::span<const KnownValue* const> inputs);

/// Every value's type, indexed by ValueId.
class InferredTypes {
 public:
  InferredTypes() = default;
  InferredTypes(InferredTypes&&) = default;
  InferredTypes& operator=(InferredTypes&&) = default;
  InferredTypes(const InferredTypes&) = delete;
  InferredTypes& operator=(const InferredTypes&) = delete;

  const KnownValue& operator[](ValueId id) const { return m_values.at(id.index); }

 private:
  friend InferredTypes inferGraph(const Graph& graph);
  std::vector<KnownValue> m_values;
  std::deque<TensorData> m_storage;
};

/// Runs the op rules over the graph in node order, starting from the typed graph inputs and the
/// constants. Errors name the file, node and op.
InferredTypes inferGraph(const Graph& graph);

}  // namespace npu::compiler
