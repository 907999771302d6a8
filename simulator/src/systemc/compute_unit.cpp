// ComputeUnit and its engines, MacArray and VectorUnit.
#include "compute_unit.h"

#include <stdexcept>
#include <utility>

#include "npu/simulator/timing.h"

namespace npu::sim {
namespace {

/// The compute unit has no DDR port: none of its instructions reaches DDR.
class NoDdr final : public DdrAccess {
 public:
  void read(std::uint64_t /*address*/, std::span<std::uint8_t> /*out*/) override { fail(); }
  void write(std::uint64_t /*address*/, std::span<const std::uint8_t> /*in*/) override { fail(); }

 private:
  [[noreturn]] static void fail() { throw std::logic_error("the compute unit has no DDR port"); }
};

}  // namespace

ComputeEngine::ComputeEngine(const sc_core::sc_module_name& name, TimedContext& context,
                             std::string track)
    : sc_core::sc_module(name), m_context(context), m_track(std::move(track)) {}

bool ComputeEngine::run(std::size_t i) {
  TimedContext& ctx = m_context;
  const std::uint64_t start = ctx.now();
  NoDdr noDdr;
  if (!ctx.execute(i, noDdr)) {
    return false;
  }
  const std::uint64_t duration = instructionCycles(ctx.stream[i], ctx.config);
  sc_core::wait(ctx.cycles(duration), ctx.stopEvent);
  if (ctx.stopping) {
    return false;
  }
  const std::uint64_t end = ctx.now();
  UnitStats& stats = ctx.stats.units[m_track];
  ++stats.instructions;
  stats.busyCycles += end - start;
  ctx.addSpan(m_track, i, start, end);
  return true;
}

MacArray::MacArray(const sc_core::sc_module_name& name, TimedContext& context)
    : ComputeEngine(name, context, "mac_array") {}

VectorUnit::VectorUnit(const sc_core::sc_module_name& name, TimedContext& context)
    : ComputeEngine(name, context, "vector") {}

ComputeUnit::ComputeUnit(const sc_core::sc_module_name& name, TimedContext& context)
    : ExecutingUnit(name, context, isa::Unit::Compute), go_mac("go_mac"), go_vector("go_vector") {
  SC_HAS_PROCESS(ComputeUnit);
  SC_THREAD(run);
}

void ComputeUnit::run() {
  m_context.serveRuns([this] { runProgram(); });
}

void ComputeUnit::runProgram() {
  TimedContext& ctx = m_context;
  while (const auto next = waitForCommand()) {
    const std::size_t i = *next;
    if (!popTokens(i)) {
      return;
    }
    const std::uint64_t start = ctx.now();
    const isa::Instruction& instruction = ctx.stream[i];
    const std::uint64_t duration = instructionCycles(instruction, ctx.config);
    markBusy(i, duration);
    bool ok = true;
    if (std::holds_alternative<isa::Conv>(instruction)) {
      ok = go_mac->run(i);
    } else if (std::holds_alternative<isa::Sync>(instruction)) {
      sc_core::wait(ctx.cycles(duration), ctx.stopEvent);
      ok = !ctx.stopping;
    } else {
      ok = go_vector->run(i);
    }
    if (!ok) {
      return;
    }
    const std::uint64_t end = ctx.now();
    if (!pushTokens(i)) {
      return;
    }
    ctx.finish(m_name, i, start, end);
    ctx.advanceSerial(i);
  }
  markFinished();
}

}  // namespace npu::sim
