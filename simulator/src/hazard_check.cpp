// Race detection over the token order: per byte, the last writer and the last reader on each
// lane (a unit, or a side of the compute unit); a conflicting access from another lane must be
// ordered after them, by tokens or by the compute unit's start rule.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "npu/isa/footprint.h"
#include "npu/isa/shadow_pages.h"
#include "npu/simulator/sim_fault.h"
#include "npu/simulator/token_analysis.h"

namespace npu::sim {
namespace {

struct Shadow {
  std::int32_t writer = -1;
  std::array<std::int32_t, isa::kLanes> reader{-1, -1, -1, -1};
  friend bool operator==(const Shadow&, const Shadow&) = default;
  friend auto operator<=>(const Shadow&, const Shadow&) = default;
};

std::string describe(std::span<const isa::Instruction> instructions, std::size_t i) {
  return fmt::format("instruction {} ({}, {} unit)", i, isa::mnemonicOf(instructions[i]),
                     isa::unitName(isa::executingUnit(instructions[i])));
}

}  // namespace

void checkHazards(std::span<const isa::Instruction> instructions, const TokenOrder& order,
                  const isa::NpuConfig& config) {
  // Per memory space and byte: the last writer and, since it, the last reader on each unit.
  std::array<isa::ShadowPages<Shadow>, 6> memories;
  for (std::size_t i = 0; i < instructions.size(); ++i) {
    if (order.unit[i] == kEndUnit) {
      continue;
    }
    // An access outside its memory faults when the instruction runs (checkBounds), so nothing
    // from there on executes; walking its footprint could take billions of steps (a damaged
    // LOAD with 65535 x 65535 columns), so the analysis ends here.
    const std::vector<isa::Access> accesses = isa::footprint(instructions[i]);
    if (std::any_of(accesses.begin(), accesses.end(), [&](const isa::Access& access) {
          return access.end() > isa::spaceBytes(config, access.space);
        })) {
      return;
    }
    const std::size_t lane = order.lane[i];
    const auto self = static_cast<std::int32_t>(i);
    const auto unordered = [&](std::int32_t other) {
      return other >= 0 && !order.happensBefore(static_cast<std::size_t>(other), i);
    };
    for (const isa::Access& access : accesses) {
      isa::ShadowPages<Shadow>& memory = memories[static_cast<std::size_t>(access.space)];
      // The writer conflicts unless it ran on this unit or before; on a write, so does any other
      // unit's reader. The instruction it conflicts with, and what that one does.
      struct Conflict {
        std::int32_t other;
        std::string_view what;
      };
      const auto conflictWith = [&](const Shadow& shadow) -> std::optional<Conflict> {
        if (shadow.writer >= 0 && order.lane[shadow.writer] != lane && unordered(shadow.writer)) {
          return Conflict{shadow.writer, "writes"};
        }
        if (access.write) {
          for (std::size_t r = 0; r < isa::kLanes; ++r) {
            if (r != lane && unordered(shadow.reader[r])) {
              return Conflict{shadow.reader[r], "reads"};
            }
          }
        }
        return std::nullopt;
      };
      const auto report = [&](std::uint64_t address, const Conflict& conflict) {
        throw SimFault(
            FaultKind::Hazard, self,
            fmt::format("hazard fault at instruction {}: {} {} {} byte 0x{:x}, which {} {} ({}); "
                        "{}",
                        i, describe(instructions, i), access.write ? "writes" : "reads",
                        isa::memorySpaceName(access.space), address,
                        describe(instructions, conflict.other), conflict.what,
                        conflict.other < self ? "earlier in program order" : "later",
                        order.unit[static_cast<std::size_t>(conflict.other)] == order.unit[i]
                            ? "the overlapped ELTWISE may run beside it"
                            : "no dependency token orders them"));
      };
      // Runs that continue one another (a tile's pixels, rows of a whole-width band) are one
      // access: checking and recording them together touches exactly the bytes the separate runs
      // would, in the same address order.
      std::uint64_t pendingFirst = 0;
      std::uint64_t pendingEnd = 0;
      const auto flush = [&] {
        if (pendingEnd == pendingFirst) {
          return;
        }
        // Every byte is checked before any is recorded.
        std::optional<Conflict> conflict;
        if (const std::optional<std::uint64_t> address =
                memory.find(pendingFirst, pendingEnd, [&](std::uint64_t, const Shadow& shadow) {
                  conflict = conflictWith(shadow);
                  return conflict.has_value();
                })) {
          report(*address, *conflict);
        }
        if (access.write) {
          memory.assign(pendingFirst, pendingEnd, Shadow{.writer = self});
        } else {
          memory.transform(pendingFirst, pendingEnd, [&](Shadow shadow) {
            shadow.reader[lane] = self;
            return shadow;
          });
        }
      };
      access.forEachRun([&](std::uint64_t first, std::uint64_t length) {
        if (first == pendingEnd && pendingEnd != pendingFirst) {
          pendingEnd += length;
          return;
        }
        flush();
        pendingFirst = first;
        pendingEnd = first + length;
      });
      flush();
    }
  }
}

}  // namespace npu::sim
