// What the NPU can run: the dispatch strategies and, per node, the NPU form it would take.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "npu/compiler/ir/graph.h"
#include "npu/compiler/target/npu_op.h"
#include "npu/golden/fp32_pool.h"

namespace npu::compiler {

/// How eagerly the dispatcher moves nodes to the NPU (docs/quant-config.md, "strategy").
enum class DispatchStrategy : std::uint8_t {
  /// Only ops the NPU computes exactly (up to int8 rounding): conv/FC, add, sub, mul, pools,
  /// concat, nearest upsample, LUT activations, per-channel affines, softmax and LayerNorm over
  /// channels; and reshapes and transposes that leave the NHWC bytes as they are, as aliases
  /// (no instruction: isFreeReshape, isFreeTranspose), so they never split an NPU segment.
  /// Shape ops that move bytes stay on the host, between quantize/dequantize.
  Conservative,
  /// Today the same as Conservative: it pulled the layout no-op reshapes in before the default
  /// did (issue 39); kept so configs that name it stay valid.
  Aggressive,
  /// Today the same as Conservative (the per-channel affine ops it once added alone, and the
  /// aliases, run on the NPU under every strategy); kept so configs that name it stay valid.
  AllIn,
};

/// "conservative", "aggressive", "allin".
std::string_view strategyName(DispatchStrategy strategy);

/// The strategy named `name`, or nullopt.
std::optional<DispatchStrategy> parseDispatchStrategy(std::string_view name);

// NpuOpKind, the form a node takes on the NPU, is a list of the op registry (npu_op.h).

/// Where a node can run: the NPU form, or the reason it stays on the host.
struct NpuSupport {
  std::optional<NpuOpKind> kind;
  /// Why the node stays on the host (empty when `kind` is set).
  std::string reason;
};

/// Decides whether `node` can run on the NPU under `strategy` (today every strategy decides
/// alike: DispatchStrategy), within the NPU's field limits
/// (conv and pooling strides, the pooling window; npu/isa/limits.h). Conv kernels, dilations and
/// padding past their fields are codegen's to split or fill; a layer that no tile of fits the
/// target's SRAMs is placed on the host by the compiler driver, not here.
NpuSupport npuSupport(const Graph& graph, const Node& node, DispatchStrategy strategy);

/// The NHWC shape the NPU holds an fp32 activation of shape `shape` in: [1, C, H, W] ->
/// [1, H, W, C] and [1, C] -> [1, 1, 1, C]; nullopt for any other shape.
std::optional<Shape> nhwcShapeOf(const Shape& shape);

/// Whether a reshape (Reshape, Flatten, Squeeze, Unsqueeze, Identity: the row-major order kept)
/// of an activation of shape `from` to `to` leaves the NPU's NHWC bytes as they are: both shapes
/// have an NHWC form and every element sits at the same byte in both, so the output is the
/// input's bytes (the Alias form, no instruction). True when the channels agree, or when both
/// hold their elements in row-major order (one channel, or one pixel).
bool isFreeReshape(const Shape& from, const Shape& to);

/// Whether Transpose(`perm`) of an activation of shape `from` leaves the NPU's NHWC bytes as
/// they are (both shapes of NHWC form, every element at the same byte): each axis longer than 1
/// moves with its byte step ([1, C, 1, 1] -> [1, 1, 1, C] does, [1, C, H, W] -> [1, H, W, C]
/// does not).
bool isFreeTranspose(const Shape& from, std::span<const std::int64_t> perm);

/// The extra bottom and right padding that makes the int8 pool formula (floor, no ceil mode)
/// produce the output size of ONNX ceil_mode on input [N, C, H, W]; 0 without ceil mode.
std::array<std::int64_t, 2> ceilModeExtraPadding(const golden::Pool2dParams& params,
                                                 const Shape& in);

/// The per-channel coefficients of a ChannelAffine node: y[c] = scale[c] * x[c] + bias[c].
struct ChannelAffine {
  std::vector<float> scale;
  std::vector<float> bias;
};

/// What a Slice node on the NPU reads of its [1, C, H, W] input: consecutive channels from
/// `channelBegin`, rows from `rowBegin` every `rowStep`, columns from `colBegin` every `colStep`
/// (the counts are the output's shape).
struct SliceWindow {
  std::int64_t channelBegin = 0;
  std::int64_t rowBegin = 0;
  std::int64_t rowStep = 1;
  std::int64_t colBegin = 0;
  std::int64_t colStep = 1;
};

/// The window of Slice node `node` (constant starts, axes and steps, positive steps).
SliceWindow sliceWindowOf(const Graph& graph, const Node& node);

/// The coefficients of ChannelAffine node `node` for `channels` channels; throws Error when the
/// node is not one.
ChannelAffine channelAffineOf(const Graph& graph, const Node& node, std::int64_t channels);

}  // namespace npu::compiler
