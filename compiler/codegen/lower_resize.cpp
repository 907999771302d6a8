// Linear resize along one axis as depthwise CONVs: the output positions are cut into runs that
// share their weights and advance through the input by a constant stride (an integer upsample
// by s has s interior runs, one per phase, plus its clamped ends); each run is a depthwise CONV
// of one or two taps whose LOADs gather its input positions and whose STOREs scatter its outputs
// every `step` positions (lowerMappedConv).
#include <fmt/format.h>

#include <vector>

#include "lowering.h"
#include "npu/isa/limits.h"

namespace npu::compiler {
namespace {

/// An output position as the NPU computes it: `taps` input positions from `in0` with weights
/// w0 (and w1).
struct PositionTaps {
  std::int64_t in0 = 0;
  std::int64_t taps = 1;
  std::int32_t w0 = golden::kLinearWeightOne;
  std::int32_t w1 = 0;

  [[nodiscard]] bool sameWeights(const PositionTaps& other) const {
    return taps == other.taps && w0 == other.w0 && w1 == other.w1;
  }
};

PositionTaps positionTaps(const golden::LinearTap& tap) {
  if (liveLinearTaps(tap) == 2) {
    return {tap.i0, 2, tap.w0, tap.w1};
  }
  // One input position holds the whole weight.
  return {tap.w1 == golden::kLinearWeightOne ? tap.i1 : tap.i0, 1, golden::kLinearWeightOne, 0};
}

/// Output positions first + step * j (j < count) reading input positions in0 + stride * j on.
struct TapRun {
  std::int64_t first = 0;
  std::int64_t count = 1;
  std::int64_t step = 1;
  std::int64_t in0 = 0;
  std::int64_t stride = 1;
  PositionTaps weights;
};

/// Greedy cover of the positions by runs: each uncovered position starts a run with the nearest
/// later uncovered position of the same weights whose input lies ahead by at most the CONV's
/// largest stride, and the run grows while the pattern holds.
std::vector<TapRun> tapRuns(const std::vector<golden::LinearTap>& taps, std::int64_t maxStride) {
  const auto n = static_cast<std::int64_t>(taps.size());
  std::vector<PositionTaps> at;
  at.reserve(taps.size());
  for (const golden::LinearTap& tap : taps) {
    at.push_back(positionTaps(tap));
  }
  std::vector<bool> covered(taps.size(), false);
  std::vector<TapRun> runs;
  for (std::int64_t o = 0; o < n; ++o) {
    if (covered[static_cast<std::size_t>(o)]) {
      continue;
    }
    const PositionTaps& start = at[static_cast<std::size_t>(o)];
    TapRun run{o, 1, 1, start.in0, 1, start};
    for (std::int64_t next = o + 1; next < n; ++next) {
      const PositionTaps& candidate = at[static_cast<std::size_t>(next)];
      const std::int64_t advance = candidate.in0 - start.in0;
      if (!covered[static_cast<std::size_t>(next)] && candidate.sameWeights(start) && advance > 0 &&
          advance <= maxStride) {
        run.step = next - o;
        run.stride = advance;
        break;
      }
    }
    covered[static_cast<std::size_t>(o)] = true;
    for (std::int64_t j = 1; run.step > 0 && o + run.step * j < n; ++j) {
      const auto position = static_cast<std::size_t>(o + run.step * j);
      const PositionTaps& candidate = at[position];
      if (covered[position] || !candidate.sameWeights(start) ||
          candidate.in0 != start.in0 + run.stride * j) {
        break;
      }
      covered[position] = true;
      run.count = j + 1;
    }
    runs.push_back(run);
  }
  return runs;
}

}  // namespace

void lowerResizeLinear(LoweringContext& ctx, const QResizeLinear& op) {
  const auto& in = ctx.graph.tensors[op.input].shape;  // NHWC
  const auto& out = ctx.graph.tensors[op.output].shape;
  const bool rows = op.params.axis == 1;
  const std::int64_t channels = in[3];
  const std::int64_t maxStride = rows ? isa::limits::kConvStrideH : isa::limits::kConvStrideW;
  const std::vector<TapRun> runs = tapRuns(op.params.taps, maxStride);
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const TapRun& run = runs[k];
    QConv conv;
    conv.name = fmt::format("{}.run{}", op.name, k);
    conv.input = op.input;
    conv.output = op.output;
    const std::int64_t taps = run.weights.taps;
    conv.weights.shape = {channels, rows ? taps : 1, rows ? 1 : taps, 1};
    for (std::int64_t c = 0; c < channels; ++c) {
      conv.weights.data.push_back(static_cast<std::int8_t>(run.weights.w0));
      if (taps == 2) {
        conv.weights.data.push_back(static_cast<std::int8_t>(run.weights.w1));
      }
    }
    conv.params.strides = {rows ? run.stride : 1, rows ? 1 : run.stride};
    conv.params.groups = channels;
    conv.params.inputZeroPoint = op.params.inputZeroPoint;
    conv.params.multipliers = {op.params.multiplier};
    conv.params.output = op.params.output;
    const MappedConvAxis resized{
        run.in0, (run.count - 1) * run.stride + taps, run.count, run.first, run.step, run.stride};
    const std::int64_t other = rows ? in[2] : in[1];
    const MappedConvAxis kept{0, other, rows ? out[2] : out[1], 0, 1, 1};
    lowerMappedConv(ctx, conv, rows ? resized : kept, rows ? kept : resized);
  }
}

}  // namespace npu::compiler
