// Race detection over the token order: per byte, the last writer and the last reader on each
// unit; a conflicting access from another unit must be ordered after them by tokens.
#include <fmt/format.h>

#include <algorithm>

#include <map>
#include <memory>

#include "npu/isa/footprint.h"
#include "npu/simulator/sim_fault.h"
#include "npu/simulator/token_analysis.h"

namespace npu::sim {
namespace {

struct Shadow {
  std::int32_t writer = -1;
  std::array<std::int32_t, 3> reader{-1, -1, -1};
  friend bool operator==(const Shadow&, const Shadow&) = default;
};

/// Shadow state kept as disjoint intervals of equal state, so a tile access costs a few map
/// operations instead of one per byte. Gaps have never been touched.
class ShadowMemory {
 public:
  struct Entry {
    std::uint64_t end;
    Shadow shadow;
  };
  using Map = std::map<std::uint64_t, Entry>;

  /// Calls check(start, shadow) for every state over [first, last), then records the access.
  template <typename Check>
  void access(std::uint64_t first, std::uint64_t last, bool write, std::size_t unit,
              std::int32_t self, Check&& check) {
    split(first);
    split(last);
    auto it = m_map.lower_bound(first);
    for (auto probe = it; probe != m_map.end() && probe->first < last; ++probe) {
      check(probe->first, probe->second.shadow);
    }
    if (write) {
      m_map.erase(it, m_map.lower_bound(last));
      Shadow written;
      written.writer = self;
      it = m_map.emplace(first, Entry{last, written}).first;
    } else {
      std::uint64_t cursor = first;
      while (cursor < last) {
        if (it == m_map.end() || it->first > cursor) {
          const std::uint64_t gapEnd = it == m_map.end() ? last : std::min(last, it->first);
          it = m_map.emplace_hint(it, cursor, Entry{gapEnd, Shadow{}});
        }
        it->second.shadow.reader[unit] = self;
        cursor = it->second.end;
        ++it;
      }
      it = m_map.lower_bound(first);
    }
    coalesce(it, last);
  }

 private:
  void split(std::uint64_t at) {
    auto it = m_map.upper_bound(at);
    if (it == m_map.begin()) {
      return;
    }
    --it;
    if (it->first < at && it->second.end > at) {
      const Entry right{it->second.end, it->second.shadow};
      it->second.end = at;
      m_map.emplace_hint(std::next(it), at, right);
    }
  }

  // Merges equal, touching neighbours from the entry before `it` up to `last`.
  void coalesce(Map::iterator it, std::uint64_t last) {
    if (it != m_map.begin()) {
      --it;
    }
    while (it != m_map.end() && it->first <= last) {
      auto next = std::next(it);
      if (next != m_map.end() && next->first == it->second.end &&
          next->second.shadow == it->second.shadow) {
        it->second.end = next->second.end;
        m_map.erase(next);
      } else {
        it = next;
      }
    }
  }

  Map m_map;
};

std::string describe(std::span<const isa::Instruction> instructions, std::size_t i) {
  return fmt::format("instruction {} ({}, {} unit)", i, isa::mnemonicOf(instructions[i]),
                     isa::unitName(isa::executingUnit(instructions[i])));
}

}  // namespace

void checkHazards(std::span<const isa::Instruction> instructions, const TokenOrder& order,
                  const isa::NpuConfig& config) {
  std::array<ShadowMemory, 6> memories;
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
    const std::size_t u = order.unit[i];
    const auto self = static_cast<std::int32_t>(i);
    auto report = [&](std::int32_t other, const isa::Access& access, std::uint64_t address,
                      std::string_view what) {
      throw SimFault(
          FaultKind::Hazard, self,
          fmt::format("hazard fault at instruction {}: {} {} {} byte 0x{:x}, which {} {} ({}); "
                      "no dependency token orders them",
                      i, describe(instructions, i), access.write ? "writes" : "reads",
                      isa::memorySpaceName(access.space), address, describe(instructions, other),
                      what, other < self ? "earlier in program order" : "later"));
    };
    for (const isa::Access& access : accesses) {
      ShadowMemory& memory = memories[static_cast<std::size_t>(access.space)];
      // Runs that continue one another (a tile's pixels, rows of a whole-width band) are one
      // interval: a map operation per tile instead of one per pixel. Merging only touching runs
      // checks and records exactly the bytes the separate runs would, in the same address order.
      std::uint64_t pendingFirst = 0;
      std::uint64_t pendingEnd = 0;
      const auto flush = [&] {
        if (pendingEnd == pendingFirst) {
          return;
        }
        memory.access(pendingFirst, pendingEnd, access.write, u, self,
                      [&](std::uint64_t address, const Shadow& shadow) {
                        if (shadow.writer >= 0 && order.unit[shadow.writer] != u &&
                            !order.happensBefore(static_cast<std::size_t>(shadow.writer), i)) {
                          report(shadow.writer, access, address, "writes");
                        }
                        if (!access.write) {
                          return;
                        }
                        for (std::size_t r = 0; r < 3; ++r) {
                          const std::int32_t reader = shadow.reader[r];
                          if (r != u && reader >= 0 &&
                              !order.happensBefore(static_cast<std::size_t>(reader), i)) {
                            report(reader, access, address, "reads");
                          }
                        }
                      });
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
