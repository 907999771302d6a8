// fp32 ONNX Resize in nearest and linear modes, over any rank.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "npu/golden/float_tensor.h"

namespace npu::golden {

/// ONNX Resize modes supported.
enum class ResizeMode : std::uint8_t {
  Nearest,  ///< the nearest input element (nearest_mode rounds the coordinate)
  Linear,   ///< n-linear interpolation between the two neighbours on each resized axis
};

/// ONNX Resize coordinate_transformation_mode values.
enum class CoordinateTransform : std::uint8_t {
  HalfPixel,         ///< x_in = (x_out + 0.5) / scale - 0.5 (ONNX default)
  PytorchHalfPixel,  ///< as HalfPixel, but 0 when the output length is 1
  AlignCorners,      ///< x_in = x_out * (in - 1) / (out - 1), 0 when out is 1
  Asymmetric,        ///< x_in = x_out / scale (PyTorch/TF "nearest")
  TfHalfPixelForNn,  ///< x_in = (x_out + 0.5) / scale
};

/// ONNX Resize nearest_mode values.
enum class NearestMode : std::uint8_t {
  RoundPreferFloor,  ///< round, halves down (ONNX default)
  RoundPreferCeil,   ///< round, halves up
  Floor,
  Ceil,
};

/// Inputs and attributes of ONNX Resize. Exactly one of `scales` and `sizes` is non-empty and has
/// one entry per dimension.
struct ResizeParams {
  ResizeMode mode = ResizeMode::Nearest;
  std::vector<float> scales;
  std::vector<std::int64_t> sizes;
  CoordinateTransform coordinateTransform = CoordinateTransform::HalfPixel;
  NearestMode nearestMode = NearestMode::RoundPreferFloor;
};

/// ONNX Resize, mode "nearest". With scales, out = floor(in * scale); with sizes, out = size and
/// scale = out / in. Each output coordinate maps to an input coordinate by the transform (in
/// float arithmetic, as onnxruntime), is rounded by the nearest mode and clamped to [0, in - 1].
/// Integer and non-integer scales, up and down, are supported; extrapolation and the
/// tf_crop_and_resize mode are not.
FloatTensor resizeNearest(const FloatTensor& x, const ResizeParams& params);

/// ONNX Resize, mode "linear": the output sizes as resizeNearest; each output coordinate maps to
/// a continuous input coordinate by the transform, clamped to [0, in - 1], and the value is
/// interpolated between the two neighbouring input elements, axis after axis (n-linear is
/// separable). An axis whose size and scale stay 1:1 is copied.
FloatTensor resizeLinear(const FloatTensor& x, const ResizeParams& params);

/// The continuous input coordinate of output index `outIndex` under `transform` (float
/// arithmetic, as onnxruntime), before any rounding or clamping.
float sourceCoordinate(std::int64_t outIndex, std::int64_t inLength, std::int64_t outLength,
                       float scale, CoordinateTransform transform);

/// For each axis, the input index every output index reads (the output shape is the table
/// sizes). Shared by resizeNearest and resizeNearestInt8; throws Error on bad parameters.
std::vector<std::vector<std::int64_t>> nearestSourceTables(std::span<const std::int64_t> inShape,
                                                           const ResizeParams& params);

/// The source index along one axis (exposed so the int8 upsample and tests share the rule).
std::int64_t nearestSourceIndex(std::int64_t outIndex, std::int64_t inLength,
                                std::int64_t outLength, float scale, CoordinateTransform transform,
                                NearestMode mode);

}  // namespace npu::golden
