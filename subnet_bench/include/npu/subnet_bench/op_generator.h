// Random op cases per family: the configurations `npu opcheck` sweeps.
#pragma once

#include <cstdint>

#include "npu/subnet_bench/op_case.h"

namespace npu::bench {

/// The op kind case `index` of a sweep over `family` checks (add, mul, sub, mul in turn; pools
/// cycle max, average, max, average, global).
CaseKind sweepKind(OpFamily family, std::uint64_t index);

/// The family case `index` of an `all` sweep checks: a fixed cycle weighted towards conv
/// (8 conv, 3 eltwise, 4 pool, 2 lut, 2 concat, 1 slice, 1 shuffle, 1 upsample in every 22
/// cases).
OpFamily sweepFamily(std::uint64_t index);

/// What a sweep draws besides the ordinary cases.
struct GeneratorOptions {
  /// About 1% of conv, pool, concat, slice, shuffle and upsample cases get channels, rows or
  /// columns around the largest tile extent the ISA's size fields carry
  /// (isa::limits::kTileExtent), so codegen's handling of those limits is checked; a sweep that
  /// must pass while such a limit is a known failure turns this off.
  bool fieldLimits = true;
};

/// A random valid case of `kind`, fully determined by `seed`. Conv covers kernels 1-7,
/// strides 1-3, dilations 1-3 (5% of the others 4-40 on a 2-3 tap
/// kernel, 3% of the rest kernels of 16-31 taps), dense, grouped,
/// depthwise and channel-multiplier groups, asymmetric and oversized padding, channel counts that
/// are not multiples of the MAC array, odd spatial sizes, zero points at -128 and 127, tiny, huge,
/// zero and unnormalised multipliers, per-channel multipliers, single and double rounding, clips
/// and fused LUTs; the other kinds draw the same way from the parameters they have. Sizes are
/// bounded so one case runs in milliseconds, with a few large enough to be tiled; 5% of conv and
/// pool cases are on wide maps (600-2600 columns of 16-96 channels), whose rows an SRAM half may
/// not hold. Half the matmul cases read a and b from, or write y into, token rows with 1-8
/// heads interleaved in their columns (attention's Q x K^T and P x V on a fused qkv tensor, or
/// views drawn at random: spaced, overlapping or shared heads at column offsets).
OpCase randomCase(CaseKind kind, std::uint64_t seed, const GeneratorOptions& options = {});

}  // namespace npu::bench
