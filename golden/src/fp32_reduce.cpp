// fp32 reductions: each output element's inputs are gathered, then reduced in double.
#include "npu/golden/fp32_reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "axis_lines.h"
#include "npu/support/error.h"

namespace npu::golden {
namespace {

/// Which axes of `shape` are reduced: the listed ones (normalised; a repeat is an error), or all
/// of them when `axes` is empty.
std::vector<bool> reducedAxes(std::span<const std::int64_t> shape,
                              std::span<const std::int64_t> axes, std::string_view op) {
  const auto rank = static_cast<std::int64_t>(shape.size());
  std::vector<bool> reduced(shape.size(), axes.empty());
  for (std::int64_t axis : axes) {
    const auto a = static_cast<std::size_t>(normalizeAxis(axis, rank, op));
    if (reduced[a]) {
      fail("{}: axes {} repeat axis {}", op, shapeString(axes), a);
    }
    reduced[a] = true;
  }
  return reduced;
}

/// Max (`max`) or min of `values`: NaN if any is NaN, -inf / +inf when there are none.
double extreme(std::span<const float> values, bool max) {
  double best =
      max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  for (float v : values) {
    if (std::isnan(v)) {
      return std::numeric_limits<double>::quiet_NaN();
    }
    best = max ? std::max<double>(best, v) : std::min<double>(best, v);
  }
  return best;
}

/// One output element of reduce(). An empty set gives ONNX's identities: 0 for the sums, 1 for
/// Prod, -inf for Max and LogSumExp, +inf for Min; NaN for Mean (ONNX leaves it undefined).
double reduceValues(std::span<const float> values, ReduceKind kind) {
  double sum = 0.0;
  switch (kind) {
    case ReduceKind::Sum:
      for (float v : values) {
        sum += v;
      }
      return sum;
    case ReduceKind::Mean:
      if (values.empty()) {
        return std::numeric_limits<double>::quiet_NaN();
      }
      return reduceValues(values, ReduceKind::Sum) / static_cast<double>(values.size());
    case ReduceKind::Max:
      return extreme(values, true);
    case ReduceKind::Min:
      return extreme(values, false);
    case ReduceKind::L1:
      for (float v : values) {
        sum += std::abs(static_cast<double>(v));
      }
      return sum;
    case ReduceKind::L2:
      return std::sqrt(reduceValues(values, ReduceKind::SumSquare));
    case ReduceKind::SumSquare:
      for (float v : values) {
        sum += static_cast<double>(v) * v;
      }
      return sum;
    case ReduceKind::LogSumExp: {
      // Shifted by the peak so exp cannot overflow; an infinite or NaN peak is the answer itself.
      const double peak = extreme(values, true);
      if (!std::isfinite(peak)) {
        return peak;
      }
      for (float v : values) {
        sum += std::exp(v - peak);
      }
      return peak + std::log(sum);
    }
    case ReduceKind::Prod: {
      double product = 1.0;
      for (float v : values) {
        product *= v;
      }
      return product;
    }
  }
  fail("reduce: unknown kind {}", static_cast<int>(kind));
}

}  // namespace

std::vector<std::int64_t> reducedShape(std::span<const std::int64_t> shape,
                                       std::span<const std::int64_t> axes, bool keepDims,
                                       std::string_view op) {
  const std::vector<bool> reduced = reducedAxes(shape, axes, op);
  std::vector<std::int64_t> out;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(shape[d]);
    } else if (keepDims) {
      out.push_back(1);
    }
  }
  return out;
}

FloatTensor reduce(const FloatTensor& x, ReduceKind kind, std::span<const std::int64_t> axes,
                   bool keepDims) {
  checkConsistent(x, "reduce");
  const std::vector<bool> reduced = reducedAxes(x.shape, axes, "reduce");
  // Computed with the reduced axes kept as 1, whose row-major order is also that of the output
  // without them; a reduced axis contributes nothing to the output index.
  const std::vector<std::int64_t> keptShape = reducedShape(x.shape, axes, true, "reduce");
  std::vector<std::int64_t> outStrides = stridesOf(keptShape);
  for (std::size_t d = 0; d < reduced.size(); ++d) {
    if (reduced[d]) {
      outStrides[d] = 0;
    }
  }
  std::vector<std::vector<float>> groups(static_cast<std::size_t>(elementCount(keptShape)));
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    auto rest = static_cast<std::int64_t>(i);
    std::int64_t at = 0;
    for (std::size_t d = x.shape.size(); d-- > 0;) {
      at += rest % x.shape[d] * outStrides[d];
      rest /= x.shape[d];
    }
    groups[static_cast<std::size_t>(at)].push_back(x.data[i]);
  }
  FloatTensor y{reducedShape(x.shape, axes, keepDims, "reduce"), {}};
  for (const std::vector<float>& group : groups) {
    y.data.push_back(static_cast<float>(reduceValues(group, kind)));
  }
  return y;
}

IndexResult argExtreme(const FloatTensor& x, std::int64_t axis, bool keepDims, bool selectLastIndex,
                       bool max) {
  const std::string_view op = max ? "argMax" : "argMin";
  checkConsistent(x, op);
  const std::int64_t a = normalizeAxis(axis, x.rank(), op);
  const detail::AxisLines lines = detail::axisLines(x.shape, a);
  if (lines.len == 0) {
    fail("{}: axis {} of {} is empty", op, axis, shapeString(x.shape));
  }
  const std::int64_t axes[] = {a};
  IndexResult result{reducedShape(x.shape, axes, keepDims, op), {}};
  for (std::int64_t line = 0; line < lines.count(); ++line) {
    const auto at = [&](std::int64_t k) { return x.data[lines.at(line, k)]; };
    // Plain comparisons: a NaN is never better than anything, nor anything better than it.
    std::int64_t best = 0;
    for (std::int64_t k = 1; k < lines.len; ++k) {
      const bool better = max ? at(k) > at(best) : at(k) < at(best);
      if (better || (selectLastIndex && at(k) == at(best))) {
        best = k;
      }
    }
    result.indices.push_back(best);
  }
  return result;
}

}  // namespace npu::golden
