// The cycle cost of every instruction: the formulas of docs/timing.md, the contract the RTL is
// built to. The SystemC model takes every duration from here.
#pragma once

#include <cstdint>
#include <span>

#include "npu/isa/instruction.h"
#include "npu/isa/npu_config.h"

namespace npu::sim {

/// Cycles of post-processing pipeline (bias, requant, clip, LUT) after the last MAC, and of the
/// vector unit's pipeline.
inline constexpr std::uint64_t kComputePipelineCycles = 4;
/// NORM's serial arithmetic per row (docs/timing.md): softmax's reciprocal, one of its 40
/// quotient bits per cycle; LayerNorm's W = V + E (1 cycle), square root (32 root bits) and
/// reciprocal (47 quotient bits).
inline constexpr std::uint64_t kSoftmaxRowCycles = 40;
inline constexpr std::uint64_t kLayerNormRowCycles = 80;
/// Cycles fetch needs per instruction word after the first arrives.
inline constexpr std::uint64_t kFetchCyclesPerWord = 1;

/// Data beats a strided DDR transfer starting at `address` needs: contiguous runs (columns and
/// rows merge when they abut); DDR moves whole aligned bursts, so each run costs every
/// burst_bytes-aligned burst it touches, burst_bytes / bytes_per_cycle beats each.
std::uint64_t dmaBeats(std::uint64_t address, std::uint64_t rows, std::uint64_t rowStride,
                       std::uint64_t cols, std::uint64_t colStride, std::uint64_t runBytes,
                       const isa::NpuConfig& config);

/// DDR data beats of a LOAD or STORE (its runs' whole bursts, dmaBeats); 0 for the others.
std::uint64_t transferBeats(const isa::Instruction& instruction, const isa::NpuConfig& config);

/// DDR traffic of one instruction: the bytes it reads and writes, and what the port moves for
/// them in whole bursts (transferBeats x bytes per cycle).
struct DdrTraffic {
  std::uint64_t bytesRead = 0;
  std::uint64_t bytesWritten = 0;
  std::uint64_t burstBytes = 0;
};
DdrTraffic ddrTraffic(const isa::Instruction& instruction, const isa::NpuConfig& config);

/// Cycles an instruction keeps its unit busy once it has started (after its pops and, for LOAD
/// and STORE, after the DDR port was granted). Token pushes happen at the end.
std::uint64_t instructionCycles(const isa::Instruction& instruction, const isa::NpuConfig& config);

/// The default watchdog of a timed run of `stream`: four times the cycles its instructions would
/// take one after another (each fetched, then run alone, DDR latency included), plus 1,000,000.
/// A run that neither deadlocks nor faults ends well inside it, since overlap only shortens a
/// run and no wait outlasts the work it waits for; a fixed limit would cut a long legitimate
/// program short and let a short runaway one spin for billions of cycles.
std::uint64_t cycleBudget(std::span<const isa::Instruction> stream, const isa::NpuConfig& config);

/// Multiply-accumulates a CONV performs (for utilisation figures); 0 for other instructions.
std::uint64_t macCount(const isa::Instruction& instruction);

}  // namespace npu::sim
