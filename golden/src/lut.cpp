// LUT builder and apply.
#include "npu/golden/lut.h"

namespace npu::golden {

Lut buildLut(const std::function<float(float)>& f, const QuantParams& in, const QuantParams& out) {
  checkQuantParams(in, "buildLut input");
  checkQuantParams(out, "buildLut output");
  Lut lut{};
  for (int i = 0; i < 256; ++i) {
    const double x = static_cast<double>(i - 128 - in.zeroPoint) * static_cast<double>(in.scale);
    lut[static_cast<std::size_t>(i)] =
        static_cast<std::int8_t>(quantizeValue(f(static_cast<float>(x)), out));
  }
  return lut;
}

Int8Tensor applyLut(const Int8Tensor& x, const Lut& lut) {
  checkConsistent(x, "applyLut");
  Int8Tensor y{x.shape, std::vector<std::int8_t>(x.data.size())};
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    y.data[i] = lookUp(lut, x.data[i]);
  }
  return y;
}

}  // namespace npu::golden
