// Internal to golden/src: the element-wise walks every fp32 element-wise op is built from.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "npu/golden/float_tensor.h"
#include "npu/golden/fp32_elementwise.h"

namespace npu::golden::detail {

/// `fn` applied to every element of `x`; errors name `op`.
template <typename Fn>
FloatTensor mapElements(const FloatTensor& x, std::string_view op, Fn fn) {
  checkConsistent(x, op);
  FloatTensor y{x.shape, std::vector<float>(x.data.size())};
  std::transform(x.data.begin(), x.data.end(), y.data.begin(), fn);
  return y;
}

/// Strides of `shape` aligned right against a rank-`rank` output, 0 along broadcast dimensions.
inline std::vector<std::int64_t> broadcastStrides(std::span<const std::int64_t> shape,
                                                  std::size_t rank) {
  std::vector<std::int64_t> strides(rank, 0);
  const std::vector<std::int64_t> own = stridesOf(shape);
  const std::size_t offset = rank - shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    strides[offset + i] = shape[i] == 1 ? 0 : own[i];
  }
  return strides;
}

/// fn(a, b) element by element with numpy broadcasting: one odometer walk over the output with
/// per-input strides. Errors name `op`.
template <typename Fn>
FloatTensor broadcastBinary(const FloatTensor& a, const FloatTensor& b, std::string_view op,
                            Fn fn) {
  checkConsistent(a, op);
  checkConsistent(b, op);
  FloatTensor y = makeFloatTensor(broadcastShapes(a.shape, b.shape, op));
  const std::size_t rank = y.shape.size();
  if (a.shape == b.shape) {
    for (std::size_t i = 0; i < y.data.size(); ++i) {
      y.data[i] = fn(a.data[i], b.data[i]);
    }
    return y;
  }
  const std::vector<std::int64_t> sa = broadcastStrides(a.shape, rank);
  const std::vector<std::int64_t> sb = broadcastStrides(b.shape, rank);
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t ia = 0, ib = 0;
  for (float& out : y.data) {
    out = fn(a.data[static_cast<std::size_t>(ia)], b.data[static_cast<std::size_t>(ib)]);
    for (std::size_t d = rank; d-- > 0;) {
      ++index[d];
      ia += sa[d];
      ib += sb[d];
      if (index[d] < y.shape[d]) {
        break;
      }
      ia -= sa[d] * index[d];
      ib -= sb[d] * index[d];
      index[d] = 0;
    }
  }
  return y;
}

}  // namespace npu::golden::detail
