// State every SystemC unit of one timed run shares: the program, SRAMs, statistics and the stop
// flag. The queues between units and the DDR port are channels behind ports (NpuTop).
#pragma once

#include <systemc>

#include <array>
#include <optional>
#include <vector>

#include "../datapath_ops.h"
#include "../unit_state.h"
#include "cycle_time.h"
#include "npu/isa/instruction.h"
#include "npu/simulator/simulate.h"
#include "npu/simulator/sram_state.h"
#include "npu/simulator/tokens.h"

namespace npu::sim {

struct TimedContext {
  TimedContext(const isa::NpuConfig& cfg, const std::vector<isa::Instruction>& instructions,
               const SimOptions& opts);

  const isa::NpuConfig& config;
  const std::vector<isa::Instruction>& stream;
  SimOptions options;
  SramState sram;

  /// Set when the run must end (fault, watchdog, or the end of the run): every wait loop checks
  /// it after waking, so each SystemC thread returns normally and unwinds its stack.
  bool stopping = false;
  /// Cycle at which stop() was first called.
  std::uint64_t stopCycle = 0;
  /// Notified (one delta later) by stop(): every wait also waits for it.
  sc_core::sc_event stopEvent;

  /// Force-serial mode: index of the next instruction allowed to start.
  std::size_t serialNext = 0;
  sc_core::sc_event serialAdvanced;

  SimStats stats;
  std::vector<TraceSpan> trace;
  std::vector<std::uint64_t> endCycles;
  std::optional<SimFault> fault;

  /// The current cycle.
  [[nodiscard]] static std::uint64_t now();
  /// Adds `cycles` to a unit's stall counter for `reason`.
  void addStall(const std::string& unit, const std::string& reason, std::uint64_t cycles);
  /// Bounds check and datapath of instruction i, a LOAD or STORE reaching the DDR through
  /// `ddr`; on a fault records it and stops the run.
  bool execute(std::size_t i, DdrAccess& ddr);
  /// Records a finished instruction: its unit's counters, its end cycle and its trace span.
  void finish(const std::string& unit, std::size_t i, std::uint64_t start, std::uint64_t end);
  /// Records a trace span of instruction i on `unit`'s track (when tracing).
  void addSpan(const std::string& unit, std::size_t i, std::uint64_t start, std::uint64_t end);
  /// Waits until instruction i may start under force-serial (no-op otherwise); false if stopping.
  bool waitSerialTurn(std::size_t i);
  /// Sets `stopping` and wakes every waiting thread.
  void stop();
  /// Marks instruction i done for force-serial.
  void advanceSerial(std::size_t i);
};

}  // namespace npu::sim
