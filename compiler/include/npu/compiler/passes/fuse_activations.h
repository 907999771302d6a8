// The fuse-activations pass: fuseActivations().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Fuses an activation that is the only reader of a Conv's output into the Conv's epilogue
/// (attribute 'activation'): Relu and Clip/Relu6 become clip bounds; LeakyRelu, Sigmoid, Tanh,
/// HardSigmoid, HardSwish, SiLU and GELU are marked as LUT candidates (activation_lut=1). Relu
/// and Clip after an Add or a standalone BatchNormalization (a per-channel affine on the NPU)
/// fuse into it the same way.
void fuseActivations(Graph& graph);

}  // namespace npu::compiler
