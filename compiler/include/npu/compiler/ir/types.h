// Element types and shapes of IR values.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace npu::compiler {

/// Element type of a value. Float32 carries activations and weights of the fp32 graph; Int64 the
/// index tensors (shapes, axes, pads); the int8/int32 types are for the quantized graph.
enum class DType : std::uint8_t { Float32, Int64, Int32, Int8, UInt8, Bool };

/// Short name used in dumps and messages: f32, i64, i32, i8, u8, bool.
std::string_view dtypeName(DType dtype);

/// The dtype of an ONNX TensorProto.DataType code, or nullopt for one the IR does not hold.
std::optional<DType> dtypeFromOnnx(std::int64_t code);

/// Dimensions, outermost first. A scalar has an empty shape.
using Shape = std::vector<std::int64_t>;

/// Number of elements (1 for a scalar).
std::int64_t elementCount(std::span<const std::int64_t> shape);

/// "[1, 3, 224, 224]".
std::string formatShape(std::span<const std::int64_t> shape);

/// "f32[1, 3, 224, 224]".
std::string formatType(DType dtype, std::span<const std::int64_t> shape);

}  // namespace npu::compiler
