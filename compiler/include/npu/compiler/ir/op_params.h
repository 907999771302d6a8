// The attributes of Conv, ConvTranspose, pooling and Resize nodes resolved against input shapes
// (defaults filled in, auto_pad turned into pads), as the golden ops take them.
#pragma once

#include <cstdint>
#include <span>

#include "npu/compiler/ir/graph.h"
#include "npu/golden/fp32_conv.h"
#include "npu/golden/fp32_pool.h"
#include "npu/golden/fp32_resize.h"

namespace npu::compiler {

/// Conv on x [N, C, H, W] with weights w [M, C/group, kH, kW]; throws Error on a bad attribute.
golden::Conv2dParams convParams(const Node& node, std::span<const std::int64_t> x,
                                std::span<const std::int64_t> w);

/// ConvTranspose on x [N, C, H, W] with weights w [C, M/group, kH, kW]; an output_shape
/// attribute is turned into pads and output padding.
golden::ConvTranspose2dParams convTransposeParams(const Node& node, std::span<const std::int64_t> x,
                                                  std::span<const std::int64_t> w);

/// MaxPool or AveragePool on x [N, C, H, W].
golden::Pool2dParams poolParams(const Node& node, std::span<const std::int64_t> x);

/// Resize (mode nearest only) of x with its scales or sizes input data (one of them empty).
golden::ResizeParams resizeParams(const Node& node, std::span<const std::int64_t> x,
                                  std::span<const float> scales,
                                  std::span<const std::int64_t> sizes);

/// The epilogue activation fused into a Conv or Add by fuseActivations: the attribute
/// "activation" names the op (Relu, Clip, LeakyRelu, Sigmoid, Tanh, HardSigmoid, HardSwish,
/// Silu, Gelu) and "activation_min"/"activation_max"/"activation_alpha"/"activation_beta" carry its
/// parameters. Returns nullopt-like kind Identity when there is none.
struct FusedActivation {
  OpKind op = OpKind::Identity;
  float min = 0.0F;
  float max = 0.0F;
  float alpha = 0.0F;
  float beta = 0.0F;
  /// True for the activations the NPU runs through a 256-entry LUT (all but Relu and Clip).
  bool lut = false;
};

/// The fused activation of `node` (op Identity when none).
FusedActivation fusedActivation(const Node& node);

/// Writes `activation` into the attributes of `node`.
void setFusedActivation(Node& node, const FusedActivation& activation);

}  // namespace npu::compiler
