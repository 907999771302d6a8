// TimedContext: shared helpers of the SystemC units.
#include "timed_context.h"

#include "../bounds_check.h"
#include "../engine_common.h"
#include "npu/isa/footprint.h"
#include "npu/simulator/datapath.h"

namespace npu::sim {

TimedContext::TimedContext(const isa::NpuConfig& cfg,
                           const std::vector<isa::Instruction>& instructions,
                           const SimOptions& opts)
    : config(cfg), stream(instructions), options(opts), sram(cfg) {
  endCycles.assign(instructions.size(), 0);
  stats.mode = "timed";
  // Every unit appears in the statistics, also one the program never uses.
  for (const char* unit : {"fetch", "load", "compute", "mac_array", "vector", "store"}) {
    stats.units[unit] = UnitStats{};
  }
}

std::uint64_t TimedContext::now() {
  return currentCycle();
}

void TimedContext::addStall(const std::string& unit, const std::string& reason, std::uint64_t n) {
  if (n > 0) {
    stats.units[unit].stallCycles[reason] += n;
  }
}

bool TimedContext::execute(std::size_t i, DdrAccess& ddr) {
  try {
    checkBounds(stream[i], i, config);
    if (!options.countOnly) {
      executeDatapath(stream[i], sram, ddr, options.datapathThreads);
    }
  } catch (const SimFault& f) {
    if (!fault) {
      fault = f;
    }
    stop();
    return false;
  }
  return true;
}

void TimedContext::finish(const std::string& unit, std::size_t i, std::uint64_t start,
                          std::uint64_t end) {
  UnitStats& unitStats = stats.units[unit];
  ++unitStats.instructions;
  unitStats.busyCycles += end - start;
  endCycles[i] = end;
  countInstruction(stream[i], config, stats);
  addSpan(unit, i, start, end);
}

void TimedContext::addSpan(const std::string& unit, std::size_t i, std::uint64_t start,
                           std::uint64_t end) {
  if (options.collectTrace) {
    trace.push_back({unit, i, std::string(isa::mnemonicOf(stream[i])), start, end});
  }
}

bool TimedContext::waitSerialTurn(std::size_t i) {
  while (options.forceSerial && serialNext != i && !stopping) {
    sc_core::wait(serialAdvanced);
  }
  return !stopping;
}

void TimedContext::stop() {
  if (!stopping) {
    stopCycle = now();
  }
  stopping = true;
  stopEvent.notify(sc_core::SC_ZERO_TIME);
  serialAdvanced.notify(sc_core::SC_ZERO_TIME);
}

void TimedContext::advanceSerial(std::size_t i) {
  if (options.forceSerial) {
    serialNext = i + 1;
    serialAdvanced.notify(sc_core::SC_ZERO_TIME);
  }
}

}  // namespace npu::sim
