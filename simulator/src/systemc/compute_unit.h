// The compute unit: takes the compute queue in order and runs CONV on the MAC array and
// ELTWISE/POOL on the vector unit, one instruction at a time.
#pragma once

#include <systemc>

#include "unit_protocol.h"

namespace npu::sim {

/// The rows x cols MAC array with its post-processing pipeline (bias, requant, clip, LUT).
class MacArray : public sc_core::sc_module {
 public:
  MacArray(const sc_core::sc_module_name& name, TimedContext& context);
  /// Runs CONV instruction i; returns false when it faulted.
  bool run(std::size_t i);

 private:
  TimedContext& m_context;
};

/// The vector unit: `cols` lanes of element-wise and pooling arithmetic.
class VectorUnit : public sc_core::sc_module {
 public:
  VectorUnit(const sc_core::sc_module_name& name, TimedContext& context);
  /// Runs ELTWISE or POOL instruction i; returns false when it faulted.
  bool run(std::size_t i);

 private:
  TimedContext& m_context;
};

class ComputeUnit : public ExecutingUnit {
 public:
  ComputeUnit(const sc_core::sc_module_name& name, TimedContext& context);

 private:
  void run();
  MacArray m_macArray;
  VectorUnit m_vectorUnit;
};

}  // namespace npu::sim
