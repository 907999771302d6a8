// fp32 reductions with ONNX semantics: ReduceMean/Sum/Max/Min/L1/L2/SumSquare/LogSumExp/Prod,
// ArgMax and ArgMin.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "npu/golden/float_tensor.h"

namespace npu::golden {

/// What a Reduce* op computes over the reduced elements.
enum class ReduceKind : std::uint8_t { Mean, Sum, Max, Min, L1, L2, SumSquare, LogSumExp, Prod };

/// ONNX Reduce*: reduces `x` over `axes` (negative counts from the end; duplicates are an error).
/// An empty `axes` reduces every axis (the caller applies noop_with_empty_axes). With `keepDims`
/// the reduced axes stay as size 1. Sums accumulate in double, so the result does not depend on
/// the order of the elements.
FloatTensor reduce(const FloatTensor& x, ReduceKind kind, std::span<const std::int64_t> axes,
                   bool keepDims);

/// The output shape of reduce() (shared with shape inference); throws Error naming `op` on a bad
/// axis.
std::vector<std::int64_t> reducedShape(std::span<const std::int64_t> shape,
                                       std::span<const std::int64_t> axes, bool keepDims,
                                       std::string_view op);

/// Indices along one axis, the result of ArgMax/ArgMin.
struct IndexResult {
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> indices;
};

/// ONNX ArgMax (`max`) or ArgMin along `axis`; ties pick the first index unless `selectLastIndex`.
/// NaN compares as neither larger nor smaller.
IndexResult argExtreme(const FloatTensor& x, std::int64_t axis, bool keepDims, bool selectLastIndex,
                       bool max);

}  // namespace npu::golden
