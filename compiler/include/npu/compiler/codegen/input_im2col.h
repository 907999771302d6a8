// First-layer im2col at the input border. A conv with few input channels (an RGB stem: 3 of the
// array's 16 or 32 rows) wastes most of the MAC array. When such a conv is the only reader of a
// graph input, the host, which quantizes that input anyway, also lays it out as im2col columns
// (each output pixel holds its kH*kW*C window), and the NPU runs a 1x1 conv with kH*kW*C input
// channels: the same products and sums, so the result is bit-identical (as NVDLA's image-input
// mode and many NPU compilers treat the first layer).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "npu/compiler/quant/quantized_graph.h"
#include "npu/compiler/target/im2col_candidate.h"

namespace npu::compiler {

/// How one graph input is rearranged: the window geometry of the conv that reads it.
struct InputIm2col {
  std::array<std::int64_t, 2> kernel{1, 1};
  std::array<std::int64_t, 2> strides{1, 1};
  std::array<std::int64_t, 2> dilations{1, 1};
  /// Top, left, bottom, right.
  std::array<std::int64_t, 4> pads{0, 0, 0, 0};
  /// Padding positions hold the input zero point.
  std::int32_t zeroPoint = 0;
};

/// Rewrites every candidate conv of `graph` (groups 1, kernel larger than 1x1, reading a graph
/// input that nothing else reads) into a 1x1 conv over the im2col input, and changes that input's
/// shape to [1, oH, oW, kH*kW*C]. Returns, per graph input, the rearrangement now expected.
std::vector<std::optional<InputIm2col>> im2colGraphInputs(QuantizedGraph& graph);

/// The im2col form of an NHWC int8 tensor [1, H, W, C]: [1, oH, oW, kH*kW*C] with element
/// (kh*kW + kw)*C + c of pixel (oh, ow) = x[oh*sH + kh*dH - top][ow*sW + kw*dW - left][c], or the
/// zero point outside x.
golden::Int8Tensor im2colInput(const golden::Int8Tensor& x, const InputIm2col& p);

}  // namespace npu::compiler
