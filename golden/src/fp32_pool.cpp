// fp32 pools: one window walk shared by max and average.
#include "npu/golden/fp32_pool.h"

#include <algorithm>
#include <limits>

#include "npu/support/error.h"

namespace npu::golden {
namespace {

enum class PoolKind : std::uint8_t { Max, Average };

FloatTensor pool2d(const FloatTensor& x, const Pool2dParams& p, PoolKind kind, const char* op) {
  checkConsistent(x, op);
  if (x.rank() != 4) {
    fail("{}: input must be 4-D NCHW, got {}", op, shapeString(x.shape));
  }
  for (int i = 0; i < 2; ++i) {
    if (p.kernel[i] < 1 || p.strides[i] < 1 || p.dilations[i] < 1) {
      fail("{}: kernel, strides and dilations must be >= 1", op);
    }
  }
  for (std::int64_t pad : p.pads) {
    if (pad < 0) {
      fail("{}: pads must be >= 0", op);
    }
  }
  const std::int64_t n = x.shape[0], c = x.shape[1], inH = x.shape[2], inW = x.shape[3];
  const auto [kH, kW] = p.kernel;
  const auto [sH, sW] = p.strides;
  const auto [dH, dW] = p.dilations;
  const auto [padT, padL, padB, padR] = p.pads;
  const std::int64_t outH = pooledSize(inH, kH, sH, dH, padT, padB, p.ceilMode);
  const std::int64_t outW = pooledSize(inW, kW, sW, dW, padL, padR, p.ceilMode);
  FloatTensor y = makeFloatTensor({n, c, outH, outW});
  float* out = y.data.data();
  for (std::int64_t plane = 0; plane < n * c; ++plane) {
    const float* in = x.data.data() + plane * inH * inW;
    for (std::int64_t oy = 0; oy < outH; ++oy) {
      for (std::int64_t ox = 0; ox < outW; ++ox) {
        float best = -std::numeric_limits<float>::infinity();
        double sum = 0.0;
        std::int64_t inside = 0, insidePadded = 0;
        for (std::int64_t ky = 0; ky < kH; ++ky) {
          const std::int64_t iy = oy * sH - padT + ky * dH;
          for (std::int64_t kx = 0; kx < kW; ++kx) {
            const std::int64_t ix = ox * sW - padL + kx * dW;
            if (iy < inH + padB && ix < inW + padR) {
              ++insidePadded;
            }
            if (iy < 0 || iy >= inH || ix < 0 || ix >= inW) {
              continue;
            }
            const float v = in[iy * inW + ix];
            best = std::max(best, v);
            sum += v;
            ++inside;
          }
        }
        if (kind == PoolKind::Max) {
          *out++ = best;
        } else {
          const std::int64_t count = p.countIncludePad ? insidePadded : inside;
          *out++ = count == 0 ? 0.0F : static_cast<float>(sum / static_cast<double>(count));
        }
      }
    }
  }
  return y;
}

template <typename Reduce>
FloatTensor globalPool(const FloatTensor& x, const char* op, Reduce reduce) {
  checkConsistent(x, op);
  if (x.rank() < 3) {
    fail("{}: input must have rank >= 3 (N, C, spatial...), got {}", op, shapeString(x.shape));
  }
  std::vector<std::int64_t> shape(x.shape.size(), 1);
  shape[0] = x.shape[0];
  shape[1] = x.shape[1];
  FloatTensor y = makeFloatTensor(shape);
  const std::int64_t planeSize =
      elementCount(x.shape) / std::max<std::int64_t>(1, shape[0] * shape[1]);
  for (std::size_t plane = 0; plane < y.data.size(); ++plane) {
    y.data[plane] = reduce(x.data.data() + plane * static_cast<std::size_t>(planeSize), planeSize);
  }
  return y;
}

}  // namespace

std::int64_t pooledSize(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                        std::int64_t dilation, std::int64_t padBegin, std::int64_t padEnd,
                        bool ceilMode) {
  if (kernel < 1 || stride < 1 || dilation < 1 || padBegin < 0 || padEnd < 0) {
    fail("pool: kernel {}, stride {}, dilation {} must be >= 1 and pads {}+{} >= 0", kernel, stride,
         dilation, padBegin, padEnd);
  }
  const std::int64_t span = dilation * (kernel - 1) + 1;
  const std::int64_t room = in + padBegin + padEnd - span;
  if (room < 0) {
    fail("pool: window {} (dilated {}) does not fit input {} with pads {}+{}", kernel, span, in,
         padBegin, padEnd);
  }
  std::int64_t out = (ceilMode ? (room + stride - 1) / stride : room / stride) + 1;
  if (ceilMode && (out - 1) * stride >= in + padBegin) {
    --out;
  }
  return out;
}

FloatTensor maxPool2d(const FloatTensor& x, const Pool2dParams& params) {
  return pool2d(x, params, PoolKind::Max, "maxPool2d");
}

FloatTensor averagePool2d(const FloatTensor& x, const Pool2dParams& params) {
  return pool2d(x, params, PoolKind::Average, "averagePool2d");
}

FloatTensor globalAveragePool(const FloatTensor& x) {
  return globalPool(x, "globalAveragePool", [](const float* v, std::int64_t count) {
    double sum = 0.0;
    for (std::int64_t i = 0; i < count; ++i) {
      sum += v[i];
    }
    return count == 0 ? 0.0F : static_cast<float>(sum / static_cast<double>(count));
  });
}

FloatTensor globalMaxPool(const FloatTensor& x) {
  return globalPool(x, "globalMaxPool", [](const float* v, std::int64_t count) {
    float best = -std::numeric_limits<float>::infinity();
    for (std::int64_t i = 0; i < count; ++i) {
      best = std::max(best, v[i]);
    }
    return best;
  });
}

}  // namespace npu::golden
