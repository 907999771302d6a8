// Umbrella header: every fp32 reference op (ONNX semantics, NCHW / OIHW layouts).
#pragma once

#include "npu/golden/float_tensor.h"
#include "npu/golden/fp32_activation.h"
#include "npu/golden/fp32_conv.h"
#include "npu/golden/fp32_elementwise.h"
#include "npu/golden/fp32_linear.h"
#include "npu/golden/fp32_math.h"
#include "npu/golden/fp32_normalization.h"
#include "npu/golden/fp32_pool.h"
#include "npu/golden/fp32_reduce.h"
#include "npu/golden/fp32_resize.h"
#include "npu/golden/fp32_shape.h"
