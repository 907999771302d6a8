// Private to the IR: the per-op type rules behind inferNode.
#pragma once

#include <span>
#include <vector>

#include "npu/compiler/ir/shape_inference.h"

namespace npu::compiler {

/// The output types of `node` by its op's rule, without evaluating anything.
std::vector<InferredOutput> inferOutputTypes(const Node& node,
                                             std::span<const KnownValue* const> values);

}  // namespace npu::compiler
