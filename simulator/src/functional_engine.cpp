// The functional engine: every instruction in program order on the datapath, no time. Tokens
// are still checked the way hardware would run them (deadlock and hazards) before anything runs.
#include "bounds_check.h"
#include "engine_common.h"
#include "npu/isa/footprint.h"
#include "npu/simulator/datapath.h"
#include "verified_streams.h"

namespace npu::sim {

SimResult runFunctional(const isa::NpuConfig& config, isa::DdrImage ddr,
                        const std::vector<isa::Instruction>& stream, const SimOptions& options) {
  SimResult result;
  result.stats.mode = "functional";
  SramState sram(config);
  try {
    checkStream(stream, config, options.checkHazards);
    for (std::size_t i = 0; i < stream.size(); ++i) {
      checkBounds(stream[i], i, config);
      if (!options.countOnly) {
        executeDatapath(stream[i], sram, ddr, options.datapathThreads);
      }
      countInstruction(stream[i], config, result.stats);
    }
  } catch (const SimFault& fault) {
    result.fault = fault;
  }
  result.ddr = std::move(ddr);
  return result;
}

}  // namespace npu::sim
