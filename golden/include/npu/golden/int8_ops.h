// Umbrella header: every int8 reference op and helper of docs/numerics.md (NHWC layouts).
#pragma once

#include "npu/golden/activation_range.h"
#include "npu/golden/int8_conv.h"
#include "npu/golden/int8_data_movement.h"
#include "npu/golden/int8_elementwise.h"
#include "npu/golden/int8_matmul.h"
#include "npu/golden/int8_norm.h"
#include "npu/golden/int8_pool.h"
#include "npu/golden/int8_reduce.h"
#include "npu/golden/int8_resize.h"
#include "npu/golden/int8_tensor.h"
#include "npu/golden/lut.h"
#include "npu/golden/output_stage.h"
#include "npu/golden/quantize.h"
#include "npu/golden/requant.h"
