// Integer shape arithmetic: runs the index ops (Shape, Gather, Cast, Slice, ConstantOfShape) and
// the data-movement and arithmetic ops on int64 tensors, as exporters emit them around reshapes.
#pragma once

#include <span>
#include <vector>

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// A tensor with elements of any dtype (the index evaluator's operand).
struct Tensor {
  Shape shape;
  TensorData data;
};

/// True when the index evaluator runs `node` for inputs of these dtypes: an Index op, or a
/// data-movement/arithmetic op whose first input is not Float32.
bool runsOnIndexEvaluator(OpKind op, DType firstInputDtype);

/// Evaluates `node` on `inputs` (nullptr for an omitted optional input; for Shape only the input's
/// shape is read). Throws Error without node context.
std::vector<Tensor> evaluateIndexOp(const Node& node, std::span<const Tensor* const> inputs);

}  // namespace npu::compiler
