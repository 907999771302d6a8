// Ports and handshakes of the executing units.
#include "unit_protocol.h"

#include <cctype>
#include <stdexcept>

namespace npu::sim {

std::string tokenQueuePortName(TokenQueue queue) {
  std::string name = "tq_";
  for (const char c : isa::tokenQueueInfo(queue).svName) {
    name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return name;
}

ExecutingUnit::ExecutingUnit(const sc_core::sc_module_name& name, TimedContext& context,
                             isa::Unit unit)
    : sc_core::sc_module(name),
      q_head("q_head"),
      m_context(context),
      m_unit(unit),
      m_index(isa::unitIndex(unit)),
      m_name(isa::unitName(unit)) {
  for (const isa::TokenQueueInfo& info : isa::kTokenQueueTable) {
    if (info.producer == unit || info.consumer == unit) {
      m_tokenPorts[static_cast<std::size_t>(info.queue)] =
          std::make_unique<sc_core::sc_port<TokenQueueIf>>(tokenQueuePortName(info.queue).c_str());
    }
  }
}

bool ExecutingUnit::hasTokenPort(TokenQueue queue) const {
  return m_tokenPorts[static_cast<std::size_t>(queue)] != nullptr;
}

sc_core::sc_port<TokenQueueIf>& ExecutingUnit::tokenPort(TokenQueue queue) {
  if (!hasTokenPort(queue)) {
    throw std::logic_error(m_name + " unit has no port for token queue " +
                           std::string(tokenQueueName(queue)));
  }
  return *m_tokenPorts[static_cast<std::size_t>(queue)];
}

TokenQueueIf& ExecutingUnit::tokens(TokenQueue queue) {
  return *tokenPort(queue).operator->();
}

std::optional<std::size_t> ExecutingUnit::waitForCommand(bool countIdle) {
  TimedContext& ctx = m_context;
  m_state = UnitState{};
  const std::uint64_t since = ctx.now();
  while (q_head->size() == 0 || ctx.stopping) {
    if (q_head->closed() || ctx.stopping) {
      return std::nullopt;
    }
    sc_core::wait(q_head->changed() | ctx.stopEvent);
  }
  if (countIdle) {
    ctx.addStall(m_name, "idle", ctx.now() - since);
  }
  return q_head->front();
}

bool ExecutingUnit::popTokens(std::size_t i, bool countStall) {
  TimedContext& ctx = m_context;
  UnitState& state = m_state;
  if (ctx.options.forceSerial) {
    state = UnitState(UnitState::Activity::SerialTurn, i);
  }
  if (!ctx.waitSerialTurn(i)) {
    return false;
  }
  const TokenOps ops = tokenOps(ctx.stream[i]);
  const std::uint64_t since = ctx.now();
  for (std::size_t p = 0; p < ops.popCount; ++p) {
    TokenQueueIf& queue = tokens(ops.pops[p]);
    while (queue.count() == 0) {
      // Name every token still missing, not only the one waited for first.
      state = UnitState(UnitState::Activity::TokenWait, i);
      for (std::size_t q = p; q < ops.popCount; ++q) {
        if (tokens(ops.pops[q]).count() == 0) {
          state.tokens.push_back(ops.pops[q]);
        }
      }
      sc_core::wait(queue.changed() | ctx.stopEvent);
      if (ctx.stopping) {
        return false;
      }
    }
  }
  for (std::size_t p = 0; p < ops.popCount; ++p) {
    tokens(ops.pops[p]).take();
  }
  if (countStall) {
    ctx.addStall(m_name, "token_wait", ctx.now() - since);
  }
  q_head->pop();
  return true;
}

void ExecutingUnit::markBusy(std::size_t i, std::uint64_t cycleCount) {
  m_state = UnitState(UnitState::Activity::Busy, i);
  m_state.until = m_context.now() + cycleCount;
}

bool ExecutingUnit::pushTokens(std::size_t i, bool countStall, UnitState* into) {
  TimedContext& ctx = m_context;
  const TokenOps ops = tokenOps(ctx.stream[i]);
  UnitState& state = into != nullptr ? *into : m_state;
  const std::uint64_t since = ctx.now();
  for (std::size_t p = 0; p < ops.pushCount; ++p) {
    TokenQueueIf& queue = tokens(ops.pushes[p]);
    while (queue.count() >= queue.depth()) {
      state = UnitState(UnitState::Activity::TokenFull, i, {ops.pushes[p]});
      sc_core::wait(queue.changed() | ctx.stopEvent);
      if (ctx.stopping) {
        return false;
      }
    }
    queue.put();
  }
  if (countStall) {
    ctx.addStall(m_name, "token_full", ctx.now() - since);
  }
  return true;
}

void ExecutingUnit::markFinished() {
  m_finished = true;
}

void ExecutingUnit::reset() {
  m_finished = false;
  m_state = UnitState{};
}

}  // namespace npu::sim
