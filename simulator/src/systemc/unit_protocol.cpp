// Command and token handshakes of the executing units.
#include "unit_protocol.h"

namespace npu::sim {

std::optional<std::size_t> waitForCommand(TimedContext& ctx, std::size_t unit,
                                          const std::string& name) {
  CommandQueue& queue = ctx.queues[unit];
  ctx.unitState[unit] = UnitState{};
  const std::uint64_t since = TimedContext::now();
  while (queue.entries.empty() || ctx.stopping) {
    if (ctx.fetchDone || ctx.stopping) {
      return std::nullopt;
    }
    sc_core::wait(queue.changed | ctx.fetchDoneEvent);
  }
  ctx.addStall(name, "idle", TimedContext::now() - since);
  return queue.entries.front();
}

bool popTokens(TimedContext& ctx, std::size_t unit, std::size_t i, const std::string& name) {
  UnitState& state = ctx.unitState[unit];
  if (ctx.options.forceSerial) {
    state = UnitState(UnitState::Activity::SerialTurn, i);
  }
  if (!ctx.waitSerialTurn(i)) {
    return false;
  }
  const TokenOps ops = tokenOps(ctx.stream[i]);
  const std::uint64_t since = TimedContext::now();
  for (std::size_t p = 0; p < ops.popCount; ++p) {
    TokenChannel& channel = ctx.tokens[static_cast<std::size_t>(ops.pops[p])];
    while (channel.count == 0) {
      // Name every token still missing, not only the one waited for first.
      state = UnitState(UnitState::Activity::TokenWait, i);
      for (std::size_t q = p; q < ops.popCount; ++q) {
        if (ctx.tokens[static_cast<std::size_t>(ops.pops[q])].count == 0) {
          state.tokens.push_back(ops.pops[q]);
        }
      }
      sc_core::wait(channel.changed);
      if (ctx.stopping) {
        return false;
      }
    }
  }
  for (std::size_t p = 0; p < ops.popCount; ++p) {
    TokenChannel& channel = ctx.tokens[static_cast<std::size_t>(ops.pops[p])];
    --channel.count;
    channel.changed.notify(sc_core::SC_ZERO_TIME);
  }
  ctx.addStall(name, "token_wait", TimedContext::now() - since);
  ctx.queues[unit].entries.pop_front();
  ctx.queues[unit].changed.notify(sc_core::SC_ZERO_TIME);
  return true;
}

void markBusy(TimedContext& ctx, std::size_t unit, std::size_t i, std::uint64_t cycleCount) {
  UnitState& state = ctx.unitState[unit];
  state = UnitState(UnitState::Activity::Busy, i);
  state.until = TimedContext::now() + cycleCount;
}

bool pushTokens(TimedContext& ctx, std::size_t unit, std::size_t i, const std::string& name) {
  const TokenOps ops = tokenOps(ctx.stream[i]);
  UnitState& state = ctx.unitState[unit];
  const std::uint64_t since = TimedContext::now();
  for (std::size_t p = 0; p < ops.pushCount; ++p) {
    TokenChannel& channel = ctx.tokens[static_cast<std::size_t>(ops.pushes[p])];
    while (channel.count >= channel.depth) {
      state = UnitState(UnitState::Activity::TokenFull, i, {ops.pushes[p]});
      sc_core::wait(channel.changed);
      if (ctx.stopping) {
        return false;
      }
    }
    ++channel.count;
    channel.changed.notify(sc_core::SC_ZERO_TIME);
  }
  ctx.addStall(name, "token_full", TimedContext::now() - since);
  return true;
}

}  // namespace npu::sim
