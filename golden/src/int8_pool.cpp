// int8 pools: direct window loops over NHWC with the padding values of docs/numerics.md.
#include "npu/golden/int8_pool.h"

#include <algorithm>

#include "npu/golden/float_tensor.h"
#include "npu/support/error.h"

namespace npu::golden {
namespace {

enum class PoolKind : std::uint8_t { Max, Average };

Int8Tensor pool(const Int8Tensor& x, const PoolInt8Params& p, PoolKind kind, std::int32_t padValue,
                const char* op) {
  checkConsistent(x, op);
  if (x.rank() != 4) {
    fail("{}: input must be 4-D NHWC, got {}", op, shapeString(x.shape));
  }
  const std::int64_t n = x.shape[0], inH = x.shape[1], inW = x.shape[2], c = x.shape[3];
  const auto [kH, kW] = p.kernel;
  const auto [sH, sW] = p.strides;
  const auto [padT, padL, padB, padR] = p.pads;
  if (kH < 1 || kW < 1 || sH < 1 || sW < 1) {
    fail("{}: kernel and strides must be >= 1", op);
  }
  if (padT < 0 || padL < 0 || padB < 0 || padR < 0) {
    fail("{}: pads must be >= 0", op);
  }
  if (inH + padT + padB < kH || inW + padL + padR < kW) {
    fail("{}: window {}x{} does not fit the padded input {}", op, kH, kW, shapeString(x.shape));
  }
  if (padValue < -128 || padValue > 127) {
    fail("{}: zero point {} is outside [-128, 127]", op, padValue);
  }
  const std::int64_t outH = (inH + padT + padB - kH) / sH + 1;
  const std::int64_t outW = (inW + padL + padR - kW) / sW + 1;
  const QuantizedMultiplier reciprocal = averagePoolMultiplier(kH, kW);
  Int8Tensor y = makeInt8Tensor({n, outH, outW, c});
  std::vector<std::int32_t> acc(static_cast<std::size_t>(c));
  std::int8_t* out = y.data.data();
  for (std::int64_t b = 0; b < n; ++b) {
    const std::int8_t* plane = &x.data[static_cast<std::size_t>(b * inH * inW * c)];
    for (std::int64_t oy = 0; oy < outH; ++oy) {
      for (std::int64_t ox = 0; ox < outW; ++ox) {
        std::fill(acc.begin(), acc.end(), kind == PoolKind::Max ? -128 : 0);
        for (std::int64_t ky = 0; ky < kH; ++ky) {
          const std::int64_t iy = oy * sH + ky - padT;
          for (std::int64_t kx = 0; kx < kW; ++kx) {
            const std::int64_t ix = ox * sW + kx - padL;
            const bool inside = iy >= 0 && iy < inH && ix >= 0 && ix < inW;
            const std::int8_t* pixel =
                inside ? &plane[static_cast<std::size_t>((iy * inW + ix) * c)] : nullptr;
            for (std::int64_t ch = 0; ch < c; ++ch) {
              const std::int32_t v = inside ? pixel[ch] : padValue;
              auto& a = acc[static_cast<std::size_t>(ch)];
              a = kind == PoolKind::Max ? std::max(a, v) : a + v;
            }
          }
        }
        for (std::int64_t ch = 0; ch < c; ++ch) {
          const std::int32_t a = acc[static_cast<std::size_t>(ch)];
          const std::int32_t v =
              kind == PoolKind::Max ? a : std::clamp(requantizeSingle(a, reciprocal), -128, 127);
          *out++ = static_cast<std::int8_t>(v);
        }
      }
    }
  }
  return y;
}

}  // namespace

Int8Tensor maxPoolInt8(const Int8Tensor& x, const PoolInt8Params& params) {
  return pool(x, params, PoolKind::Max, -128, "maxPoolInt8");
}

QuantizedMultiplier averagePoolMultiplier(std::int64_t kernelH, std::int64_t kernelW) {
  if (kernelH < 1 || kernelW < 1) {
    fail("averagePoolMultiplier: window {}x{} is empty", kernelH, kernelW);
  }
  return quantizeMultiplier(1.0 / static_cast<double>(kernelH * kernelW));
}

Int8Tensor averagePoolInt8(const Int8Tensor& x, const PoolInt8Params& params,
                           std::int32_t zeroPoint) {
  return pool(x, params, PoolKind::Average, zeroPoint, "averagePoolInt8");
}

Int8Tensor globalAveragePoolInt8(const Int8Tensor& x) {
  checkConsistent(x, "globalAveragePoolInt8");
  if (x.rank() != 4) {
    fail("globalAveragePoolInt8: input must be 4-D NHWC, got {}", shapeString(x.shape));
  }
  PoolInt8Params p;
  p.kernel = {x.shape[1], x.shape[2]};
  return pool(x, p, PoolKind::Average, 0, "globalAveragePoolInt8");
}

}  // namespace npu::golden
