// Constant activations: the fp32 constants an NPU node reads as int8 tensors (a class token
// concatenated to a token map, a position embedding added to it), found and quantized.
#pragma once

#include <string>
#include <vector>

#include "npu/compiler/ir/graph.h"
#include "npu/compiler/partition/partition.h"
#include "npu/compiler/quant/quantized_graph.h"
#include "npu/golden/quantize.h"

namespace npu::compiler {

/// Whether input `i` of node `n` is a constant the NPU reads as an int8 activation tensor: an
/// f32 constant input of an NPU Concat, Add or Mul (a per-channel or scalar constant of an op
/// the NPU runs as a channel affine is folded into that conv's weights and bias instead).
bool isConstantActivation(const Graph& graph, const Partition& partition, std::size_t n,
                          std::size_t i);

/// The names of every constant activation of the partition, in node order, once each.
std::vector<std::string> constantActivationNames(const Graph& graph, const Partition& partition);

/// The constant `id` ([1, C, H, W] or [1, C] f32) as an NHWC int8 QTensor named `name`, quantized
/// with `params` by the rule of docs/numerics.md. Throws Error naming the constant for another
/// shape or type.
QTensor quantizeConstantActivation(const Graph& graph, ValueId id,
                                   const golden::QuantParams& params, const std::string& name);

}  // namespace npu::compiler
