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

/// Calls visit(n, ia, ib) for every element n of the row-major `out` shape with the flat indices
/// ia and ib it reads of `a` and `b` under numpy broadcasting: one odometer walk with per-input
/// strides. Shared by the fp32 and int8 element-wise ops.
template <typename Visit>
void walkBroadcast(std::span<const std::int64_t> out, std::span<const std::int64_t> a,
                   std::span<const std::int64_t> b, Visit visit) {
  const std::size_t rank = out.size();
  const std::vector<std::int64_t> sa = broadcastStrides(a, rank);
  const std::vector<std::int64_t> sb = broadcastStrides(b, rank);
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t ia = 0;
  std::int64_t ib = 0;
  const std::int64_t count = elementCount(out);
  for (std::int64_t n = 0; n < count; ++n) {
    visit(static_cast<std::size_t>(n), static_cast<std::size_t>(ia), static_cast<std::size_t>(ib));
    for (std::size_t d = rank; d-- > 0;) {
      ++index[d];
      ia += sa[d];
      ib += sb[d];
      if (index[d] < out[d]) {
        break;
      }
      ia -= sa[d] * index[d];
      ib -= sb[d] * index[d];
      index[d] = 0;
    }
  }
}

/// fn(a, b) element by element with numpy broadcasting. Errors name `op`.
template <typename Fn>
FloatTensor broadcastBinary(const FloatTensor& a, const FloatTensor& b, std::string_view op,
                            Fn fn) {
  checkConsistent(a, op);
  checkConsistent(b, op);
  FloatTensor y = makeFloatTensor(broadcastShapes(a.shape, b.shape, op));
  if (a.shape == b.shape) {  // the common case, without the odometer
    for (std::size_t i = 0; i < y.data.size(); ++i) {
      y.data[i] = fn(a.data[i], b.data[i]);
    }
    return y;
  }
  walkBroadcast(y.shape, a.shape, b.shape, [&](std::size_t n, std::size_t ia, std::size_t ib) {
    y.data[n] = fn(a.data[ia], b.data[ib]);
  });
  return y;
}

}  // namespace npu::golden::detail
