// fp32 2-D convolution and transposed convolution with ONNX Conv / ConvTranspose semantics.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

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
/// Computed by a one-shot Conv2dLayer (oneDNN; within rounding of plain::conv2d).
FloatTensor conv2d(const FloatTensor& x, const FloatTensor& w, std::span<const float> bias,
                   const Conv2dParams& params);

/// conv2d prepared once for one input shape and run on many inputs: the checks, the oneDNN
/// primitive and the weights in its layout are made at construction. oneDNN sums in its own order
/// with fused multiply-adds, so results differ from the plain loops (plain::conv2d) by rounding
/// only (docs/numerics.md "How the golden computes" states the tolerance the tests hold). Copies
/// share the prepared state; run() may be called from several threads at once.
class Conv2dLayer {
 public:
  /// `inputShape` is NCHW; throws Error as conv2d does.
  Conv2dLayer(std::vector<std::int64_t> inputShape, const FloatTensor& w,
              std::span<const float> bias, const Conv2dParams& params);

  /// conv2d(x, w, bias, params) for an x of the prepared shape (throws Error otherwise).
  FloatTensor run(const FloatTensor& x) const;

  const std::vector<std::int64_t>& inputShape() const;

  /// The prepared state (oneDNN primitives, weights in its layout).
  struct Prepared;

 private:
  std::shared_ptr<const Prepared> m_prepared;
};

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
