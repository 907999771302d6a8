// fp32 normalisations with ONNX semantics: BatchNormalization (inference), LayerNormalization,
// GroupNormalization, InstanceNormalization, Softmax and LogSoftmax.
#pragma once

#include <cstdint>
#include <span>

#include "npu/golden/float_tensor.h"

namespace npu::golden {

/// ONNX BatchNormalization in inference mode: x [N, C, ...], each parameter holds C values;
/// y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c].
FloatTensor batchNormalization(const FloatTensor& x, std::span<const float> scale,
                               std::span<const float> bias, std::span<const float> mean,
                               std::span<const float> var, float epsilon = 1e-5F);

/// ONNX Softmax (opset 13): exp(x - max) / sum exp(x - max) along the one axis `axis` (negative
/// counts from the end). Opsets 1-12 (flatten to 2-D at axis) are expressed by the caller with a
/// reshape around this.
FloatTensor softmax(const FloatTensor& x, std::int64_t axis = -1);

/// ONNX LogSoftmax (opset 13): x - max - log(sum exp(x - max)) along `axis`.
FloatTensor logSoftmax(const FloatTensor& x, std::int64_t axis = -1);

/// ONNX LayerNormalization (opset 17): normalises over the axes from `axis` to the last, with the
/// mean and variance in double; y = (x - mean) / sqrt(var + epsilon) * scale + bias. `scale` and
/// `bias` (bias may be nullptr) broadcast to the normalised part of x's shape.
FloatTensor layerNormalization(const FloatTensor& x, const FloatTensor& scale,
                               const FloatTensor* bias, std::int64_t axis = -1,
                               float epsilon = 1e-5F);

/// LayerNorm over the channel axis alone: for every (n, h, w) of x [N, C, ...], the C values
/// x[n, :, h, w] normalised with their mean and variance (in double): what a channels-last
/// LayerNorm (ConvNeXt's, a transformer's over its features) computes on the NCHW tensor. No
/// affine: a scale and bias stay separate per-channel ops.
FloatTensor channelLayerNormalization(const FloatTensor& x, float epsilon = 1e-5F);

/// ONNX RMSNormalization (opset 23): over the axes from `axis` to the last,
/// y = x / sqrt(mean(x^2) + epsilon) * scale, the mean square in double; `scale` (nullptr: 1)
/// broadcasts to the normalised part of x's shape.
FloatTensor rmsNormalization(const FloatTensor& x, const FloatTensor* scale, std::int64_t axis = -1,
                             float epsilon = 1e-5F);

/// RMSNorm over the channel axis alone, without a scale: channelLayerNormalization without the
/// mean (Llama's RMSNorm over a token's features, computed on the token tensor's image twin).
FloatTensor channelRmsNormalization(const FloatTensor& x, float epsilon = 1e-5F);

/// ONNX InstanceNormalization: x [N, C, ...] normalised per (n, c) over the spatial axes, then
/// scale[c] and bias[c] (C values each) applied.
FloatTensor instanceNormalization(const FloatTensor& x, std::span<const float> scale,
                                  std::span<const float> bias, float epsilon = 1e-5F);

/// ONNX GroupNormalization: x [N, C, ...] with C divisible by `numGroups`, normalised per
/// (n, group) over the group's channels and the spatial axes. `scale` and `bias` hold either
/// numGroups values (opset 18, one per group) or C values (opset 21, one per channel).
FloatTensor groupNormalization(const FloatTensor& x, std::span<const float> scale,
                               std::span<const float> bias, std::int64_t numGroups,
                               float epsilon = 1e-5F);

}  // namespace npu::golden
