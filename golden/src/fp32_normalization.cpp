// fp32 normalisations: BatchNormalization, Softmax/LogSoftmax and the Layer/Group/Instance
// normalisations over contiguous blocks with double moments.
#include "npu/golden/fp32_normalization.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

#include "axis_lines.h"
#include "npu/golden/fp32_elementwise.h"
#include "npu/support/error.h"

namespace npu::golden {

FloatTensor batchNormalization(const FloatTensor& x, std::span<const float> scale,
                               std::span<const float> bias, std::span<const float> mean,
                               std::span<const float> var, float epsilon) {
  checkConsistent(x, "batchNormalization");
  if (x.rank() < 2) {
    fail("batchNormalization: input must have rank >= 2, got {}", shapeString(x.shape));
  }
  const std::int64_t n = x.shape[0], c = x.shape[1];
  const auto channels = static_cast<std::size_t>(c);
  if (scale.size() != channels || bias.size() != channels || mean.size() != channels ||
      var.size() != channels) {
    fail("batchNormalization: input {} has {} channels but scale/bias/mean/var have {}/{}/{}/{}",
         shapeString(x.shape), c, scale.size(), bias.size(), mean.size(), var.size());
  }
  const std::int64_t inner = c == 0 || n == 0 ? 0 : elementCount(x.shape) / (n * c);
  FloatTensor y{x.shape, std::vector<float>(x.data.size())};
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::size_t ch = 0; ch < channels; ++ch) {
      const float factor = scale[ch] / std::sqrt(var[ch] + epsilon);
      const std::size_t base =
          static_cast<std::size_t>((b * c + static_cast<std::int64_t>(ch)) * inner);
      for (std::int64_t i = 0; i < inner; ++i) {
        const std::size_t at = base + static_cast<std::size_t>(i);
        y.data[at] = (x.data[at] - mean[ch]) * factor + bias[ch];
      }
    }
  }
  return y;
}

namespace {

/// Softmax, or its log when `log`, along `axis`; errors name `op`.
FloatTensor softmaxAlong(const FloatTensor& x, std::int64_t axis, bool log, std::string_view op) {
  checkConsistent(x, op);
  const detail::AxisLines lines = detail::axisLines(x.shape, normalizeAxis(axis, x.rank(), op));
  FloatTensor y{x.shape, std::vector<float>(x.data.size())};
  std::vector<double> exps(static_cast<std::size_t>(lines.len));
  for (std::int64_t line = 0; line < lines.count(); ++line) {
    const auto at = [&](std::int64_t k) { return lines.at(line, k); };
    float peak = -std::numeric_limits<float>::infinity();
    for (std::int64_t k = 0; k < lines.len; ++k) {
      peak = std::max(peak, x.data[at(k)]);
    }
    double sum = 0.0;
    for (std::int64_t k = 0; k < lines.len; ++k) {
      exps[static_cast<std::size_t>(k)] = std::exp(static_cast<double>(x.data[at(k)]) - peak);
      sum += exps[static_cast<std::size_t>(k)];
    }
    for (std::int64_t k = 0; k < lines.len; ++k) {
      const double shifted = static_cast<double>(x.data[at(k)]) - peak;
      y.data[at(k)] = static_cast<float>(log ? shifted - std::log(sum)
                                             : exps[static_cast<std::size_t>(k)] / sum);
    }
  }
  return y;
}

/// The mean and 1 / sqrt(variance + epsilon) of one normalised block, in double (population
/// variance, two passes).
struct Moments {
  double mean = 0.0;
  double invStd = 0.0;
};

/// The mean and 1/sqrt(variance + epsilon) of `values`; not centred (RMSNorm), the mean is taken
/// as 0, so the "variance" is the mean square.
Moments momentsOf(std::span<const float> values, float epsilon, bool centred = true) {
  Moments m;
  if (centred) {
    for (float v : values) {
      m.mean += v;
    }
    m.mean /= static_cast<double>(values.size());
  }
  double var = 0.0;
  for (float v : values) {
    var += (v - m.mean) * (v - m.mean);
  }
  var /= static_cast<double>(values.size());
  m.invStd = 1.0 / std::sqrt(var + epsilon);
  return m;
}

/// GroupNormalization, and InstanceNormalization as its one-group-per-channel case: x [N, C, ...]
/// normalised per (n, group) over the group's contiguous channels and spatial positions, then
/// scale and bias (numGroups or C values each) applied per channel. Errors name `op`.
FloatTensor normalizeGroups(const FloatTensor& x, std::span<const float> scale,
                            std::span<const float> bias, std::int64_t numGroups, float epsilon,
                            std::string_view op) {
  checkConsistent(x, op);
  if (x.rank() < 2) {
    fail("{}: input must have rank >= 2, got {}", op, shapeString(x.shape));
  }
  const std::int64_t n = x.shape[0], c = x.shape[1];
  if (numGroups < 1) {
    fail("{}: numGroups {} must be >= 1", op, numGroups);
  }
  if (c % numGroups != 0) {
    fail("{}: {} channels of {} are not divisible into {} groups", op, c, shapeString(x.shape),
         numGroups);
  }
  const auto perGroupOrChannel = [&](std::span<const float> values) {
    return values.size() == static_cast<std::size_t>(numGroups) ||
           values.size() == static_cast<std::size_t>(c);
  };
  if (!perGroupOrChannel(scale) || !perGroupOrChannel(bias)) {
    fail("{}: scale/bias have {}/{} values, expected {} (one per group) or {} (one per channel)",
         op, scale.size(), bias.size(), numGroups, c);
  }
  const std::int64_t spatial = elementCount(std::span(x.shape).subspan(2));
  const std::int64_t channelsPerGroup = c / numGroups;
  const std::int64_t block = channelsPerGroup * spatial;
  const auto paramOf = [&](std::span<const float> values, std::int64_t channel) {
    const std::int64_t at =
        values.size() == static_cast<std::size_t>(c) ? channel : channel / channelsPerGroup;
    return static_cast<double>(values[static_cast<std::size_t>(at)]);
  };
  FloatTensor y{x.shape, std::vector<float>(x.data.size())};
  if (block == 0) {
    return y;
  }
  for (std::int64_t g = 0; g < n * numGroups; ++g) {
    const auto first = static_cast<std::size_t>(g * block);
    const Moments m =
        momentsOf(std::span(x.data).subspan(first, static_cast<std::size_t>(block)), epsilon);
    for (std::int64_t i = 0; i < block; ++i) {
      const std::int64_t channel = g % numGroups * channelsPerGroup + i / spatial;
      const std::size_t at = first + static_cast<std::size_t>(i);
      y.data[at] = static_cast<float>((x.data[at] - m.mean) * m.invStd * paramOf(scale, channel) +
                                      paramOf(bias, channel));
    }
  }
  return y;
}

}  // namespace

FloatTensor softmax(const FloatTensor& x, std::int64_t axis) {
  return softmaxAlong(x, axis, false, "softmax");
}

FloatTensor logSoftmax(const FloatTensor& x, std::int64_t axis) {
  return softmaxAlong(x, axis, true, "logSoftmax");
}

namespace {

/// LayerNorm (centred) or RMSNorm over the axes from `axis` to the last; `scale` and `bias` may
/// be nullptr. Errors name `op`.
FloatTensor normalizeTail(const FloatTensor& x, const FloatTensor* scale, const FloatTensor* bias,
                          std::int64_t axis, float epsilon, bool centred, const char* op) {
  checkConsistent(x, op);
  const auto split = static_cast<std::size_t>(normalizeAxis(axis, x.rank(), op));
  const std::span<const std::int64_t> normShape = std::span(x.shape).subspan(split);
  const auto block = static_cast<std::size_t>(elementCount(normShape));
  const FloatTensor gamma = scale != nullptr ? broadcastTo(*scale, normShape, op)
                                             : FloatTensor{{normShape.begin(), normShape.end()},
                                                           std::vector<float>(block, 1.0F)};
  const FloatTensor beta = bias != nullptr ? broadcastTo(*bias, normShape, op)
                                           : makeFloatTensor({normShape.begin(), normShape.end()});
  FloatTensor y{x.shape, std::vector<float>(x.data.size())};
  for (std::size_t first = 0; first < x.data.size(); first += block) {
    const Moments m = momentsOf(std::span(x.data).subspan(first, block), epsilon, centred);
    for (std::size_t i = 0; i < block; ++i) {
      y.data[first + i] = static_cast<float>(
          (x.data[first + i] - m.mean) * m.invStd * gamma.data[i] + beta.data[i]);
    }
  }
  return y;
}

/// LayerNorm (centred) or RMSNorm over axis 1 alone, without an affine. Errors name `op`.
FloatTensor normalizeChannels(const FloatTensor& x, float epsilon, bool centred, const char* op) {
  checkConsistent(x, op);
  if (x.rank() < 2 || x.shape[0] < 1 || x.shape[1] < 1) {
    fail("{}: input {} has no channel axis or no batch", op, shapeString(x.shape));
  }
  const auto channels = static_cast<std::size_t>(x.shape[1]);
  const std::size_t inner = x.data.size() / static_cast<std::size_t>(x.shape[0]) / channels;
  FloatTensor y{x.shape, std::vector<float>(x.data.size())};
  std::vector<float> column(channels);
  for (std::size_t n = 0; n < static_cast<std::size_t>(x.shape[0]); ++n) {
    const std::size_t base = n * channels * inner;
    for (std::size_t p = 0; p < inner; ++p) {
      for (std::size_t c = 0; c < channels; ++c) {
        column[c] = x.data[base + c * inner + p];
      }
      const Moments m = momentsOf(column, epsilon, centred);
      for (std::size_t c = 0; c < channels; ++c) {
        y.data[base + c * inner + p] = static_cast<float>((column[c] - m.mean) * m.invStd);
      }
    }
  }
  return y;
}

}  // namespace

FloatTensor layerNormalization(const FloatTensor& x, const FloatTensor& scale,
                               const FloatTensor* bias, std::int64_t axis, float epsilon) {
  return normalizeTail(x, &scale, bias, axis, epsilon, true, "layerNormalization");
}

FloatTensor rmsNormalization(const FloatTensor& x, const FloatTensor* scale, std::int64_t axis,
                             float epsilon) {
  return normalizeTail(x, scale, nullptr, axis, epsilon, false, "rmsNormalization");
}

FloatTensor channelLayerNormalization(const FloatTensor& x, float epsilon) {
  return normalizeChannels(x, epsilon, true, "channelLayerNormalization");
}

FloatTensor channelRmsNormalization(const FloatTensor& x, float epsilon) {
  return normalizeChannels(x, epsilon, false, "channelRmsNormalization");
}

FloatTensor instanceNormalization(const FloatTensor& x, std::span<const float> scale,
                                  std::span<const float> bias, float epsilon) {
  if (x.rank() >= 2 && (scale.size() != static_cast<std::size_t>(x.shape[1]) ||
                        bias.size() != static_cast<std::size_t>(x.shape[1]))) {
    fail("instanceNormalization: input {} has {} channels but scale/bias have {}/{}",
         shapeString(x.shape), x.shape[1], scale.size(), bias.size());
  }
  // One group per channel (at least one, so an input without channels is simply empty).
  const std::int64_t channels = x.rank() >= 2 ? std::max<std::int64_t>(x.shape[1], 1) : 1;
  return normalizeGroups(x, scale, bias, channels, epsilon, "instanceNormalization");
}

FloatTensor groupNormalization(const FloatTensor& x, std::span<const float> scale,
                               std::span<const float> bias, std::int64_t numGroups, float epsilon) {
  return normalizeGroups(x, scale, bias, numGroups, epsilon, "groupNormalization");
}

}  // namespace npu::golden
