// Limits that partitioning, codegen and the hardware config check against, all read from the
// instruction table: widen a field in instructions.def and every check follows.
#pragma once

#include <algorithm>
#include <cstdint>

#include "npu/isa/instruction.h"

namespace npu::isa::limits {

/// Largest CONV kernel height and width.
inline constexpr std::int64_t kConvKernelH = fieldMax<&Conv::kh>();
inline constexpr std::int64_t kConvKernelW = fieldMax<&Conv::kw>();
/// Largest CONV stride (vertical, horizontal).
inline constexpr std::int64_t kConvStrideH = fieldMax<&Conv::sh>();
inline constexpr std::int64_t kConvStrideW = fieldMax<&Conv::sw>();
/// Largest CONV dilation (vertical, horizontal).
inline constexpr std::int64_t kConvDilationH = fieldMax<&Conv::dh>();
inline constexpr std::int64_t kConvDilationW = fieldMax<&Conv::dw>();

/// Most out_c-channel blocks a CONV leaves free between its int8 output pixels.
inline constexpr std::int64_t kConvOutGap = fieldMax<&Conv::out_gap>();

/// Largest POOL window height and width.
inline constexpr std::int64_t kPoolWindowH = fieldMax<&Pool::kh>();
inline constexpr std::int64_t kPoolWindowW = fieldMax<&Pool::kw>();
/// Largest POOL stride (vertical, horizontal).
inline constexpr std::int64_t kPoolStrideH = fieldMax<&Pool::sh>();
inline constexpr std::int64_t kPoolStrideW = fieldMax<&Pool::sw>();

/// Largest padding LOAD writes on each side (top, left, bottom, right).
inline constexpr std::int64_t kPadTop = fieldMax<&Load::pad_top>();
inline constexpr std::int64_t kPadLeft = fieldMax<&Load::pad_left>();
inline constexpr std::int64_t kPadBottom = fieldMax<&Load::pad_bottom>();
inline constexpr std::int64_t kPadRight = fieldMax<&Load::pad_right>();

/// Whether a convolution's window fits CONV: kernel, stride and dilation, each (height, width).
constexpr bool convWindowFits(std::int64_t kh, std::int64_t kw, std::int64_t sh, std::int64_t sw,
                              std::int64_t dh, std::int64_t dw) {
  return kh <= kConvKernelH && kw <= kConvKernelW && sh <= kConvStrideH && sw <= kConvStrideW &&
         dh <= kConvDilationH && dw <= kConvDilationW;
}

/// Whether a pooling window fits POOL: window and stride, each (height, width).
constexpr bool poolWindowFits(std::int64_t kh, std::int64_t kw, std::int64_t sh, std::int64_t sw) {
  return kh <= kPoolWindowH && kw <= kPoolWindowW && sh <= kPoolStrideH && sw <= kPoolStrideW;
}

/// Whether padding in ONNX order (top, left, bottom, right) fits LOAD's padding fields.
constexpr bool paddingFits(std::int64_t top, std::int64_t left, std::int64_t bottom,
                           std::int64_t right) {
  return top <= kPadTop && left <= kPadLeft && bottom <= kPadBottom && right <= kPadRight;
}

/// Largest tile extent (rows, columns, channels) that every CONV and POOL size field can carry.
inline constexpr std::int64_t kTileExtent =
    std::min({fieldMax<&Conv::out_h>(), fieldMax<&Conv::out_w>(), fieldMax<&Conv::in_w>(),
              fieldMax<&Conv::in_c>(), fieldMax<&Conv::out_c>(), fieldMax<&Pool::in_w>(),
              fieldMax<&Pool::out_h>(), fieldMax<&Pool::out_w>(), fieldMax<&Pool::channels>()});

/// Longest row and most rows of one NORM.
inline constexpr std::int64_t kNormLength = fieldMax<&Norm::length>();
inline constexpr std::int64_t kNormRows = fieldMax<&Norm::rows>();

/// Largest element count of one ELTWISE.
inline constexpr std::int64_t kEltwiseCount = fieldMax<&Eltwise::count>();
/// Largest column count of one LOAD.
inline constexpr std::int64_t kLoadColumns = fieldMax<&Load::x_size>();
/// Largest row count of one LOAD.
inline constexpr std::int64_t kLoadRows = fieldMax<&Load::y_size>();
/// Largest run of contiguous bytes (c_bytes) of one LOAD.
inline constexpr std::int64_t kLoadRunBytes = fieldMax<&Load::c_bytes>();
/// Largest row count of one STORE.
inline constexpr std::int64_t kStoreRows = fieldMax<&Store::y_size>();

/// Bytes of each SRAM that every instruction addressing it can reach (one past the lowest of
/// the highest addresses its fields hold). The accumulator's reach counts int32 entries.
inline constexpr std::int64_t kInputSramReach =
    1 + std::min({fieldMax<&Load::sram_addr>(), fieldMax<&Conv::inp_addr>(),
                  fieldMax<&Eltwise::a_addr>(), fieldMax<&Eltwise::b_addr>(),
                  fieldMax<&Pool::in_addr>()});
inline constexpr std::int64_t kWeightSramReach =
    1 + std::min(fieldMax<&Load::sram_addr>(), fieldMax<&Conv::wgt_addr>());
inline constexpr std::int64_t kAccumulatorSramEntries = 1 + fieldMax<&Conv::acc_addr>();
inline constexpr std::int64_t kOutputSramReach =
    1 + std::min({fieldMax<&Store::sram_addr>(), fieldMax<&Conv::out_addr>(),
                  fieldMax<&Eltwise::out_addr>(), fieldMax<&Pool::out_addr>()});
inline constexpr std::int64_t kParameterSramReach =
    1 + std::min({fieldMax<&Load::sram_addr>(), fieldMax<&Conv::param_addr>(),
                  fieldMax<&Conv::lut_addr>(), fieldMax<&Eltwise::param_addr>(),
                  fieldMax<&Eltwise::lut_addr>()});
/// DDR bytes LOAD and STORE can address.
inline constexpr std::int64_t kDdrReach =
    1 + std::min(fieldMax<&Load::ddr_addr>(), fieldMax<&Store::ddr_addr>());

}  // namespace npu::isa::limits
