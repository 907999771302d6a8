// ComputeUnit and its engines, MacArray and VectorUnit.
#include "compute_unit.h"

#include <algorithm>
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
  SC_THREAD(runMacSide);
  SC_THREAD(runVectorSide);
}

void ComputeUnit::reset() {
  ExecutingUnit::reset();
  m_running = {};
  m_dispatchDone = false;
  m_inFlight = 0;
  m_busySince = 0;
  m_waiting = Waiting::Nothing;
  m_pushing = {};
  m_pushState = {};
  m_accountedTo = 0;
}

UnitState ComputeUnit::state() const {
  std::optional<Side> oldest;
  for (const Side side : {kMacSide, kVectorSide}) {
    if (m_running[side] && (!oldest || *m_running[side] < *m_running[*oldest])) {
      oldest = side;
    }
  }
  if (!oldest) {
    return m_state;
  }
  if (m_pushing[*oldest]) {
    return m_pushState[*oldest];
  }
  UnitState busy(UnitState::Activity::Busy, *m_running[*oldest]);
  busy.until = m_until[*oldest];
  return busy;
}

void ComputeUnit::account() {
  const std::uint64_t now = m_context.now();
  const std::uint64_t cycles = now - std::min(m_accountedTo, now);
  m_accountedTo = now;
  if (cycles == 0 || m_inFlight > 0) {
    return;
  }
  if (m_pushing[kMacSide] || m_pushing[kVectorSide]) {
    m_context.addStall(m_name, "token_full", cycles);
  } else if (m_waiting == Waiting::Tokens) {
    m_context.addStall(m_name, "token_wait", cycles);
  } else if (m_waiting == Waiting::Command) {
    m_context.addStall(m_name, "idle", cycles);
  }
}

void ComputeUnit::run() {
  m_context.serveRuns([this] { runProgram(); });
}

void ComputeUnit::runMacSide() {
  m_context.serveRuns([this] { serveSide(kMacSide); });
}

void ComputeUnit::runVectorSide() {
  m_context.serveRuns([this] { serveSide(kVectorSide); });
}

void ComputeUnit::runProgram() {
  TimedContext& ctx = m_context;
  m_dispatchDone = false;
  const auto handOverEnds = [this] {
    m_dispatchDone = true;
    for (sc_core::sc_event& handed : m_handed) {
      handed.notify(sc_core::SC_ZERO_TIME);
    }
  };
  m_accountedTo = ctx.now();
  while (true) {
    account();
    m_waiting = Waiting::Command;
    const auto next = waitForCommand(false);
    account();
    m_waiting = Waiting::Nothing;
    if (!next) {
      break;
    }
    const std::size_t i = *next;
    const isa::Instruction& instruction = ctx.stream[i];
    const Side side = isa::onMacSide(instruction) ? kMacSide : kVectorSide;
    const bool overlapped = isa::isOverlapped(instruction);
    const Side other = side == kMacSide ? kVectorSide : kMacSide;
    // Its side must be free, and the other too unless it runs beside it: while waiting, the
    // unit is busy with what runs there.
    while ((m_running[side] || (!overlapped && m_running[other])) && !ctx.stopping) {
      sc_core::wait(m_sideFreed | ctx.stopEvent);
    }
    // Its turn first (force-serial), then its tokens.
    if (ctx.options.forceSerial) {
      m_state = UnitState(UnitState::Activity::SerialTurn, i);
    }
    if (ctx.stopping || !ctx.waitSerialTurn(i)) {
      handOverEnds();
      return;
    }
    account();
    m_waiting = Waiting::Tokens;
    if (!popTokens(i, false)) {
      handOverEnds();
      return;
    }
    account();
    m_waiting = Waiting::Nothing;
    beginBusy();
    m_running[side] = i;
    m_until[side] = ctx.now() + instructionCycles(instruction, ctx.config);
    m_handed[side].notify(sc_core::SC_ZERO_TIME);
  }
  handOverEnds();
  while ((m_running[kMacSide] || m_running[kVectorSide]) && !ctx.stopping) {
    sc_core::wait(m_sideFreed | ctx.stopEvent);
  }
  if (!ctx.stopping) {
    markFinished();
  }
}

void ComputeUnit::serveSide(Side side) {
  TimedContext& ctx = m_context;
  while (true) {
    while (!m_running[side] && !m_dispatchDone && !ctx.stopping) {
      sc_core::wait(m_handed[side] | ctx.stopEvent);
    }
    if (!m_running[side] || ctx.stopping) {
      return;
    }
    if (!execute(side, *m_running[side])) {
      return;
    }
    m_running[side].reset();
    m_sideFreed.notify(sc_core::SC_ZERO_TIME);
  }
}

bool ComputeUnit::execute(Side side, std::size_t i) {
  TimedContext& ctx = m_context;
  const std::uint64_t start = ctx.now();
  bool ok = true;
  if (side == kMacSide && std::holds_alternative<isa::Sync>(ctx.stream[i])) {
    sc_core::wait(ctx.cycles(instructionCycles(ctx.stream[i], ctx.config)), ctx.stopEvent);
    ok = !ctx.stopping;
  } else {
    ok = side == kMacSide ? go_mac->run(i) : go_vector->run(i);
  }
  if (!ok) {
    return false;
  }
  const std::uint64_t end = ctx.now();
  endBusy();
  m_pushing[side] = true;
  m_pushState[side] = UnitState(UnitState::Activity::TokenFull, i);
  const bool pushed = pushTokens(i, false, &m_pushState[side]);
  account();
  m_pushing[side] = false;
  if (!pushed) {
    return false;
  }
  ctx.finish(m_name, i, start, end, false);
  ctx.advanceSerial(i);
  return true;
}

void ComputeUnit::beginBusy() {
  account();
  if (m_inFlight++ == 0) {
    m_busySince = m_context.now();
  }
}

void ComputeUnit::endBusy() {
  account();
  if (--m_inFlight == 0) {
    m_context.stats.units[m_name].busyCycles += m_context.now() - m_busySince;
  }
}

}  // namespace npu::sim
