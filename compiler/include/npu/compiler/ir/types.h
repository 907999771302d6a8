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

/// The most elements one tensor of a graph may hold (2^28: 1 GiB in fp32). Sizes read from a
/// model or a graph spec are checked against it before anything is allocated, so a file claiming
/// a 0x7fffffff-channel input is rejected by name instead of exhausting memory
/// (docs/reliability.md, "Bounded resources").
inline constexpr std::int64_t kMaxTensorElements = std::int64_t{1} << 28;

/// elementCount(shape) (which refuses negative dimensions and 64-bit overflow), or a bad-input
/// error `WHAT has shape S: N elements, above the limit of
/// 268435456 per tensor` when it exceeds kMaxTensorElements.
std::int64_t boundedElementCount(std::span<const std::int64_t> shape, std::string_view what);

/// "[1, 3, 224, 224]".
std::string formatShape(std::span<const std::int64_t> shape);

/// "f32[1, 3, 224, 224]".
std::string formatType(DType dtype, std::span<const std::int64_t> shape);

}  // namespace npu::compiler
