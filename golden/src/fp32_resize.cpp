// fp32 Resize: nearest (per-axis source index tables, then one gather) and linear (axis after
// axis interpolation).
#include "npu/golden/fp32_resize.h"

#include <algorithm>
#include <cmath>

#include "npu/support/error.h"

namespace npu::golden {

float sourceCoordinate(std::int64_t outIndex, std::int64_t inLength, std::int64_t outLength,
                       float scale, CoordinateTransform transform) {
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
  return xi;
}

std::int64_t nearestSourceIndex(std::int64_t outIndex, std::int64_t inLength,
                                std::int64_t outLength, float scale, CoordinateTransform transform,
                                NearestMode mode) {
  const float xi = sourceCoordinate(outIndex, inLength, outLength, scale, transform);
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

namespace {

/// One axis of a resize: its output length and scale.
struct ResizedAxis {
  std::int64_t out = 0;
  float scale = 1.0F;
};

/// Every axis's output length and scale from `scales` or `sizes`; throws Error on bad parameters.
std::vector<ResizedAxis> resizedAxes(std::span<const std::int64_t> inShape,
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
  std::vector<ResizedAxis> axes(rank);
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
    axes[d] = {out, scale};
  }
  return axes;
}

}  // namespace

std::vector<std::vector<std::int64_t>> nearestSourceTables(std::span<const std::int64_t> inShape,
                                                           const ResizeParams& params) {
  const std::vector<ResizedAxis> axes = resizedAxes(inShape, params);
  std::vector<std::vector<std::int64_t>> source(axes.size());
  for (std::size_t d = 0; d < axes.size(); ++d) {
    for (std::int64_t o = 0; o < axes[d].out; ++o) {
      source[d].push_back(nearestSourceIndex(o, inShape[d], axes[d].out, axes[d].scale,
                                             params.coordinateTransform, params.nearestMode));
    }
  }
  return source;
}

FloatTensor resizeLinear(const FloatTensor& x, const ResizeParams& params) {
  checkConsistent(x, "resizeLinear");
  const std::vector<ResizedAxis> axes = resizedAxes(x.shape, params);
  FloatTensor current = x;
  for (std::size_t d = 0; d < axes.size(); ++d) {
    const std::int64_t in = current.shape[d];
    const std::int64_t out = axes[d].out;
    if (out == in && axes[d].scale == 1.0F) {
      continue;
    }
    std::int64_t outer = 1;
    std::int64_t inner = 1;
    for (std::size_t k = 0; k < current.shape.size(); ++k) {
      (k < d ? outer : inner) *= k == d ? 1 : current.shape[k];
    }
    std::vector<std::int64_t> shape = current.shape;
    shape[d] = out;
    FloatTensor next = makeFloatTensor(shape);
    for (std::int64_t o = 0; o < out; ++o) {
      const float xi =
          std::clamp(sourceCoordinate(o, in, out, axes[d].scale, params.coordinateTransform), 0.0F,
                     static_cast<float>(in - 1));
      const auto i0 = static_cast<std::int64_t>(std::floor(xi));
      const std::int64_t i1 = std::min(i0 + 1, in - 1);
      const float w = xi - static_cast<float>(i0);
      for (std::int64_t a = 0; a < outer; ++a) {
        const float* lo = &current.data[static_cast<std::size_t>((a * in + i0) * inner)];
        const float* hi = &current.data[static_cast<std::size_t>((a * in + i1) * inner)];
        float* y = &next.data[static_cast<std::size_t>((a * out + o) * inner)];
        for (std::int64_t i = 0; i < inner; ++i) {
          y[i] = (1.0F - w) * lo[i] + w * hi[i];
        }
      }
    }
    current = std::move(next);
  }
  return current;
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
