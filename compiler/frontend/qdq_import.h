// Private to the ONNX front end: QDQ models (QuantizeLinear/DequantizeLinear around float ops) as
// float graphs whose values carry the given quantization (docs/quantized-models.md).
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "npu/compiler/ir/graph.h"

namespace onnx {
class ModelProto;
}

namespace npu::compiler {

/// What stripping the Q/DQ nodes of a model leaves behind: the quantization of each value that
/// was quantized, by value name. Activations are per-tensor; constants (weights) may be per axis.
/// Zero points are int8: a uint8 zero point is stored moved by -128 (bit-identical).
struct QdqAnnotations {
  std::map<std::string, QuantParams> values;

  bool empty() const { return values.empty(); }
};

/// Rewrites a QDQ model in place into its float form:
/// - DequantizeLinear of an int8/uint8/int32 initializer becomes the float initializer
///   (q - zp) * s, named as the DequantizeLinear's output (its quantization recorded);
/// - QuantizeLinear -> DequantizeLinear of a float initializer becomes the float initializer
///   DQ(Q(w)) (ONNX rounding: half to even), its quantization recorded;
/// - QuantizeLinear -> DequantizeLinear of an activation x becomes Identity(x), and x (and the
///   DequantizeLinear's output) record the parameters.
/// Throws Error naming the node for non-constant or malformed scales and zero points, per-axis
/// activation parameters, a Q/DQ pair whose parameters differ, int8 values read by other ops,
/// and (kind unsupported) the QOperator form (QLinearConv, ConvInteger, ...) in one message.
/// Does nothing to a model without QuantizeLinear/DequantizeLinear nodes.
QdqAnnotations stripQdq(onnx::ModelProto& model, const std::string& source,
                        const std::filesystem::path& baseDir);

/// Sets Value::quant of every value of `graph` named in `annotations`.
void annotateQuantization(Graph& graph, const QdqAnnotations& annotations);

}  // namespace npu::compiler
