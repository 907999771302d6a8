// int8 row reductions: one plain loop per row over the formulas of docs/numerics.md.
#include "npu/golden/int8_reduce.h"

#include <algorithm>

#include "npu/support/error.h"

namespace npu::golden {
namespace {

/// Rows and their length: every axis but the last, and the last. Errors name `op`.
std::pair<std::int64_t, std::int64_t> rowsOf(const Int8Tensor& x, const char* op) {
  checkConsistent(x, op);
  if (x.rank() < 1 || x.shape.back() < 1) {
    fail("{}: the input needs a non-empty last axis", op);
  }
  const std::int64_t length = x.shape.back();
  return {static_cast<std::int64_t>(x.data.size()) / length, length};
}

std::vector<std::int64_t> keptShape(const Int8Tensor& x) {
  std::vector<std::int64_t> shape = x.shape;
  shape.back() = 1;
  return shape;
}

}  // namespace

Int8Tensor reduceMaxLastAxisInt8(const Int8Tensor& x) {
  const auto [rows, length] = rowsOf(x, "reduceMaxLastAxisInt8");
  Int8Tensor y = makeInt8Tensor(keptShape(x));
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int8_t best = x.data[static_cast<std::size_t>(r * length)];
    for (std::int64_t k = 1; k < length; ++k) {
      best = std::max(best, x.data[static_cast<std::size_t>(r * length + k)]);
    }
    y.data[static_cast<std::size_t>(r)] = best;
  }
  return y;
}

Int8Tensor reduceSumLastAxisInt8(const Int8Tensor& x, const ReduceSumInt8Params& p) {
  const char* op = "reduceSumLastAxisInt8";
  const auto [rows, length] = rowsOf(x, op);
  if (p.inputZeroPoint < -128 || p.inputZeroPoint > 127) {
    fail("{}: zero point {} is outside [-128, 127]", op, p.inputZeroPoint);
  }
  checkQuantizedMultiplier(p.multiplier, op);
  checkOutputStage(p.output, op);
  Int8Tensor y = makeInt8Tensor(keptShape(x));
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t sum = 0;
    for (std::int64_t k = 0; k < length; ++k) {
      sum += std::int64_t{x.data[static_cast<std::size_t>(r * length + k)]} - p.inputZeroPoint;
    }
    const auto acc = static_cast<std::int32_t>(static_cast<std::uint32_t>(sum));
    y.data[static_cast<std::size_t>(r)] =
        finishOutput(requantize(acc, p.multiplier, p.output.rounding), p.output);
  }
  return y;
}

}  // namespace npu::golden
