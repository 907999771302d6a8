// The borders between fp32 and the NPU: NCHW fp32 <-> NHWC int8 with a tensor's quantization.
#pragma once

#include "npu/compiler/ir/types.h"
#include "npu/golden/float_tensor.h"
#include "npu/golden/int8_tensor.h"
#include "npu/golden/quantize.h"

namespace npu::compiler {

/// Quantizes an fp32 activation [1, C, H, W] (or [1, C]) into the NPU's NHWC [1, H, W, C]
/// (or [1, 1, 1, C]) with the rule of docs/numerics.md section 2. Throws Error for another shape.
golden::Int8Tensor quantizeToNhwc(const golden::FloatTensor& nchw, const golden::QuantParams& q);

/// Dequantizes an NHWC int8 tensor back to fp32 in the layout of `nchwShape` ([1, C, H, W] or
/// [1, C]); throws Error when the element counts differ.
golden::FloatTensor dequantizeToNchw(const golden::Int8Tensor& nhwc, const golden::QuantParams& q,
                                     const Shape& nchwShape);

}  // namespace npu::compiler
