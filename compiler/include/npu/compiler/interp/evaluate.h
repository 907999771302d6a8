// One node's fp32 evaluation: dispatches to the golden fp32 ops, or to the index evaluator for
// integer shape arithmetic. The interpreter, constant folding and BN estimation share it.
#pragma once

#include <span>
#include <variant>
#include <vector>

#include "npu/compiler/ir/graph.h"
#include "npu/compiler/ir/index_eval.h"
#include "npu/golden/float_tensor.h"

namespace npu::compiler {

/// A value at run time: fp32 tensors for activations and weights, other dtypes (int64 shapes,
/// axes, pads) as index tensors.
using RuntimeValue = std::variant<golden::FloatTensor, Tensor>;

/// The shape of a run-time value.
const Shape& shapeOf(const RuntimeValue& value);

/// A constant's data as a run-time value (a copy).
RuntimeValue runtimeValueOf(const Value& constant);

/// Runs `node` on `inputs` (nullptr for an omitted optional input) and returns its outputs.
/// Throws Error without node context; callers add it with withNodeContext.
std::vector<RuntimeValue> evaluateNode(const Node& node,
                                       std::span<const RuntimeValue* const> inputs);

/// Applies a fused epilogue activation (see FusedActivation) in place of a separate node.
golden::FloatTensor applyActivation(golden::FloatTensor x, const Node& node);

}  // namespace npu::compiler
