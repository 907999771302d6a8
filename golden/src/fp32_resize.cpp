// fp32 nearest Resize: per-axis source index tables, then one gather.
#include "npu/golden/fp32_resize.h"

#include <algorithm>
#include <cmath>

#include "npu/support/error.h"

namespace npu::golden {

std::int64_t nearestSourceIndex(std::int64_t outIndex, std::int64_t inLength,
                                std::int64_t outLength, float scale, CoordinateTransform transform,
                                NearestMode mode) {
  const auto xo = static_cast<float>(outIndex);
  float xi = 0.0F;
  switch (transform) {
    case CoordinateTransform::HalfPixel:
      xi = (xo + 0.5F) / scale - 0.5F;
      break;
    case CoordinateTransform::PytorchHalfPixel:
      xi = outLength > 1 ? (xo + 0.5F) / scale - 0.5F : 0.0F;
      break;
    case CoordinateTransform::AlignCorners:
      xi = outLength == 1
               ? 0.0F
               : xo * static_cast<float>(inLength - 1) / static_cast<float>(outLength - 1);
      break;
    case CoordinateTransform::Asymmetric:
      xi = xo / scale;
      break;
    case CoordinateTransform::TfHalfPixelForNn:
      xi = (xo + 0.5F) / scale;
      break;
  }
  float rounded = 0.0F;
  switch (mode) {
    case NearestMode::RoundPreferFloor:
      rounded = xi == std::floor(xi) + 0.5F ? std::floor(xi) : std::round(xi);
      break;
    case NearestMode::RoundPreferCeil:
      rounded = xi == std::floor(xi) + 0.5F ? std::ceil(xi) : std::round(xi);
      break;
    case NearestMode::Floor:
      rounded = std::floor(xi);
      break;
    case NearestMode::Ceil:
      rounded = std::ceil(xi);
      break;
  }
  return std::clamp(static_cast<std::int64_t>(rounded), std::int64_t{0}, inLength - 1);
}

std::vector<std::vector<std::int64_t>> nearestSourceTables(std::span<const std::int64_t> inShape,
                                                           const ResizeParams& params) {
  const std::size_t rank = inShape.size();
  const bool byScales = !params.scales.empty();
  if (byScales == !params.sizes.empty()) {
    fail("resizeNearest: exactly one of scales and sizes must be given");
  }
  if ((byScales ? params.scales.size() : params.sizes.size()) != rank) {
    fail("resizeNearest: {} needs {} entries for input {}", byScales ? "scales" : "sizes", rank,
         shapeString(inShape));
  }
  std::vector<std::vector<std::int64_t>> source(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t in = inShape[d];
    std::int64_t out = 0;
    float scale = 0.0F;
    if (byScales) {
      scale = params.scales[d];
      if (!(scale > 0.0F)) {
        fail("resizeNearest: scale {} on axis {} must be positive", scale, d);
      }
      out = static_cast<std::int64_t>(std::floor(static_cast<float>(in) * scale));
    } else {
      out = params.sizes[d];
      if (out < 1 || in < 1) {
        fail("resizeNearest: size {} on axis {} of {} must be positive", out, d,
             shapeString(inShape));
      }
      scale = static_cast<float>(out) / static_cast<float>(in);
    }
    if (in == 0 && out > 0) {
      fail("resizeNearest: cannot resize the empty axis {}", d);
    }
    for (std::int64_t o = 0; o < out; ++o) {
      source[d].push_back(
          nearestSourceIndex(o, in, out, scale, params.coordinateTransform, params.nearestMode));
    }
  }
  return source;
}

FloatTensor resizeNearest(const FloatTensor& x, const ResizeParams& params) {
  checkConsistent(x, "resizeNearest");
  const std::size_t rank = x.shape.size();
  const std::vector<std::vector<std::int64_t>> source = nearestSourceTables(x.shape, params);
  std::vector<std::int64_t> outShape(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    outShape[d] = static_cast<std::int64_t>(source[d].size());
  }
  FloatTensor y = makeFloatTensor(outShape);
  const std::vector<std::int64_t> inStrides = stridesOf(x.shape);
  std::vector<std::int64_t> index(rank, 0);
  for (float& out : y.data) {
    std::int64_t at = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      at += source[d][static_cast<std::size_t>(index[d])] * inStrides[d];
    }
    out = x.data[static_cast<std::size_t>(at)];
    for (std::size_t d = rank; d-- > 0;) {
      if (++index[d] < outShape[d]) {
        break;
      }
      index[d] = 0;
    }
  }
  return y;
}

}  // namespace npu::golden
