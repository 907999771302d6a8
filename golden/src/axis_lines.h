// Internal to golden/src: a tensor seen as lines along one axis, for ops that work along an axis
// (Softmax, LogSoftmax, ArgMax, ArgMin).
#pragma once

#include <cstdint>
#include <span>

#include "npu/golden/float_tensor.h"

namespace npu::golden::detail {

/// A row-major shape viewed as [outer, len, inner] around one axis: `count()` lines of `len`
/// elements each, element k of line l at flat index at(l, k).
struct AxisLines {
  std::int64_t outer = 1;  ///< product of the dimensions before the axis
  std::int64_t len = 1;    ///< the axis's own size
  std::int64_t inner = 1;  ///< product of the dimensions after the axis

  /// Number of lines (outer * inner).
  std::int64_t count() const { return outer * inner; }

  /// Flat index of element k of line `line`.
  std::size_t at(std::int64_t line, std::int64_t k) const {
    return static_cast<std::size_t>((line / inner * len + k) * inner + line % inner);
  }
};

/// The lines of `shape` along `axis`, which must already be normalised (0 <= axis < rank).
inline AxisLines axisLines(std::span<const std::int64_t> shape, std::int64_t axis) {
  const auto split = static_cast<std::size_t>(axis);
  return AxisLines{elementCount(shape.first(split)), shape[split],
                   elementCount(shape.subspan(split + 1))};
}

}  // namespace npu::golden::detail
