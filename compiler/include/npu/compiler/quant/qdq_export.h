// QDQ ONNX export (docs/quantized-models.md): a quantized model as a standard QDQ model that any
// ONNX runtime runs and that `npu` imports back to the same program.
#pragma once

#include <filesystem>
#include <string>

#include "npu/compiler/quant/quantized_model.h"

namespace npu::compiler {

/// The optimised graph of `model` (after the front-end passes) as a QDQ ONNX model, serialized:
/// - every tensor an NPU segment reads or writes gets QuantizeLinear -> DequantizeLinear with its
///   int8 scale and zero point (a LUT conv's pre-activation too);
/// - every NPU conv's weights are an int8 initializer (OIHW) behind a per-output-channel
///   DequantizeLinear (axis 0, zero point 0), its bias an int32 initializer behind a
///   DequantizeLinear at scale s_in * s_w[c];
/// - fused activations are written out again as their ONNX nodes (SiLU as x * Sigmoid(x)), fully
///   connected layers as the 1x1 convs they became; host nodes stay float.
/// Opset 13, or the lowest that has every op (14 with HardSwish, 17 with LayerNormalization, 18
/// with Mish or GroupNormalization). Importing the result and compiling it for the same target
/// gives the same program (tested). Throws Error (kind unsupported) naming the node for an op
/// with no ONNX form (a tanh-approximated Gelu, a Softmax of an opset below 13 over several
/// axes, a reduction with computed axes below opset 18).
std::string exportQdqOnnx(const QuantizedModel& model);

/// exportQdqOnnx written to `path`.
void writeQdqOnnx(const QuantizedModel& model, const std::filesystem::path& path);

}  // namespace npu::compiler
