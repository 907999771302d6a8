// Cycle formulas of docs/timing.md.
#include "npu/simulator/timing.h"

#include <algorithm>
#include <numeric>

#include "npu/isa/footprint.h"
#include "npu/support/overloaded.h"

namespace npu::sim {
namespace {

using u64 = std::uint64_t;

u64 ceilDiv(u64 a, u64 b) {
  return (a + b - 1) / b;
}

// Bursts of the aligned B-byte windows that the run [address, address + bytes) touches.
u64 runBursts(u64 address, u64 bytes, u64 burst) {
  if (bytes == 0) {
    return 0;
  }
  return (address + bytes - 1) / burst - address / burst + 1;
}

}  // namespace

u64 dmaBeats(u64 address, u64 rows, u64 rowStride, u64 cols, u64 colStride, u64 runBytes,
             const isa::NpuConfig& config) {
  const auto burst = static_cast<u64>(config.ddrBurstBytes);
  const u64 beatsPerBurst = burst / static_cast<u64>(config.ddrBytesPerCycle);
  // Merge abutting runs: columns into one row run, rows into one block run.
  if (colStride == runBytes || cols == 1) {
    runBytes *= cols;
    cols = 1;
    if (rowStride == runBytes || rows == 1) {
      runBytes *= rows;
      rows = 1;
    }
  }
  // A run's bursts depend only on its address modulo the burst, and the run addresses repeat
  // that residue every burst / gcd(stride, burst) rows or columns (every row or column when the
  // stride keeps the alignment): sum one period of each, weighted by how often each of its
  // residues occurs. Exact, and at most burst^2 steps however many rows and columns a (hostile)
  // instruction names; this is also the watchdog budget's cost (cycleBudget).
  const u64 rowPeriod = rows == 1 ? 1 : burst / std::gcd(rowStride % burst, burst);
  const u64 colPeriod = cols == 1 ? 1 : burst / std::gcd(colStride % burst, burst);
  u64 bursts = 0;
  for (u64 r = 0; r < std::min(rows, rowPeriod); ++r) {
    const u64 rowCount = (rows - 1 - r) / rowPeriod + 1;
    for (u64 k = 0; k < std::min(cols, colPeriod); ++k) {
      const u64 colCount = (cols - 1 - k) / colPeriod + 1;
      bursts +=
          rowCount * colCount * runBursts(address + r * rowStride + k * colStride, runBytes, burst);
    }
  }
  return bursts * beatsPerBurst;
}

u64 transferBeats(const isa::Instruction& instruction, const isa::NpuConfig& config) {
  if (const auto* load = std::get_if<isa::Load>(&instruction)) {
    return dmaBeats(static_cast<u64>(load->ddr_addr), static_cast<u64>(load->y_size),
                    static_cast<u64>(load->ddr_row_stride), static_cast<u64>(load->x_size),
                    static_cast<u64>(load->ddr_col_stride), static_cast<u64>(load->c_bytes),
                    config);
  }
  if (const auto* store = std::get_if<isa::Store>(&instruction)) {
    return dmaBeats(static_cast<u64>(store->ddr_addr), static_cast<u64>(store->y_size),
                    static_cast<u64>(store->ddr_row_stride), static_cast<u64>(store->x_size),
                    static_cast<u64>(store->ddr_col_stride), static_cast<u64>(store->c_bytes),
                    config);
  }
  return 0;
}

DdrTraffic ddrTraffic(const isa::Instruction& instruction, const isa::NpuConfig& config) {
  DdrTraffic traffic;
  for (const isa::Access& access : isa::footprint(instruction)) {
    if (access.space == isa::MemorySpace::Ddr) {
      (access.write ? traffic.bytesWritten : traffic.bytesRead) +=
          access.yCount * access.xCount * access.run;
    }
  }
  traffic.burstBytes =
      transferBeats(instruction, config) * static_cast<u64>(config.ddrBytesPerCycle);
  return traffic;
}

u64 instructionCycles(const isa::Instruction& instruction, const isa::NpuConfig& config) {
  const auto rows = static_cast<u64>(config.macRows);
  const auto cols = static_cast<u64>(config.macCols);
  const auto width = static_cast<u64>(config.ddrBytesPerCycle);
  const auto latency = static_cast<u64>(config.ddrLatencyCycles);
  // One lambda per instruction: a new instruction without its formula does not compile.
  return std::visit(
      Overloaded{
          [&](const isa::Load& load) -> u64 {
            const u64 total = static_cast<u64>((load.pad_top + load.y_size + load.pad_bottom) *
                                               (load.pad_left + load.x_size + load.pad_right));
            const u64 padBytes = (total - static_cast<u64>(load.y_size * load.x_size)) *
                                 static_cast<u64>(load.c_bytes);
            return latency + transferBeats(instruction, config) + ceilDiv(padBytes, width);
          },
          [&](const isa::Store&) -> u64 { return latency + transferBeats(instruction, config); },
          [&](const isa::Conv& conv) -> u64 {
            const u64 pixels = static_cast<u64>(conv.out_h * conv.out_w);
            const u64 taps = static_cast<u64>(conv.kh * conv.kw);
            const u64 channelBlocks = ceilDiv(static_cast<u64>(conv.out_c), cols);
            if (conv.depthwise != 0) {
              // Depthwise: columns take channels, rows take kernel taps.
              return pixels * channelBlocks * ceilDiv(taps, rows) + kComputePipelineCycles;
            }
            return pixels * channelBlocks * taps * ceilDiv(static_cast<u64>(conv.in_c), rows) +
                   kComputePipelineCycles;
          },
          [&](const isa::Eltwise& eltwise) -> u64 {
            return ceilDiv(static_cast<u64>(eltwise.count), cols) + kComputePipelineCycles;
          },
          [&](const isa::Pool& pool) -> u64 {
            return static_cast<u64>(pool.out_h * pool.out_w * pool.kh * pool.kw) *
                       ceilDiv(static_cast<u64>(pool.channels), cols) +
                   kComputePipelineCycles;
          },
          [&](const isa::Norm& norm) -> u64 {
            // Three passes over each row, C values per cycle (RMSNorm two: no row sum), then the
            // row's serial arithmetic.
            const u64 perRow =
                norm.op == isa::kNormSoftmax ? kSoftmaxRowCycles : kLayerNormRowCycles;
            const u64 passes = norm.op == isa::kNormRmsNorm ? 2 : 3;
            return static_cast<u64>(norm.rows) *
                       (passes * ceilDiv(static_cast<u64>(norm.length), cols) + perRow) +
                   kComputePipelineCycles;
          },
          [](const isa::Sync&) -> u64 { return 1; },
          // END only stops the fetch unit: no unit is busy for it.
          [](const isa::End&) -> u64 { return 0; },
      },
      instruction);
}

u64 cycleBudget(std::span<const isa::Instruction> stream, const isa::NpuConfig& config) {
  constexpr u64 kSlack = 1'000'000;
  constexpr u64 kFactor = 4;
  u64 serial = 0;
  for (const isa::Instruction& instruction : stream) {
    serial += kFetchCyclesPerWord + instructionCycles(instruction, config);
  }
  return kFactor * serial + kSlack;  // no overflow: fields bound each term far below 2^60
}

u64 macCount(const isa::Instruction& instruction) {
  if (const auto* conv = std::get_if<isa::Conv>(&instruction)) {
    return static_cast<u64>(conv->out_h * conv->out_w * conv->out_c * conv->kh * conv->kw *
                            (conv->depthwise != 0 ? 1 : conv->in_c));
  }
  return 0;
}

}  // namespace npu::sim
