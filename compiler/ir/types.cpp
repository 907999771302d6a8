// Element type names and shape formatting.
#include "npu/compiler/ir/types.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>

#include "npu/support/error.h"

namespace npu::compiler {

std::string_view dtypeName(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return "f32";
    case DType::Int64:
      return "i64";
    case DType::Int32:
      return "i32";
    case DType::Int8:
      return "i8";
    case DType::UInt8:
      return "u8";
    case DType::Bool:
      return "bool";
  }
  return "?";
}

std::optional<DType> dtypeFromOnnx(std::int64_t code) {
  // TensorProto.DataType: FLOAT=1, UINT8=2, INT8=3, INT32=6, INT64=7, BOOL=9.
  switch (code) {
    case 1:
      return DType::Float32;
    case 2:
      return DType::UInt8;
    case 3:
      return DType::Int8;
    case 6:
      return DType::Int32;
    case 7:
      return DType::Int64;
    case 9:
      return DType::Bool;
    default:
      return std::nullopt;
  }
}

std::int64_t elementCount(std::span<const std::int64_t> shape) {
  std::int64_t count = 1;
  for (std::int64_t d : shape) {
    if (d < 0) {
      fail("negative dimension in shape {}", formatShape(shape));
    }
    // A corrupted file can claim any dimensions: refuse counts that do not fit.
    if (d != 0 && count > std::numeric_limits<std::int64_t>::max() / d) {
      fail("shape {} has more elements than fit in 64 bits", formatShape(shape));
    }
    count *= d;
  }
  return count;
}

std::int64_t boundedElementCount(std::span<const std::int64_t> shape, std::string_view what) {
  // elementCount's checks, with WHAT in every message.
  std::int64_t count = 1;
  for (std::int64_t d : shape) {
    if (d < 0) {
      fail("{} has shape {}: a negative dimension", what, formatShape(shape));
    }
    if (d != 0 && count > std::numeric_limits<std::int64_t>::max() / d) {
      fail("{} has shape {}: more elements than fit in 64 bits", what, formatShape(shape));
    }
    count *= d;
  }
  if (count > kMaxTensorElements) {
    fail("{} has shape {}: {} elements, above the limit of {} per tensor", what, formatShape(shape),
         count, kMaxTensorElements);
  }
  // An empty tensor has no elements whatever its other dimensions: bound them one by one too, so
  // that sizes computed from a dimension (windows, strides, pads) stay far inside 64 bits.
  for (std::int64_t d : shape) {
    if (d > kMaxTensorElements) {
      fail("{} has shape {}: dimension {} is above the limit of {} per tensor", what,
           formatShape(shape), d, kMaxTensorElements);
    }
  }
  return count;
}

std::string formatShape(std::span<const std::int64_t> shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

std::string formatType(DType dtype, std::span<const std::int64_t> shape) {
  return fmt::format("{}{}", dtypeName(dtype), formatShape(shape));
}

}  // namespace npu::compiler
