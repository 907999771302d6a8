// NCHW fp32 <-> NHWC int8 conversions at the NPU borders.
#include "npu/compiler/quant/tensor_layout.h"

#include "npu/compiler/target/npu_support.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

struct Dims {
  std::int64_t c = 0;
  std::int64_t hw = 0;
};

Dims dimsOf(const Shape& nchw) {
  std::optional<Shape> nhwc = nhwcShapeOf(nchw);
  if (!nhwc) {
    fail("tensor of shape {} has no NHWC form on the NPU ([1, C, H, W] or [1, C])",
         formatShape(nchw));
  }
  return Dims{(*nhwc)[3], (*nhwc)[1] * (*nhwc)[2]};
}

}  // namespace

golden::Int8Tensor quantizeToNhwc(const golden::FloatTensor& nchw, const golden::QuantParams& q) {
  Dims d = dimsOf(nchw.shape);
  golden::Int8Tensor out;
  out.shape = *nhwcShapeOf(nchw.shape);
  out.data.resize(nchw.data.size());
  // Quantized in the NCHW order (one vectorised pass), then moved to NHWC.
  std::vector<std::int8_t> planar(nchw.data.size());
  golden::quantizeValues(nchw.data, q, planar);
  for (std::int64_t c = 0; c < d.c; ++c) {
    for (std::int64_t p = 0; p < d.hw; ++p) {
      out.data[static_cast<std::size_t>(p * d.c + c)] =
          planar[static_cast<std::size_t>(c * d.hw + p)];
    }
  }
  return out;
}

golden::FloatTensor dequantizeToNchw(const golden::Int8Tensor& nhwc, const golden::QuantParams& q,
                                     const Shape& nchwShape) {
  Dims d = dimsOf(nchwShape);
  if (static_cast<std::int64_t>(nhwc.data.size()) != d.c * d.hw) {
    fail("int8 tensor of shape {} does not hold an fp32 {}", formatShape(nhwc.shape),
         formatShape(nchwShape));
  }
  golden::FloatTensor out{nchwShape, std::vector<float>(nhwc.data.size())};
  for (std::int64_t c = 0; c < d.c; ++c) {
    for (std::int64_t p = 0; p < d.hw; ++p) {
      out.data[static_cast<std::size_t>(c * d.hw + p)] =
          golden::dequantizeValue(nhwc.data[static_cast<std::size_t>(p * d.c + c)], q);
    }
  }
  return out;
}

}  // namespace npu::compiler
