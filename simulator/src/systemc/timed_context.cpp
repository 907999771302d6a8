// TimedContext: shared helpers of the SystemC units.
#include "timed_context.h"

#include <fmt/format.h>

#include <algorithm>

#include "../bounds_check.h"
#include "../engine_common.h"
#include "npu/isa/footprint.h"
#include "npu/simulator/datapath.h"

namespace npu::sim {
namespace {

/// The statistics of a run before its first instruction.
SimStats freshStats() {
  SimStats stats;
  stats.mode = "timed";
  // Every unit appears in the statistics, also one the program never uses.
  for (const char* unit : {"fetch", "load", "compute", "mac_array", "vector", "store"}) {
    stats.units[unit] = UnitStats{};
  }
  return stats;
}

}  // namespace

TimedContext::TimedContext(const isa::NpuConfig& cfg,
                           const std::vector<isa::Instruction>& instructions,
                           const SimOptions& opts, RunMode mode,
                           const sc_core::sc_time& cyclePeriod)
    : config(cfg),
      stream(instructions),
      options(opts),
      sram(cfg),
      runMode(mode),
      period(cyclePeriod),
      stats(freshStats()) {
  endCycles.assign(instructions.size(), 0);
}

std::uint64_t TimedContext::now() const {
  return (sc_core::sc_time_stamp() - origin).value() / period.value();
}

sc_core::sc_time TimedContext::cycles(std::uint64_t n) const {
  return period * static_cast<double>(n);
}

void TimedContext::waitUntil(std::uint64_t cycle) {
  const sc_core::sc_time due = origin + cycles(cycle);
  const sc_core::sc_time current = sc_core::sc_time_stamp();
  sc_core::wait(due > current ? due - current : sc_core::SC_ZERO_TIME, stopEvent);
}

void TimedContext::addStall(const std::string& unit, const std::string& reason, std::uint64_t n) {
  if (n > 0) {
    stats.units[unit].stallCycles[reason] += n;
  }
}

bool TimedContext::execute(std::size_t i, DdrAccess& ddr) {
  try {
    try {
      checkBounds(stream[i], i, config);
      if (!options.countOnly) {
        executeDatapath(stream[i], sram, ddr, options.datapathThreads);
      }
    } catch (const DdrBusError& e) {
      // The memory behind the socket refused an access the DDR size allows (a platform mapping
      // less memory than the hardware config's ddr.size_bytes).
      throw SimFault(
          FaultKind::DdrOutOfRange, static_cast<std::int64_t>(i),
          fmt::format("{} fault at instruction {} ({}, {} unit): {}",
                      faultKindName(FaultKind::DdrOutOfRange), i, isa::mnemonicOf(stream[i]),
                      isa::unitName(isa::executingUnit(stream[i])), e.what()));
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
                          std::uint64_t end, bool countBusy) {
  UnitStats& unitStats = stats.units[unit];
  ++retired;
  ++unitStats.instructions;
  if (countBusy) {
    unitStats.busyCycles += end - start;
  }
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

void TimedContext::closeStats() {
  std::uint64_t total = 0;
  for (const std::uint64_t end : endCycles) {
    total = std::max(total, end);
  }
  stats.mode = "timed";
  stats.totalCycles = fault ? stopCycle : total;
  if (stats.totalCycles > 0) {
    stats.macUtilization =
        static_cast<double>(stats.macs) /
        (static_cast<double>(stats.totalCycles) * static_cast<double>(config.macRows) *
         static_cast<double>(config.macCols));
  }
}

void TimedContext::serveRuns(const std::function<void()>& body) {
  if (runMode == RunMode::Once) {
    body();
    return;
  }
  ++m_threads;
  while (!m_closed) {
    sc_core::wait(m_begin);
    if (m_closed) {
      return;
    }
    body();
    if (--m_running == 0) {
      runEnded.notify(sc_core::SC_ZERO_TIME);
    }
  }
}

void TimedContext::close() {
  m_closed = true;
  stop();
  m_begin.notify(sc_core::SC_ZERO_TIME);
}

void TimedContext::begin() {
  sram = SramState(config);
  stopping = false;
  stopCycle = 0;
  serialNext = 0;
  stats = freshStats();
  trace.clear();
  endCycles.assign(stream.size(), 0);
  fault.reset();
  retired = 0;
  origin = sc_core::sc_time_stamp();
  stopEvent.cancel();
  serialAdvanced.cancel();
  m_running = m_threads;
  m_begin.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace npu::sim
