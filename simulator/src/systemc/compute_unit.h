// The compute unit and its engines: the unit takes the compute queue in order and starts CONV on
// the MAC array and ELTWISE/POOL on the vector unit, one instruction at a time.
#pragma once

#include <systemc>

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

class ComputeUnit : public ExecutingUnit {
 public:
  /// The MAC array, started for every CONV.
  sc_core::sc_port<ComputeEngineIf> go_mac;
  /// The vector unit, started for every ELTWISE, POOL and NORM.
  sc_core::sc_port<ComputeEngineIf> go_vector;

  ComputeUnit(const sc_core::sc_module_name& name, TimedContext& context);

 private:
  void run();
  /// This unit's part of one run of the program.
  void runProgram();
};

}  // namespace npu::sim
