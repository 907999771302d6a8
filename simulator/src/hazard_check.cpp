// Race detection over the token order: per byte, the last writer and the last reader on each
// unit; a conflicting access from another unit must be ordered after them by tokens.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "npu/isa/footprint.h"
#include "npu/simulator/sim_fault.h"
#include "npu/simulator/token_analysis.h"

namespace npu::sim {
namespace {

struct Shadow {
  std::int32_t writer = -1;
  std::array<std::int32_t, 3> reader{-1, -1, -1};
  friend bool operator==(const Shadow&, const Shadow&) = default;
  friend auto operator<=>(const Shadow&, const Shadow&) = default;
};

/// Shadow state of one memory space in fixed-size pages, allocated on first touch, so its size is
/// bounded by the bytes a program touches (a 64 MiB DDR touched in a few MiB costs a few pages)
/// whatever pattern it touches them in. A page is either uniform (one state for all its bytes,
/// no allocation: an untouched page is uniform never-touched) or detailed: a 16-bit index per
/// byte into the page's own palette of states. Whole-page accesses, the common case of a tile,
/// cost one step on a uniform page; strided accesses (channel slices of a tensor) cost two bytes
/// per byte of the pages they fragment, not a map node per fragment.
class ShadowMemory {
 public:
  static constexpr std::uint64_t kPageBytes = 4096;

  explicit ShadowMemory(std::uint64_t bytes) : m_chunks((bytes + kChunkBytes - 1) / kChunkBytes) {}

  /// The first byte of [first, last) whose state `conflicts`, with that state; when there is
  /// none, records the access (a write leaves only `self` as writer; a read sets `unit`'s reader
  /// to `self`). Bytes never touched do not conflict.
  template <typename Conflicts>
  std::optional<std::pair<std::uint64_t, Shadow>> access(std::uint64_t first, std::uint64_t last,
                                                         bool write, std::size_t unit,
                                                         std::int32_t self, Conflicts&& conflicts) {
    // Every byte is checked before any is recorded, as one access of the original stream.
    for (std::uint64_t at = first; at < last;) {
      const std::uint64_t pageStart = at - at % kPageBytes;
      const std::uint64_t end = std::min(last, pageStart + kPageBytes);
      if (auto hit = findConflict(pageAt(pageStart), at - pageStart, end - pageStart, conflicts)) {
        return std::pair{pageStart + hit->first, hit->second};
      }
      at = end;
    }
    for (std::uint64_t at = first; at < last;) {
      const std::uint64_t pageStart = at - at % kPageBytes;
      const std::uint64_t end = std::min(last, pageStart + kPageBytes);
      record(pageAt(pageStart), at - pageStart, end - pageStart, write, unit, self);
      at = end;
    }
    return std::nullopt;
  }

 private:
  static constexpr std::uint64_t kPagesPerChunk = 256;
  static constexpr std::uint64_t kChunkBytes = kPageBytes * kPagesPerChunk;
  static constexpr std::size_t kMinCompactAt = 64;

  struct Detail {
    std::array<std::uint16_t, kPageBytes> index;
    std::vector<Shadow> palette;
    /// Palette size at which unused and repeated states are dropped.
    std::size_t compactAt = kMinCompactAt;
  };
  struct Page {
    Shadow uniform;  // the state of every byte while detail is null
    std::unique_ptr<Detail> detail;
  };
  using Chunk = std::array<Page, kPagesPerChunk>;

  Page& pageAt(std::uint64_t address) {
    std::unique_ptr<Chunk>& chunk = m_chunks[address / kChunkBytes];
    if (!chunk) {
      chunk = std::make_unique<Chunk>();
    }
    return (*chunk)[address % kChunkBytes / kPageBytes];
  }

  template <typename Conflicts>
  static std::optional<std::pair<std::uint64_t, Shadow>> findConflict(const Page& page,
                                                                      std::uint64_t from,
                                                                      std::uint64_t to,
                                                                      Conflicts& conflicts) {
    if (!page.detail) {
      if (conflicts(page.uniform)) {
        return std::pair{from, page.uniform};
      }
      return std::nullopt;
    }
    const Detail& detail = *page.detail;
    std::uint64_t at = from;
    while (at < to) {
      const std::uint16_t index = detail.index[at];
      if (conflicts(detail.palette[index])) {
        return std::pair{at, detail.palette[index]};
      }
      while (at < to && detail.index[at] == index) {
        ++at;
      }
    }
    return std::nullopt;
  }

  void record(Page& page, std::uint64_t from, std::uint64_t to, bool write, std::size_t unit,
              std::int32_t self) {
    const bool whole = from == 0 && to == kPageBytes;
    if (whole && write) {
      page.detail.reset();
      page.uniform = Shadow{};
      page.uniform.writer = self;
      return;
    }
    if (!page.detail) {
      if (whole || (!write && page.uniform.reader[unit] == self)) {
        page.uniform.reader[unit] = self;
        return;
      }
      if (write && page.uniform == written(self)) {
        return;
      }
      page.detail = std::make_unique<Detail>();
      page.detail->index.fill(0);
      page.detail->palette.push_back(page.uniform);
    }
    Detail& detail = *page.detail;
    if (detail.palette.size() >= detail.compactAt && compact(page)) {
      record(page, from, to, write, unit, self);
      return;
    }
    if (whole) {
      // A read of the whole page updates every state of the palette in place.
      for (Shadow& shadow : detail.palette) {
        shadow.reader[unit] = self;
      }
      return;
    }
    if (write) {
      std::fill(detail.index.begin() + static_cast<std::ptrdiff_t>(from),
                detail.index.begin() + static_cast<std::ptrdiff_t>(to),
                intern(detail, written(self)));
      return;
    }
    // A read: each run of one state takes that state with this unit's reader set.
    std::uint64_t at = from;
    while (at < to) {
      const std::uint16_t old = detail.index[at];
      Shadow next = detail.palette[old];
      next.reader[unit] = self;
      const std::uint16_t now = next == detail.palette[old] ? old : intern(detail, next);
      while (at < to && detail.index[at] == old) {
        detail.index[at++] = now;
      }
    }
  }

  static Shadow written(std::int32_t self) {
    Shadow shadow;
    shadow.writer = self;
    return shadow;
  }

  // The palette index of `shadow`, added unless one of the last few entries holds it already
  // (the runs of one strided access mostly produce the same few states in turn).
  static std::uint16_t intern(Detail& detail, const Shadow& shadow) {
    std::vector<Shadow>& palette = detail.palette;
    const std::size_t recent = std::min<std::size_t>(palette.size(), 8);
    for (std::size_t k = palette.size() - recent; k < palette.size(); ++k) {
      if (palette[k] == shadow) {
        return static_cast<std::uint16_t>(k);
      }
    }
    palette.push_back(shadow);
    return static_cast<std::uint16_t>(palette.size() - 1);
  }

  // Drops the states no byte refers to and merges equal ones; a page left with one state
  // becomes uniform again (then returns true). The palette stays below a few times the states
  // in use, at most kPageBytes, so its indices fit 16 bits.
  static bool compact(Page& page) {
    Detail& detail = *page.detail;
    std::vector<Shadow> used;
    std::vector<std::uint8_t> seen(detail.palette.size(), 0);
    for (const std::uint16_t index : detail.index) {
      if (seen[index] == 0) {
        seen[index] = 1;
        used.push_back(detail.palette[index]);
      }
    }
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    if (used.size() == 1) {
      page.uniform = used.front();
      page.detail.reset();
      return true;
    }
    std::vector<std::uint16_t> remap(detail.palette.size(), 0);
    for (std::size_t k = 0; k < detail.palette.size(); ++k) {
      if (seen[k] != 0) {
        remap[k] = static_cast<std::uint16_t>(
            std::lower_bound(used.begin(), used.end(), detail.palette[k]) - used.begin());
      }
    }
    for (std::uint16_t& index : detail.index) {
      index = remap[index];
    }
    detail.palette = std::move(used);
    detail.compactAt = std::max(kMinCompactAt, 2 * detail.palette.size());
    return false;
  }

  std::vector<std::unique_ptr<Chunk>> m_chunks;
};

std::string describe(std::span<const isa::Instruction> instructions, std::size_t i) {
  return fmt::format("instruction {} ({}, {} unit)", i, isa::mnemonicOf(instructions[i]),
                     isa::unitName(isa::executingUnit(instructions[i])));
}

}  // namespace

void checkHazards(std::span<const isa::Instruction> instructions, const TokenOrder& order,
                  const isa::NpuConfig& config) {
  constexpr std::size_t kSpaces = 6;
  std::vector<ShadowMemory> memories;
  memories.reserve(kSpaces);
  for (std::size_t s = 0; s < kSpaces; ++s) {
    memories.emplace_back(isa::spaceBytes(config, static_cast<isa::MemorySpace>(s)));
  }
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
    const auto unordered = [&](std::int32_t other) {
      return other >= 0 && !order.happensBefore(static_cast<std::size_t>(other), i);
    };
    for (const isa::Access& access : accesses) {
      ShadowMemory& memory = memories[static_cast<std::size_t>(access.space)];
      // The writer conflicts unless it ran on this unit or before; on a write, so does any other
      // unit's reader.
      const auto conflicts = [&](const Shadow& shadow) {
        if (shadow.writer >= 0 && order.unit[shadow.writer] != u && unordered(shadow.writer)) {
          return true;
        }
        if (access.write) {
          for (std::size_t r = 0; r < 3; ++r) {
            if (r != u && unordered(shadow.reader[r])) {
              return true;
            }
          }
        }
        return false;
      };
      const auto report = [&](std::uint64_t address, const Shadow& shadow) {
        std::int32_t other = shadow.writer;
        std::string_view what = "writes";
        if (!(shadow.writer >= 0 && order.unit[shadow.writer] != u && unordered(shadow.writer))) {
          what = "reads";
          for (std::size_t r = 0; r < 3; ++r) {
            if (r != u && unordered(shadow.reader[r])) {
              other = shadow.reader[r];
              break;
            }
          }
        }
        throw SimFault(
            FaultKind::Hazard, self,
            fmt::format("hazard fault at instruction {}: {} {} {} byte 0x{:x}, which {} {} ({}); "
                        "no dependency token orders them",
                        i, describe(instructions, i), access.write ? "writes" : "reads",
                        isa::memorySpaceName(access.space), address, describe(instructions, other),
                        what, other < self ? "earlier in program order" : "later"));
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
        if (const auto hit =
                memory.access(pendingFirst, pendingEnd, access.write, u, self, conflicts)) {
          report(hit->first, hit->second);
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
