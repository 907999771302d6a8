// Per-channel symmetric weight quantization and the int32 bias.
#include "npu/compiler/quant/weight_quantization.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>
#include "npu/compiler/quant/quant_params.h"

#include "npu/support/error.h"

namespace npu::compiler {
namespace {

double maxAbs(std::span<const float> w) {
  double m = 0.0;
  for (float v : w) {
    m = std::max(m, static_cast<double>(std::fabs(v)));
  }
  return m;
}

double roundTripError(std::span<const float> w, double scale) {
  double error = 0.0;
  for (float v : w) {
    double q = std::clamp(std::round(v / scale), -127.0, 127.0);
    double d = v - q * scale;
    error += d * d;
  }
  return error;
}

/// The clipping threshold of one weight group.
double threshold(std::span<const float> w, WeightMethod method) {
  double full = maxAbs(w);
  if (method == WeightMethod::MinMax || full == 0.0) {
    return full;
  }
  double best = full;
  double bestError = std::numeric_limits<double>::infinity();
  for (int k = 100; k >= 50; --k) {
    double t = full * k / 100.0;
    double error = roundTripError(w, t / 127.0);
    if (error < bestError) {
      bestError = error;
      best = t;
    }
  }
  return best;
}

/// The power of two just above `scale`, or the one below when that quantizes `w` with a smaller
/// squared error (the largest weights then clip) and `scale` was not raised for the bias.
float powerOfTwoScale(std::span<const float> w, float scale, bool raisedForBias) {
  float up = powerOfTwoAtLeast(scale);
  float down = up / 2.0F;
  if (raisedForBias || up == scale || down < kMinScale) {
    return up;
  }
  return roundTripError(w, down) < roundTripError(w, up) ? down : up;
}

/// OIHW weights of `shape` and a bias of one value per output channel (or none).
void checkConvShapes(std::span<const float> oihw, const Shape& shape, std::span<const float> bias) {
  if (shape.size() != 4 || static_cast<std::int64_t>(oihw.size()) != elementCount(shape)) {
    fail("conv weights of shape {} hold {} values", formatShape(shape), oihw.size());
  }
  if (!bias.empty() && static_cast<std::int64_t>(bias.size()) != shape[0]) {
    fail("conv bias has {} values for {} output channels", bias.size(), shape[0]);
  }
}

}  // namespace

QuantizedConvWeights quantizeConvWeights(std::span<const float> oihw, const Shape& shape,
                                         std::span<const float> bias, float inputScale,
                                         const WeightSettings& settings) {
  checkConvShapes(oihw, shape, bias);
  const std::int64_t m = shape[0];
  const std::int64_t c = shape[1];
  const std::int64_t kh = shape[2];
  const std::int64_t kw = shape[3];
  const auto per = static_cast<std::size_t>(c * kh * kw);
  auto channel = [&](std::int64_t o) {
    return oihw.subspan(static_cast<std::size_t>(o) * per, per);
  };

  QuantizedConvWeights out;
  double tensorThreshold = settings.perChannel ? 0.0 : threshold(oihw, settings.method);
  std::optional<float> tensorPowerOfTwo;
  double largest = 0.0;
  double smallest = std::numeric_limits<double>::infinity();
  for (std::int64_t o = 0; o < m; ++o) {
    double range = maxAbs(channel(o));
    if (range > 0.0) {
      largest = std::max(largest, range);
      smallest = std::min(smallest, range);
    }
    double t = settings.perChannel ? threshold(channel(o), settings.method) : tensorThreshold;
    double b = bias.empty() ? 0.0 : std::fabs(static_cast<double>(bias[o]));
    // The bias must fit: |b| / (s_in * s_w) <= 2^30.
    double scale = std::max(t / 127.0, b / (static_cast<double>(inputScale) * 1073741824.0));
    if (scale == 0.0) {
      scale = 1.0;
    }
    auto s = static_cast<float>(scale);
    s = std::max(s, kMinScale);
    if (settings.powerOfTwo && settings.perChannel) {
      s = powerOfTwoScale(channel(o), s, scale > t / 127.0);
    } else if (settings.powerOfTwo) {
      // One choice for the whole tensor; channels whose bias raised the scale round up.
      if (!tensorPowerOfTwo) {
        tensorPowerOfTwo =
            powerOfTwoScale(oihw, std::max(static_cast<float>(t / 127.0), kMinScale), false);
      }
      s = scale > t / 127.0 ? powerOfTwoAtLeast(s) : *tensorPowerOfTwo;
    }
    out.scales.push_back(s);
  }
  out.channelRangeRatio = largest > 0.0 ? largest / smallest : 1.0;

  out.weights.shape = {m, kh, kw, c};
  out.weights.data.resize(oihw.size());
  double signal = 0.0;
  double noise = 0.0;
  for (std::int64_t o = 0; o < m; ++o) {
    const double s = out.scales[o];
    for (std::int64_t i = 0; i < c; ++i) {
      for (std::int64_t y = 0; y < kh; ++y) {
        for (std::int64_t x = 0; x < kw; ++x) {
          float v = oihw[static_cast<std::size_t>(((o * c + i) * kh + y) * kw + x)];
          double q = std::clamp(std::round(v / s), -127.0, 127.0);
          out.weights.data[static_cast<std::size_t>(((o * kh + y) * kw + x) * c + i)] =
              static_cast<std::int8_t>(q);
          double d = v - q * s;
          signal += static_cast<double>(v) * v;
          noise += d * d;
        }
      }
    }
    double b = bias.empty() ? 0.0 : bias[o];
    double q = std::round(b / (static_cast<double>(inputScale) * s));
    out.bias.push_back(static_cast<std::int32_t>(
        std::clamp(q, static_cast<double>(std::numeric_limits<std::int32_t>::min()),
                   static_cast<double>(std::numeric_limits<std::int32_t>::max()))));
  }
  out.sqnrDb =
      noise == 0.0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(signal / noise);
  return out;
}

std::optional<QuantizedConvWeights> quantizeConvWeightsGiven(
    std::span<const float> oihw, const Shape& shape, std::span<const float> bias, float inputScale,
    const QuantParams& given, std::string& why, bool& folded) {
  folded = false;
  checkConvShapes(oihw, shape, bias);
  const std::int64_t m = shape[0];
  const std::int64_t c = shape[1];
  const std::int64_t kh = shape[2];
  const std::int64_t kw = shape[3];
  const std::size_t count = given.scales.size();
  if (count != 1 && (given.axis != 0 || static_cast<std::int64_t>(count) != m)) {
    why = fmt::format(
        "the given weight scales are per axis along axis {} ({} of them), not one "
        "per output channel ({})",
        given.axis, count, m);
    return std::nullopt;
  }
  QuantizedConvWeights out;
  out.weights.shape = {m, kh, kw, c};
  out.weights.data.resize(oihw.size());
  double signal = 0.0;
  double largest = 0.0;
  double smallest = std::numeric_limits<double>::infinity();
  for (std::int64_t o = 0; o < m; ++o) {
    const std::size_t k = count == 1 ? 0 : static_cast<std::size_t>(o);
    const float s = given.scales[k];
    const std::int32_t zp = given.zeroPoints.empty() ? 0 : given.zeroPoints[k];
    out.scales.push_back(s);
    double range = 0.0;
    for (std::int64_t i = 0; i < c; ++i) {
      for (std::int64_t y = 0; y < kh; ++y) {
        for (std::int64_t x = 0; x < kw; ++x) {
          float v = oihw[static_cast<std::size_t>(((o * c + i) * kh + y) * kw + x)];
          double q = std::round(static_cast<double>(v) / s);
          // On the grid: w == float((q - zp) * s) as the front end computed it.
          if (static_cast<float>(q) * s != v &&
              std::fabs(v - q * s) > 1e-6 * std::fabs(static_cast<double>(v)) + 1e-30) {
            why = fmt::format(
                "the weights are no longer on the given grid (output channel {}: "
                "{} is not a multiple of the scale {}); a front-end pass rewrote "
                "them",
                o, v, s);
            return std::nullopt;
          }
          if (q < -128.0 || q > 127.0) {
            why = fmt::format(
                "the weight zero point {} of output channel {} leaves q - zp = {} "
                "outside int8",
                zp, o, q);
            return std::nullopt;
          }
          out.weights.data[static_cast<std::size_t>(((o * kh + y) * kw + x) * c + i)] =
              static_cast<std::int8_t>(q);
          signal += static_cast<double>(v) * v;
          range = std::max(range, static_cast<double>(std::fabs(v)));
        }
      }
    }
    if (zp != 0) {
      folded = true;
    }
    if (range > 0.0) {
      largest = std::max(largest, range);
      smallest = std::min(smallest, range);
    }
    double b = bias.empty() ? 0.0 : bias[o];
    double q = std::round(b / (static_cast<double>(inputScale) * s));
    out.bias.push_back(static_cast<std::int32_t>(
        std::clamp(q, static_cast<double>(std::numeric_limits<std::int32_t>::min()),
                   static_cast<double>(std::numeric_limits<std::int32_t>::max()))));
  }
  out.channelRangeRatio = largest > 0.0 ? largest / smallest : 1.0;
  out.sqnrDb = std::numeric_limits<double>::infinity();  // exact: the given grid
  (void)signal;
  return out;
}

}  // namespace npu::compiler
