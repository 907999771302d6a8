// State every SystemC unit of one timed run shares: the program, SRAMs, statistics, the stop flag,
// the time base and how the unit threads are started. The queues between units and the DDR port
// are channels behind ports (NpuTop).
#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <functional>
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

/// How the unit threads of one context run the program.
enum class RunMode : std::uint8_t {
  /// Once, from time 0; then every thread returns (the timed engine: one run per context).
  Once,
  /// Once per begin(), until close() (TlmNpu in a caller's simulation).
  EachStart,
};

struct TimedContext {
  /// `instructions` may be refilled between runs (RunMode::EachStart) but must outlive the
  /// context; `cyclePeriod` is the simulated time of one cycle.
  TimedContext(const isa::NpuConfig& cfg, const std::vector<isa::Instruction>& instructions,
               const SimOptions& opts, RunMode mode = RunMode::Once,
               const sc_core::sc_time& cyclePeriod = enginePeriod());

  const isa::NpuConfig& config;
  const std::vector<isa::Instruction>& stream;
  SimOptions options;
  SramState sram;
  const RunMode runMode;
  /// The simulated time of one cycle.
  const sc_core::sc_time period;
  /// The simulated time of the current run's cycle 0.
  sc_core::sc_time origin = sc_core::SC_ZERO_TIME;

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
  /// Instructions finished so far in this run, END included.
  std::uint64_t retired = 0;

  /// The current cycle of the run.
  [[nodiscard]] std::uint64_t now() const;
  /// `n` cycles as a SystemC time.
  [[nodiscard]] sc_core::sc_time cycles(std::uint64_t n) const;
  /// Waits until cycle `cycle` of the run (a delta cycle when it is now or past), or until the
  /// run stops.
  void waitUntil(std::uint64_t cycle);
  /// Adds `cycles` to a unit's stall counter for `reason`.
  void addStall(const std::string& unit, const std::string& reason, std::uint64_t cycles);
  /// Bounds check and datapath of instruction i, a LOAD or STORE reaching the DDR through
  /// `ddr`; on a fault records it and stops the run.
  bool execute(std::size_t i, DdrAccess& ddr);
  /// Records a finished instruction: its unit's counters, its end cycle and its trace span.
  /// `countBusy` false leaves the unit's busy cycles to the caller (the compute unit, whose
  /// instructions may overlap, counts the cycles in which any runs).
  void finish(const std::string& unit, std::size_t i, std::uint64_t start, std::uint64_t end,
              bool countBusy = true);
  /// Records a trace span of instruction i on `unit`'s track (when tracing).
  void addSpan(const std::string& unit, std::size_t i, std::uint64_t start, std::uint64_t end);
  /// Waits until instruction i may start under force-serial (no-op otherwise); false if stopping.
  bool waitSerialTurn(std::size_t i);
  /// Sets `stopping` and wakes every waiting thread.
  void stop();
  /// Marks instruction i done for force-serial.
  void advanceSerial(std::size_t i);
  /// The run's total cycles (the last end cycle, or the stop cycle after a fault) and the MAC
  /// utilization they give, into `stats`.
  void closeStats();

  /// Runs a unit thread's part of the program, `body`: in RunMode::Once now, once; in
  /// RunMode::EachStart after every begin(), until close(). Called once by each unit thread.
  void serveRuns(const std::function<void()>& body);
  /// RunMode::EachStart: clears the state of the previous run and starts every unit thread at
  /// the current time, which becomes cycle 0.
  void begin();
  /// RunMode::EachStart: stops a run in progress and lets every unit thread return from
  /// serveRuns, unwinding its stack; no run follows.
  void close();
  /// Whether a thread started by begin() has not yet returned from its part of the run.
  [[nodiscard]] bool unitsRunning() const { return m_running > 0; }
  /// Notified (one delta later) when the last thread started by begin() returns.
  sc_core::sc_event runEnded;

 private:
  sc_core::sc_event m_begin;
  bool m_closed = false;
  unsigned m_threads = 0;
  unsigned m_running = 0;
};

}  // namespace npu::sim
