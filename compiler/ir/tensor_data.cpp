// TensorData: typed element storage and conversions.
#include "npu/compiler/ir/tensor_data.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "npu/support/error.h"

namespace npu::compiler {
namespace {

template <typename T>
std::span<const T> viewAs(const auto& storage, DType actual, DType wanted) {
  const auto* values = std::get_if<std::vector<T>>(&storage);
  if (values == nullptr ||
      (actual != wanted && !(wanted == DType::UInt8 && actual == DType::Bool))) {
    fail("tensor data is {}, not {}", dtypeName(actual), dtypeName(wanted));
  }
  return *values;
}

template <typename To>
std::vector<To> convertAll(const auto& storage) {
  return std::visit(
      [](const auto& values) {
        using From = typename std::decay_t<decltype(values)>::value_type;
        std::vector<To> out;
        out.reserve(values.size());
        for (auto v : values) {
          if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
            // A float outside the integer's range (or NaN) has no conversion: undefined
            // behaviour in C++, an error here. 2^digits is exact in double.
            const double lowest = static_cast<double>(std::numeric_limits<To>::min());
            const double end = std::ldexp(1.0, std::numeric_limits<To>::digits);
            if (!(static_cast<double>(v) >= lowest && static_cast<double>(v) < end)) {
              fail("value {} does not fit the integer type it is converted to", v);
            }
          }
          out.push_back(static_cast<To>(v));
        }
        return out;
      },
      storage);
}

}  // namespace

TensorData TensorData::zeros(DType dtype, std::int64_t count) {
  const auto n = static_cast<std::size_t>(count);
  switch (dtype) {
    case DType::Float32:
      return TensorData(std::vector<float>(n, 0.0F));
    case DType::Int64:
      return TensorData(std::vector<std::int64_t>(n, 0));
    case DType::Int32:
      return TensorData(std::vector<std::int32_t>(n, 0));
    case DType::Int8:
      return TensorData(std::vector<std::int8_t>(n, 0));
    case DType::UInt8:
    case DType::Bool:
      return TensorData(std::vector<std::uint8_t>(n, 0), dtype);
  }
  return {};
}

std::int64_t TensorData::size() const {
  return std::visit([](const auto& values) { return static_cast<std::int64_t>(values.size()); },
                    m_storage);
}

std::span<const float> TensorData::floats() const {
  return viewAs<float>(m_storage, m_dtype, DType::Float32);
}
std::span<const std::int64_t> TensorData::int64s() const {
  return viewAs<std::int64_t>(m_storage, m_dtype, DType::Int64);
}
std::span<const std::int32_t> TensorData::int32s() const {
  return viewAs<std::int32_t>(m_storage, m_dtype, DType::Int32);
}
std::span<const std::int8_t> TensorData::int8s() const {
  return viewAs<std::int8_t>(m_storage, m_dtype, DType::Int8);
}
std::span<const std::uint8_t> TensorData::bytes() const {
  return viewAs<std::uint8_t>(m_storage, m_dtype, DType::UInt8);
}

std::vector<float>& TensorData::mutableFloats() {
  if (m_dtype != DType::Float32) {
    fail("tensor data is {}, not f32", dtypeName(m_dtype));
  }
  return std::get<std::vector<float>>(m_storage);
}

std::vector<std::int64_t>& TensorData::mutableInt64s() {
  if (m_dtype != DType::Int64) {
    fail("tensor data is {}, not i64", dtypeName(m_dtype));
  }
  return std::get<std::vector<std::int64_t>>(m_storage);
}

std::vector<std::int64_t> TensorData::toInt64() const {
  if (m_dtype == DType::Float32) {
    fail("expected integer data, got f32");
  }
  return convertAll<std::int64_t>(m_storage);
}

std::vector<float> TensorData::toFloat() const {
  return convertAll<float>(m_storage);
}

TensorData TensorData::castTo(DType dtype) const {
  switch (dtype) {
    case DType::Float32:
      return TensorData(convertAll<float>(m_storage));
    case DType::Int64:
      return TensorData(convertAll<std::int64_t>(m_storage));
    case DType::Int32:
      return TensorData(convertAll<std::int32_t>(m_storage));
    case DType::Int8:
      return TensorData(convertAll<std::int8_t>(m_storage));
    case DType::UInt8:
      return TensorData(convertAll<std::uint8_t>(m_storage), DType::UInt8);
    case DType::Bool: {
      std::vector<float> asFloat = toFloat();
      std::vector<std::uint8_t> out(asFloat.size());
      for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = asFloat[i] != 0.0F ? 1 : 0;
      }
      return TensorData(std::move(out), DType::Bool);
    }
  }
  return {};
}

TensorData TensorData::gather(std::span<const std::int64_t> indices) const {
  TensorData out;
  out.m_dtype = m_dtype;
  out.m_storage = std::visit(
      [&](const auto& values) -> decltype(m_storage) {
        std::decay_t<decltype(values)> picked;
        picked.reserve(indices.size());
        for (std::int64_t i : indices) {
          picked.push_back(values.at(static_cast<std::size_t>(i)));
        }
        return picked;
      },
      m_storage);
  return out;
}

void TensorData::append(const TensorData& other) {
  if (other.m_dtype != m_dtype) {
    fail("cannot append {} data to {} data", dtypeName(other.m_dtype), dtypeName(m_dtype));
  }
  std::visit(
      [&](auto& values) {
        const auto& more = std::get<std::decay_t<decltype(values)>>(other.m_storage);
        values.insert(values.end(), more.begin(), more.end());
      },
      m_storage);
}

}  // namespace npu::compiler
