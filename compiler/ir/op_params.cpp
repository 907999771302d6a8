// Conv, ConvTranspose, pool and Resize attributes resolved into the golden ops' parameters.
#include "npu/compiler/ir/op_params.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <string>

#include "npu/support/error.h"

namespace npu::compiler {
namespace {

/// The largest kernel size, stride, dilation, pad or output padding a 2-D op may have. No model
/// comes near it; bounding them (with every dimension at most kMaxTensorElements) keeps the
/// window and output sizes computed from them far inside 64 bits.
constexpr std::int64_t kMaxSpatialAttribute = std::int64_t{1} << 24;

/// A list attribute with one value per spatial axis (2), defaulting to `fallback`.
std::array<std::int64_t, 2> pairAttribute(const Node& node, std::string_view name,
                                          std::int64_t fallback, std::int64_t minimum) {
  std::vector<std::int64_t> values = node.attributes.getInts(name, {fallback, fallback});
  if (values.size() != 2) {
    fail("attribute '{}' must have 2 values for a 2-D op, has {}", name, values.size());
  }
  for (std::int64_t v : values) {
    if (v < minimum) {
      fail("attribute '{}' = {} must be at least {}", name, v, minimum);
    }
    if (v > kMaxSpatialAttribute) {
      fail("attribute '{}' = {} is above the limit of {}", name, v, kMaxSpatialAttribute);
    }
  }
  return {values[0], values[1]};
}

std::array<std::int64_t, 4> explicitPads(const Node& node) {
  std::vector<std::int64_t> pads = node.attributes.getInts("pads", {0, 0, 0, 0});
  if (pads.size() != 4) {
    fail("attribute 'pads' must have 4 values for a 2-D op, has {}", pads.size());
  }
  for (std::int64_t p : pads) {
    if (p < 0) {
      fail("attribute 'pads' has a negative value {}", p);
    }
    if (p > kMaxSpatialAttribute) {
      fail("attribute 'pads' = {} is above the limit of {}", p, kMaxSpatialAttribute);
    }
  }
  return {pads[0], pads[1], pads[2], pads[3]};
}

/// Pads for auto_pad (SAME_UPPER, SAME_LOWER, VALID) or the explicit `pads` (NOTSET).
std::array<std::int64_t, 4> resolvePads(const Node& node, std::span<const std::int64_t> x,
                                        const std::array<std::int64_t, 2>& kernel,
                                        const std::array<std::int64_t, 2>& strides,
                                        const std::array<std::int64_t, 2>& dilations) {
  std::string autoPad = node.attributes.getString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    return explicitPads(node);
  }
  if (autoPad == "VALID") {
    return {0, 0, 0, 0};
  }
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER") {
    fail("unknown auto_pad '{}'", autoPad);
  }
  std::array<std::int64_t, 4> pads{};
  for (int axis = 0; axis < 2; ++axis) {
    std::int64_t in = x[2 + axis];
    std::int64_t out = (in + strides[axis] - 1) / strides[axis];
    std::int64_t total = std::max<std::int64_t>(
        0, (out - 1) * strides[axis] + (kernel[axis] - 1) * dilations[axis] + 1 - in);
    std::int64_t small = total / 2;
    std::int64_t large = total - small;
    pads[axis] = autoPad == "SAME_UPPER" ? small : large;
    pads[axis + 2] = autoPad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

void requireRank(std::span<const std::int64_t> shape, std::size_t rank, std::string_view what) {
  if (shape.size() != rank) {
    fail("{} must have rank {} (only 2-D spatial ops are supported), has shape [{}]", what, rank,
         fmt::join(shape, ", "));
  }
}

void checkKernelShape(const Node& node, std::span<const std::int64_t> w) {
  if (node.attributes.has("kernel_shape")) {
    std::array<std::int64_t, 2> kernel = pairAttribute(node, "kernel_shape", 1, 1);
    if (kernel[0] != w[2] || kernel[1] != w[3]) {
      fail("attribute kernel_shape [{}] does not match the weights' shape [{}]",
           fmt::join(kernel, ", "), fmt::join(w, ", "));
    }
  }
  if (w[2] < 1 || w[3] < 1) {
    fail("weights [{}] have an empty kernel", fmt::join(w, ", "));
  }
}

}  // namespace

golden::Conv2dParams convParams(const Node& node, std::span<const std::int64_t> x,
                                std::span<const std::int64_t> w) {
  requireRank(x, 4, "input");
  requireRank(w, 4, "weights");
  checkKernelShape(node, w);
  golden::Conv2dParams params;
  params.strides = pairAttribute(node, "strides", 1, 1);
  params.dilations = pairAttribute(node, "dilations", 1, 1);
  params.group = node.attributes.getInt("group", 1);
  if (params.group < 1 || params.group > kMaxTensorElements) {
    fail("attribute 'group' = {} must be in [1, {}]", params.group, kMaxTensorElements);
  }
  params.pads = resolvePads(node, x, {w[2], w[3]}, params.strides, params.dilations);
  return params;
}

golden::ConvTranspose2dParams convTransposeParams(const Node& node, std::span<const std::int64_t> x,
                                                  std::span<const std::int64_t> w) {
  requireRank(x, 4, "input");
  requireRank(w, 4, "weights");
  checkKernelShape(node, w);
  golden::ConvTranspose2dParams params;
  params.strides = pairAttribute(node, "strides", 1, 1);
  params.dilations = pairAttribute(node, "dilations", 1, 1);
  params.outputPadding = pairAttribute(node, "output_padding", 0, 0);
  params.group = node.attributes.getInt("group", 1);
  if (params.group < 1 || params.group > kMaxTensorElements) {
    fail("attribute 'group' = {} must be in [1, {}]", params.group, kMaxTensorElements);
  }
  std::string autoPad = node.attributes.getString("auto_pad", "NOTSET");
  std::vector<std::int64_t> outputShape = node.attributes.getInts("output_shape");
  if (autoPad == "VALID") {
    params.pads = {0, 0, 0, 0};
  } else if (outputShape.empty() && autoPad == "NOTSET") {
    params.pads = explicitPads(node);
  } else {
    if (outputShape.empty()) {  // SAME: the output is input * stride.
      outputShape = {x[2] * params.strides[0], x[3] * params.strides[1]};
    }
    if (outputShape.size() == 4) {
      outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
    }
    if (outputShape.size() != 2) {
      fail("attribute 'output_shape' must have 2 values, has {}", outputShape.size());
    }
    for (std::int64_t size : outputShape) {
      if (size < 1 || size > kMaxTensorElements) {
        fail("attribute 'output_shape' has {}, outside [1, {}]", size, kMaxTensorElements);
      }
    }
    for (int axis = 0; axis < 2; ++axis) {
      std::int64_t full = params.strides[axis] * (x[2 + axis] - 1) + params.outputPadding[axis] +
                          (w[2 + axis] - 1) * params.dilations[axis] + 1;
      std::int64_t total = full - outputShape[axis];
      if (total < 0) {
        fail("output_shape {} is larger than the full output {}", outputShape[axis], full);
      }
      bool upper = autoPad == "SAME_UPPER";
      params.pads[axis] = upper ? total / 2 : total - total / 2;
      params.pads[axis + 2] = upper ? total - total / 2 : total / 2;
    }
  }
  return params;
}

golden::Pool2dParams poolParams(const Node& node, std::span<const std::int64_t> x) {
  requireRank(x, 4, "input");
  if (!node.attributes.has("kernel_shape")) {
    fail("attribute 'kernel_shape' is required");
  }
  golden::Pool2dParams params;
  params.kernel = pairAttribute(node, "kernel_shape", 1, 1);
  params.strides = pairAttribute(node, "strides", 1, 1);
  params.dilations = pairAttribute(node, "dilations", 1, 1);
  params.ceilMode = node.attributes.getInt("ceil_mode", 0) != 0;
  params.countIncludePad = node.attributes.getInt("count_include_pad", 0) != 0;
  if (node.attributes.getInt("storage_order", 0) != 0) {
    fail("storage_order 1 (column major) is not supported");
  }
  params.pads = resolvePads(node, x, params.kernel, params.strides, params.dilations);
  return params;
}

golden::ResizeParams resizeParams(const Node& node, std::span<const std::int64_t> x,
                                  std::span<const float> scales,
                                  std::span<const std::int64_t> sizes) {
  std::string mode = node.attributes.getString("mode", "nearest");
  if (mode != "nearest" && mode != "linear") {
    fail("mode '{}' is not supported (nearest and linear)", mode);
  }
  golden::ResizeParams params;
  params.mode = mode == "linear" ? golden::ResizeMode::Linear : golden::ResizeMode::Nearest;
  if (!scales.empty()) {
    params.scales.assign(scales.begin(), scales.end());
  } else {
    params.sizes.assign(sizes.begin(), sizes.end());
  }
  std::size_t given = params.scales.empty() ? params.sizes.size() : params.scales.size();
  if (given != x.size()) {
    fail("{} {} for an input of rank {}", params.scales.empty() ? "sizes has" : "scales has", given,
         x.size());
  }
  std::string transform = node.attributes.getString("coordinate_transformation_mode", "half_pixel");
  if (transform == "half_pixel") {
    params.coordinateTransform = golden::CoordinateTransform::HalfPixel;
  } else if (transform == "pytorch_half_pixel") {
    params.coordinateTransform = golden::CoordinateTransform::PytorchHalfPixel;
  } else if (transform == "align_corners") {
    params.coordinateTransform = golden::CoordinateTransform::AlignCorners;
  } else if (transform == "asymmetric") {
    params.coordinateTransform = golden::CoordinateTransform::Asymmetric;
  } else if (transform == "tf_half_pixel_for_nn") {
    params.coordinateTransform = golden::CoordinateTransform::TfHalfPixelForNn;
  } else {
    fail("coordinate_transformation_mode '{}' is not supported", transform);
  }
  std::string nearest = node.attributes.getString("nearest_mode", "round_prefer_floor");
  if (nearest == "round_prefer_floor") {
    params.nearestMode = golden::NearestMode::RoundPreferFloor;
  } else if (nearest == "round_prefer_ceil") {
    params.nearestMode = golden::NearestMode::RoundPreferCeil;
  } else if (nearest == "floor") {
    params.nearestMode = golden::NearestMode::Floor;
  } else if (nearest == "ceil") {
    params.nearestMode = golden::NearestMode::Ceil;
  } else {
    fail("nearest_mode '{}' is not supported", nearest);
  }
  return params;
}

FusedActivation fusedActivation(const Node& node) {
  FusedActivation activation;
  if (!node.attributes.has("activation")) {
    return activation;
  }
  std::string name = node.attributes.getString("activation", "");
  std::optional<OpKind> op = parseOpKind(name);
  if (!op || !isActivation(*op)) {
    fail("unknown fused activation '{}'", name);
  }
  activation.op = *op;
  activation.min = node.attributes.getFloat("activation_min", 0.0F);
  activation.max = node.attributes.getFloat("activation_max", 0.0F);
  activation.alpha = node.attributes.getFloat("activation_alpha", 0.0F);
  activation.beta = node.attributes.getFloat("activation_beta", 0.0F);
  activation.lut = node.attributes.getInt("activation_lut", 0) != 0;
  return activation;
}

void setFusedActivation(Node& node, const FusedActivation& activation) {
  for (const char* name : {"activation_min", "activation_max", "activation_alpha",
                           "activation_beta", "activation_lut"}) {
    node.attributes.erase(name);
  }
  node.attributes.set("activation", std::string(opName(activation.op)));
  switch (activation.op) {
    case OpKind::Clip:
      node.attributes.set("activation_min", activation.min);
      node.attributes.set("activation_max", activation.max);
      break;
    case OpKind::LeakyRelu:
      node.attributes.set("activation_alpha", activation.alpha);
      break;
    case OpKind::HardSigmoid:
      node.attributes.set("activation_alpha", activation.alpha);
      node.attributes.set("activation_beta", activation.beta);
      break;
    default:
      break;
  }
  if (activation.lut) {
    node.attributes.set("activation_lut", std::int64_t{1});
  }
}

}  // namespace npu::compiler
