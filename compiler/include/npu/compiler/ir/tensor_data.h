// TensorData: the elements of a constant value (weights, folded shapes), typed by DType.
#pragma once

#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "npu/compiler/ir/types.h"

namespace npu::compiler {

/// Row-major elements of one dtype. Bool is stored as one byte per element (0 or 1).
class TensorData {
 public:
  /// Empty float data.
  TensorData() = default;
  explicit TensorData(std::vector<float> values)
      : m_dtype(DType::Float32), m_storage(std::move(values)) {}
  explicit TensorData(std::vector<std::int64_t> values)
      : m_dtype(DType::Int64), m_storage(std::move(values)) {}
  explicit TensorData(std::vector<std::int32_t> values)
      : m_dtype(DType::Int32), m_storage(std::move(values)) {}
  explicit TensorData(std::vector<std::int8_t> values)
      : m_dtype(DType::Int8), m_storage(std::move(values)) {}
  /// UInt8 or Bool data.
  TensorData(std::vector<std::uint8_t> values, DType dtype)
      : m_dtype(dtype), m_storage(std::move(values)) {}

  /// `count` zero elements of `dtype`.
  static TensorData zeros(DType dtype, std::int64_t count);

  DType dtype() const { return m_dtype; }
  /// Number of elements.
  std::int64_t size() const;

  /// Typed views; each throws Error when the dtype differs.
  std::span<const float> floats() const;
  std::span<const std::int64_t> int64s() const;
  std::span<const std::int32_t> int32s() const;
  std::span<const std::int8_t> int8s() const;
  std::span<const std::uint8_t> bytes() const;
  std::vector<float>& mutableFloats();
  std::vector<std::int64_t>& mutableInt64s();

  /// The elements of any integer or bool dtype widened to int64 (index inputs may be int32).
  std::vector<std::int64_t> toInt64() const;
  /// The elements converted to float (what Cast to float does).
  std::vector<float> toFloat() const;
  /// The elements converted to `dtype` with C++ conversion rules (what ONNX Cast does).
  TensorData castTo(DType dtype) const;

  /// The elements at `indices`, in that order (the data movement of Gather, Slice, Transpose).
  TensorData gather(std::span<const std::int64_t> indices) const;
  /// Appends the elements of `other`, which must have the same dtype.
  void append(const TensorData& other);

  friend bool operator==(const TensorData&, const TensorData&) = default;

 private:
  DType m_dtype = DType::Float32;
  std::variant<std::vector<float>, std::vector<std::int64_t>, std::vector<std::int32_t>,
               std::vector<std::int8_t>, std::vector<std::uint8_t>>
      m_storage;
};

}  // namespace npu::compiler
