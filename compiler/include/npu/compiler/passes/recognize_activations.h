// The recognize-activations pass: recognizeActivations().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Recognises SiLU (x * Sigmoid(x)), HardSwish (x * HardSigmoid(x) with alpha 1/6, beta 1/2) and
/// Mish (x * Tanh(Softplus(x))) when the gate has no other reader, so later passes see one
/// element-wise activation node; a PRelu whose slope is one constant becomes the LeakyRelu it is.
void recognizeActivations(Graph& graph);

}  // namespace npu::compiler
