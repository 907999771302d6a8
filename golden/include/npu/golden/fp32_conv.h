// fp32 2-D convolution and transposed convolution with ONNX Conv / ConvTranspose semantics.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "npu/golden/float_tensor.h"

namespace npu::golden {

/// Attributes of ONNX Conv for 2-D inputs. auto_pad must be resolved into `pads` by the caller.
struct Conv2dParams {
  /// Vertical, horizontal.
  std::array<std::int64_t, 2> strides{1, 1};
  /// Vertical, horizontal.
  std::array<std::int64_t, 2> dilations{1, 1};
  /// ONNX order: top, left, bottom, right.
  std::array<std::int64_t, 4> pads{0, 0, 0, 0};
  std::int64_t group = 1;
};

/// ONNX Conv: x [N, C, H, W], w [M, C/group, kH, kW], optional bias [M] (empty span for none).
/// Output [N, M, floor((H + top + bottom - dH*(kH-1) - 1) / sH) + 1, ...]. Padding reads 0.
FloatTensor conv2d(const FloatTensor& x, const FloatTensor& w, std::span<const float> bias,
                   const Conv2dParams& params);

/// Attributes of ONNX ConvTranspose for 2-D inputs. An `output_shape` attribute must be turned
/// into `pads` and `outputPadding` by the caller.
struct ConvTranspose2dParams {
  std::array<std::int64_t, 2> strides{1, 1};
  std::array<std::int64_t, 2> dilations{1, 1};
  /// ONNX order: top, left, bottom, right; they crop the full output.
  std::array<std::int64_t, 4> pads{0, 0, 0, 0};
  /// Extra rows/columns added at the bottom/right of the output.
  std::array<std::int64_t, 2> outputPadding{0, 0};
  std::int64_t group = 1;
};

/// ONNX ConvTranspose: x [N, C, H, W], w [C, M/group, kH, kW], optional bias [M]. Output
/// [N, M, sH*(H-1) + outputPadding + dH*(kH-1) + 1 - top - bottom, ...].
FloatTensor convTranspose2d(const FloatTensor& x, const FloatTensor& w, std::span<const float> bias,
                            const ConvTranspose2dParams& params);

}  // namespace npu::golden
