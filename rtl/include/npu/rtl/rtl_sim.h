// Running a program on the RTL NPU: the Verilator model of rtl/sv behind a cycle-exact DDR model
// (the port protocol of docs/rtl.md), from the program's initial DDR image to END.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "npu/isa/ddr_image.h"
#include "npu/isa/npu_config.h"
#include "npu/isa/program.h"
#include "npu/support/cpu_time.h"

namespace npu::rtl {

struct RtlOptions {
  /// Watchdog: a run still going after this many cycles is an error.
  std::uint64_t maxCycles = 1'000'000'000ULL;
  /// When set, an FST waveform of every signal is written here.
  std::filesystem::path waveform;
};

struct RtlResult {
  isa::DdrImage ddr{0};
  /// The last instruction's end cycle, counted as the SystemC model counts it.
  std::uint64_t totalCycles = 0;
  /// Cycle at which each instruction finished (END: the cycle fetch reached it), indexed like
  /// sim::SimResult::endCycles so the two can be compared per instruction.
  std::vector<std::uint64_t> endCycles;
  /// CPU seconds the simulation loop took (cpuSeconds), for speed figures.
  double seconds = 0.0;
};

/// The hardware config the RTL model was generated from (rtl/generated/npu_config_*_pkg.sv).
const isa::NpuConfig& rtlConfig();

/// Throws npu::Error when programs for `target` cannot run on the RTL (it is not the hardware
/// config rtlConfig() the model was generated from).
void checkRtlHardware(const isa::NpuConfig& target);

/// Runs `program` on the RTL. Throws npu::Error when the program targets a different hardware
/// config, when an ELTWISE with overlap = 1 pushes a token (isa::validate's rule; `program` need
/// not have been validated), when fetch decodes an illegal opcode, on a DDR access outside the
/// image, or when the watchdog fires.
RtlResult runRtl(const isa::Program& program, const RtlOptions& options = {});

}  // namespace npu::rtl
