// Race detection over the token order: per byte, the last writer and the last reader on each
// unit; a conflicting access from another unit must be ordered after them by tokens. Shadow
// state for DDR is allocated in pages on first touch.
#include <fmt/format.h>

#include <memory>
#include <unordered_map>

#include "footprint.h"
#include "npu/simulator/sim_fault.h"
#include "npu/simulator/token_analysis.h"

namespace npu::sim {
namespace {

struct Shadow {
  std::int32_t writer = -1;
  std::array<std::int32_t, 3> reader{-1, -1, -1};
};

constexpr std::uint64_t kPageBytes = 4096;

class ShadowMemory {
 public:
  Shadow& at(std::uint64_t address) {
    const std::uint64_t index = address / kPageBytes;
    if (m_cached == nullptr || index != m_cachedIndex) {
      auto& page = m_pages[index];
      if (!page) {
        page = std::make_unique<std::array<Shadow, kPageBytes>>();
      }
      m_cached = page.get();
      m_cachedIndex = index;
    }
    return (*m_cached)[address % kPageBytes];
  }

 private:
  std::array<Shadow, kPageBytes>* m_cached = nullptr;
  std::uint64_t m_cachedIndex = 0;
  std::unordered_map<std::uint64_t, std::unique_ptr<std::array<Shadow, kPageBytes>>> m_pages;
};

std::string describe(std::span<const isa::Instruction> instructions, std::size_t i) {
  return fmt::format("instruction {} ({}, {} unit)", i, isa::mnemonicOf(instructions[i]),
                     isa::unitName(isa::executingUnit(instructions[i])));
}

}  // namespace

void checkHazards(std::span<const isa::Instruction> instructions, const TokenOrder& order,
                  const isa::NpuConfig& /*config*/) {
  std::array<ShadowMemory, 6> memories;
  for (std::size_t i = 0; i < instructions.size(); ++i) {
    if (order.unit[i] == 3) {
      continue;
    }
    const std::size_t u = order.unit[i];
    const auto self = static_cast<std::int32_t>(i);
    auto report = [&](std::int32_t other, const Access& access, std::uint64_t address,
                      std::string_view what) {
      throw SimFault(
          FaultKind::Hazard, self,
          fmt::format("hazard fault at instruction {}: {} {} {} byte 0x{:x}, which {} {} ({}); "
                      "no dependency token orders them",
                      i, describe(instructions, i), access.write ? "writes" : "reads",
                      memorySpaceName(access.space), address, describe(instructions, other), what,
                      other < self ? "earlier in program order" : "later"));
    };
    for (const Access& access : footprint(instructions[i])) {
      ShadowMemory& memory = memories[static_cast<std::size_t>(access.space)];
      access.forEachRun([&](std::uint64_t first, std::uint64_t length) {
        for (std::uint64_t a = first; a < first + length; ++a) {
          Shadow& shadow = memory.at(a);
          if (shadow.writer >= 0 && order.unit[shadow.writer] != u &&
              !order.happensBefore(static_cast<std::size_t>(shadow.writer), i)) {
            report(shadow.writer, access, a, "writes");
          }
          if (access.write) {
            for (std::size_t r = 0; r < 3; ++r) {
              const std::int32_t reader = shadow.reader[r];
              if (r != u && reader >= 0 &&
                  !order.happensBefore(static_cast<std::size_t>(reader), i)) {
                report(reader, access, a, "reads");
              }
            }
            shadow.writer = self;
            shadow.reader = {-1, -1, -1};
          } else {
            shadow.reader[u] = self;
          }
        }
      });
    }
  }
}

}  // namespace npu::sim
