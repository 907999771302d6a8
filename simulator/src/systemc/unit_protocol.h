// The steps every executing unit takes per instruction: wait for a command, pop its tokens,
// and push its tokens when done, counting the cycles spent waiting.
#pragma once

#include <optional>
#include <string>

#include "timed_context.h"

namespace npu::sim {

/// Waits for the next instruction of queue `unit`; nullopt once fetch is done and the queue is
/// empty. Idle cycles count as the "idle" stall.
std::optional<std::size_t> waitForCommand(TimedContext& ctx, std::size_t unit,
                                          const std::string& name);

/// Waits until every token instruction i pops is available, consumes them, and removes i from
/// its queue (the unit has started it). False when the run is stopping.
bool popTokens(TimedContext& ctx, std::size_t unit, std::size_t i, const std::string& name);

/// Records that `unit` runs instruction i for `cycleCount` cycles from now (for fault messages).
void markBusy(TimedContext& ctx, std::size_t unit, std::size_t i, std::uint64_t cycleCount);

/// Pushes every token instruction i pushes, waiting for room in a full token queue. False when
/// the run is stopping.
bool pushTokens(TimedContext& ctx, std::size_t unit, std::size_t i, const std::string& name);

}  // namespace npu::sim
