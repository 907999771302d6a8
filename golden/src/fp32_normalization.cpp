// fp32 BatchNormalization and Softmax.
#include "npu/golden/fp32_normalization.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

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

FloatTensor softmax(const FloatTensor& x, std::int64_t axis) {
  checkConsistent(x, "softmax");
  const std::int64_t a = normalizeAxis(axis, x.rank(), "softmax");
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t d = 0; d < a; ++d) {
    outer *= x.shape[static_cast<std::size_t>(d)];
  }
  for (std::int64_t d = a + 1; d < x.rank(); ++d) {
    inner *= x.shape[static_cast<std::size_t>(d)];
  }
  const std::int64_t len = x.shape[static_cast<std::size_t>(a)];
  FloatTensor y{x.shape, std::vector<float>(x.data.size())};
  std::vector<double> exps(static_cast<std::size_t>(len));
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      const auto at = [&](std::int64_t k) {
        return static_cast<std::size_t>((o * len + k) * inner + i);
      };
      float peak = -std::numeric_limits<float>::infinity();
      for (std::int64_t k = 0; k < len; ++k) {
        peak = std::max(peak, x.data[at(k)]);
      }
      double sum = 0.0;
      for (std::int64_t k = 0; k < len; ++k) {
        exps[static_cast<std::size_t>(k)] = std::exp(static_cast<double>(x.data[at(k)]) - peak);
        sum += exps[static_cast<std::size_t>(k)];
      }
      for (std::int64_t k = 0; k < len; ++k) {
        y.data[at(k)] = static_cast<float>(exps[static_cast<std::size_t>(k)] / sum);
      }
    }
  }
  return y;
}

}  // namespace npu::golden
