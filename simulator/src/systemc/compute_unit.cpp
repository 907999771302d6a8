// ComputeUnit, MacArray and VectorUnit.
#include "compute_unit.h"

#include "npu/simulator/timing.h"
#include "unit_protocol.h"

namespace npu::sim {
namespace {

constexpr std::size_t kComputeUnit = isa::unitIndex(isa::Unit::Compute);

/// Runs instruction i on the sub-unit `unit` (mac_array or vector): its datapath, its cycles,
/// its counters and its span on the sub-unit's trace track.
bool runTimedInstruction(TimedContext& ctx, std::size_t i, const std::string& unit) {
  const std::uint64_t start = TimedContext::now();
  if (!ctx.execute(i)) {
    return false;
  }
  const std::uint64_t duration = instructionCycles(ctx.stream[i], ctx.config);
  markBusy(ctx, kComputeUnit, i, duration);
  sc_core::wait(cycles(duration));
  if (ctx.stopping) {
    return false;
  }
  const std::uint64_t end = TimedContext::now();
  UnitStats& stats = ctx.stats.units[unit];
  ++stats.instructions;
  stats.busyCycles += end - start;
  ctx.addSpan(unit, i, start, end);
  return true;
}

}  // namespace

MacArray::MacArray(const sc_core::sc_module_name& name, TimedContext& context)
    : sc_core::sc_module(name), m_context(context) {}

bool MacArray::run(std::size_t i) {
  return runTimedInstruction(m_context, i, "mac_array");
}

VectorUnit::VectorUnit(const sc_core::sc_module_name& name, TimedContext& context)
    : sc_core::sc_module(name), m_context(context) {}

bool VectorUnit::run(std::size_t i) {
  return runTimedInstruction(m_context, i, "vector");
}

ComputeUnit::ComputeUnit(const sc_core::sc_module_name& name, TimedContext& context)
    : sc_core::sc_module(name),
      m_context(context),
      m_macArray("mac_array", context),
      m_vectorUnit("vector", context) {
  SC_HAS_PROCESS(ComputeUnit);
  SC_THREAD(run);
}

void ComputeUnit::run() {
  TimedContext& ctx = m_context;
  const std::string name = "compute";
  while (const auto next = waitForCommand(ctx, kComputeUnit, name)) {
    const std::size_t i = *next;
    if (!popTokens(ctx, kComputeUnit, i, name)) {
      return;
    }
    const std::uint64_t start = TimedContext::now();
    const isa::Instruction& instruction = ctx.stream[i];
    bool ok = true;
    if (std::holds_alternative<isa::Conv>(instruction)) {
      ok = m_macArray.run(i);
    } else if (std::holds_alternative<isa::Sync>(instruction)) {
      const std::uint64_t duration = instructionCycles(instruction, ctx.config);
      markBusy(ctx, kComputeUnit, i, duration);
      sc_core::wait(cycles(duration));
      ok = !ctx.stopping;
    } else {
      ok = m_vectorUnit.run(i);
    }
    if (!ok) {
      return;
    }
    const std::uint64_t end = TimedContext::now();
    if (!pushTokens(ctx, kComputeUnit, i, name)) {
      return;
    }
    ctx.finish(name, i, start, end);
    ctx.advanceSerial(i);
  }
  ctx.unitFinished[kComputeUnit] = true;
}

}  // namespace npu::sim
