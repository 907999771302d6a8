// The compute unit and its engines: the unit takes the compute queue in order and starts CONV on
// the MAC array and ELTWISE/POOL/NORM on the vector unit; only an overlapped ELTWISE runs beside a
// CONV, everything else one instruction at a time.
#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "unit_protocol.h"

namespace npu::sim {

/// What the compute unit sees of an engine (RTL go_mac / go_vector, and the post-processing's
/// fin back): runs one instruction to its end cycle, in the caller's thread.
class ComputeEngineIf : public virtual sc_core::sc_interface {
 public:
  /// Runs instruction i from now until its end; false when it faulted or the run stopped.
  virtual bool run(std::size_t i) = 0;
};

/// An engine of the compute unit with its datapath, cycles, counters and trace track.
class ComputeEngine : public sc_core::sc_module, public ComputeEngineIf {
 public:
  bool run(std::size_t i) override;

 protected:
  /// `track` names the engine's statistics and trace track ("mac_array", "vector").
  ComputeEngine(const sc_core::sc_module_name& name, TimedContext& context, std::string track);

 private:
  TimedContext& m_context;
  std::string m_track;
};

/// The rows x cols MAC array with its post-processing pipeline (bias, requant, clip, LUT): CONV
/// (RTL npu_mac_array with npu_postproc).
class MacArray : public ComputeEngine {
 public:
  MacArray(const sc_core::sc_module_name& name, TimedContext& context);
};

/// The vector unit: `cols` lanes of element-wise and pooling arithmetic, ELTWISE, POOL and NORM
/// (RTL npu_vector with npu_postproc).
class VectorUnit : public ComputeEngine {
 public:
  VectorUnit(const sc_core::sc_module_name& name, TimedContext& context);
};

/// The compute unit: starts its queue in order on two sides, the MAC side (CONV, SYNC) and the
/// vector side (ELTWISE, POOL, NORM), each served by a thread of its own. An instruction waits
/// for its side, and for the other side too unless it is an overlapped ELTWISE
/// (docs/timing.md, "Units and handshakes").
class ComputeUnit : public ExecutingUnit {
 public:
  /// The MAC array, started for every CONV.
  sc_core::sc_port<ComputeEngineIf> go_mac;
  /// The vector unit, started for every ELTWISE, POOL and NORM.
  sc_core::sc_port<ComputeEngineIf> go_vector;

  ComputeUnit(const sc_core::sc_module_name& name, TimedContext& context);

  /// Forgets the previous run (between runs, while the unit's threads wait for the next).
  void reset();
  /// What the unit is doing, for watchdog and deadlock messages: the oldest instruction a side
  /// runs or pushes the tokens of; else what the next instruction waits for.
  [[nodiscard]] UnitState state() const override;

 private:
  enum Side : std::uint8_t { kMacSide, kVectorSide };
  static constexpr std::size_t kSides = 2;

  /// The dispatching thread: takes the queue in order and hands each instruction to its side.
  void run();
  void runProgram();
  /// Side threads: run the instructions handed to them, push their tokens, retire them.
  void runMacSide();
  void runVectorSide();
  void serveSide(Side side);
  /// Runs instruction i on `side` from now to its end and retires it; false when the run stops.
  bool execute(Side side, std::size_t i);
  /// Counts the unit's busy cycles: cycles with at least one of its instructions running.
  void beginBusy();
  void endBusy();
  /// Charges the cycles since the last call to the stall the unit is in, if nothing runs: a side
  /// waiting for room to push ("token_full"), else the next instruction waiting for its tokens
  /// ("token_wait") or for a command ("idle"). Called before each change of that state.
  void account();

  /// What the dispatching thread waits for.
  enum class Waiting : std::uint8_t { Nothing, Command, Tokens };

  /// The instruction each side runs (started and not yet retired).
  std::array<std::optional<std::size_t>, kSides> m_running;
  /// The cycle each side's instruction ends (fault messages).
  std::array<std::uint64_t, kSides> m_until{};
  std::array<sc_core::sc_event, kSides> m_handed;
  sc_core::sc_event m_sideFreed;
  /// The dispatcher has handed over the last instruction of the run (or the run stopped).
  bool m_dispatchDone = false;
  std::size_t m_inFlight = 0;
  std::uint64_t m_busySince = 0;
  Waiting m_waiting = Waiting::Nothing;
  /// Per side: waiting for room to push, and for what.
  std::array<bool, kSides> m_pushing{};
  std::array<UnitState, kSides> m_pushState;
  /// The cycle from which account() charges.
  std::uint64_t m_accountedTo = 0;
};

}  // namespace npu::sim
