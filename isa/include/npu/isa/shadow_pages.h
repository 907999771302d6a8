// Per-byte state of one memory space for the analyses over instruction footprints (the
// compiler's token derivation, the simulator's hazard check), kept in pages allocated on first
// touch, so its size follows the bytes a program touches, not the pattern it touches them in.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace npu::isa {

/// The state of every byte of a memory space; a default State is a byte never touched. A 1 KiB page
/// is either uniform (one state for all its bytes, and no allocation: an untouched page is uniform
/// default) or detailed: a 16-bit index per byte into the page's own palette of states. A
/// whole-page access (a tile) is one step on a uniform page; a strided one (channel slices of a
/// tensor) costs two bytes per byte of the pages it fragments, where an interval map paid a node of
/// 64 bytes per fragment. State must be regular and ordered (<=>).
template <typename State>
class ShadowPages {
 public:
  static constexpr std::uint64_t kPageBytes = 1024;

  /// Calls visit(address, state) for the runs of bytes of one state that make up [first, last),
  /// in address order (a run may come split in two), until visit returns true; returns the
  /// address of the run it stopped at.
  template <typename Visit>
  std::optional<std::uint64_t> find(std::uint64_t first, std::uint64_t last, Visit&& visit) const {
    for (std::uint64_t at = first; at < last;) {
      const std::uint64_t start = at - at % kPageBytes;
      const std::uint64_t end = std::min(last, start + kPageBytes);
      const Page* page = pageIfAny(start);
      if (page == nullptr || !page->detail) {
        if (visit(at, page == nullptr ? State{} : page->uniform)) {
          return at;
        }
      } else {
        const Detail& detail = *page->detail;
        for (std::uint64_t offset = at - start; offset < end - start;) {
          const std::uint16_t index = detail.index[offset];
          if (visit(start + offset, detail.palette[index])) {
            return start + offset;
          }
          offset = runEnd(detail, offset, end - start);
        }
      }
      at = end;
    }
    return std::nullopt;
  }

  /// Sets every byte of [first, last) to `state`.
  void assign(std::uint64_t first, std::uint64_t last, const State& state) {
    forPages(first, last, [&](Page& page, std::uint64_t from, std::uint64_t to) {
      if (from == 0 && to == kPageBytes) {
        page.detail.reset();
        page.uniform = state;
        return;
      }
      if (!page.detail && page.uniform == state) {
        return;
      }
      Detail& detail = detailOf(page);
      std::fill(detail.index.begin() + static_cast<std::ptrdiff_t>(from),
                detail.index.begin() + static_cast<std::ptrdiff_t>(to), intern(detail, state));
    });
  }

  /// Replaces the state s of every byte of [first, last) by change(s), a function of s alone.
  template <typename Change>
  void transform(std::uint64_t first, std::uint64_t last, Change&& change) {
    forPages(first, last, [&](Page& page, std::uint64_t from, std::uint64_t to) {
      const bool whole = from == 0 && to == kPageBytes;
      if (!page.detail) {
        State changed = change(page.uniform);
        if (whole || changed == page.uniform) {
          page.uniform = std::move(changed);
          return;
        }
      }
      Detail& detail = detailOf(page);
      if (whole) {
        for (State& state : detail.palette) {
          state = change(state);
        }
        return;
      }
      for (std::uint64_t offset = from; offset < to;) {
        const std::uint16_t old = detail.index[offset];
        const std::uint64_t stop = runEnd(detail, offset, to);
        const State changed = change(detail.palette[old]);
        if (!(changed == detail.palette[old])) {
          std::fill(detail.index.begin() + static_cast<std::ptrdiff_t>(offset),
                    detail.index.begin() + static_cast<std::ptrdiff_t>(stop),
                    intern(detail, changed));
        }
        offset = stop;
      }
    });
  }

 private:
  static constexpr std::uint64_t kPagesPerChunk = 256;
  static constexpr std::uint64_t kChunkBytes = kPageBytes * kPagesPerChunk;
  static constexpr std::size_t kMinCompactAt = 64;

  struct Detail {
    std::array<std::uint16_t, kPageBytes> index{};
    std::vector<State> palette;
    /// Palette size at which states no byte uses are dropped and equal ones merged.
    std::size_t compactAt = kMinCompactAt;
  };
  struct Page {
    State uniform{};  // the state of every byte while detail is null
    std::unique_ptr<Detail> detail;
  };
  using Chunk = std::array<Page, kPagesPerChunk>;

  const Page* pageIfAny(std::uint64_t address) const {
    const std::uint64_t c = address / kChunkBytes;
    if (c >= m_chunks.size() || !m_chunks[c]) {
      return nullptr;
    }
    return &(*m_chunks[c])[address % kChunkBytes / kPageBytes];
  }

  // Calls f(page, from, to) for each page [first, last) touches, with the offsets it covers.
  template <typename F>
  void forPages(std::uint64_t first, std::uint64_t last, F&& f) {
    for (std::uint64_t at = first; at < last;) {
      const std::uint64_t start = at - at % kPageBytes;
      const std::uint64_t end = std::min(last, start + kPageBytes);
      const std::uint64_t c = start / kChunkBytes;
      if (c >= m_chunks.size()) {
        m_chunks.resize(c + 1);
      }
      std::unique_ptr<Chunk>& chunk = m_chunks[c];
      if (!chunk) {
        chunk = std::make_unique<Chunk>();
      }
      f((*chunk)[start % kChunkBytes / kPageBytes], at - start, end - start);
      at = end;
    }
  }

  // The end of the run of bytes from `from` (below `to`) that share its palette index. Blocks of
  // 32 indices are compared as eight 64-bit words without an early exit: the long runs of a page
  // fragmented only at its edges cost about a step per 32 bytes.
  static std::uint64_t runEnd(const Detail& detail, std::uint64_t from, std::uint64_t to) {
    constexpr std::uint64_t kBlock = 32;
    const std::uint16_t value = detail.index[from];
    const std::uint64_t pattern = value * 0x0001000100010001ULL;
    std::uint64_t at = from + 1;
    while (at + kBlock <= to) {
      std::uint64_t differs = 0;
      for (std::uint64_t k = 0; k < kBlock; k += 4) {
        std::uint64_t word = 0;
        std::memcpy(&word, &detail.index[at + k], sizeof word);
        differs |= word ^ pattern;
      }
      if (differs != 0) {
        break;
      }
      at += kBlock;
    }
    while (at < to && detail.index[at] == value) {
      ++at;
    }
    return at;
  }

  // The page's detail, made from its uniform state if it has none. One operation adds at most a
  // state per byte it covers, and the palette is compacted before it once it has grown to twice
  // the states in use, so it stays below 3 x kPageBytes entries and its indices fit 16 bits.
  static Detail& detailOf(Page& page) {
    if (!page.detail) {
      page.detail = std::make_unique<Detail>();
      page.detail->palette.push_back(page.uniform);
    } else if (page.detail->palette.size() >= page.detail->compactAt) {
      compact(*page.detail);
    }
    return *page.detail;
  }

  // The palette index of `state`, added unless one of the last few entries holds it already
  // (the runs of one strided access mostly produce the same few states in turn).
  static std::uint16_t intern(Detail& detail, const State& state) {
    std::vector<State>& palette = detail.palette;
    const std::size_t recent = std::min<std::size_t>(palette.size(), 8);
    for (std::size_t k = palette.size() - recent; k < palette.size(); ++k) {
      if (palette[k] == state) {
        return static_cast<std::uint16_t>(k);
      }
    }
    palette.push_back(state);
    return static_cast<std::uint16_t>(palette.size() - 1);
  }

  // Drops the states no byte uses and merges equal ones.
  static void compact(Detail& detail) {
    std::vector<std::uint8_t> used(detail.palette.size(), 0);
    for (const std::uint16_t index : detail.index) {
      used[index] = 1;
    }
    std::vector<State> kept;
    for (std::size_t k = 0; k < detail.palette.size(); ++k) {
      if (used[k] != 0) {
        kept.push_back(detail.palette[k]);
      }
    }
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    std::vector<std::uint16_t> remap(detail.palette.size(), 0);
    for (std::size_t k = 0; k < detail.palette.size(); ++k) {
      if (used[k] != 0) {
        remap[k] = static_cast<std::uint16_t>(
            std::lower_bound(kept.begin(), kept.end(), detail.palette[k]) - kept.begin());
      }
    }
    for (std::uint16_t& index : detail.index) {
      index = remap[index];
    }
    detail.palette = std::move(kept);
    detail.compactAt = std::max(kMinCompactAt, 2 * detail.palette.size());
  }

  /// Chunks of 256 pages (256 KiB), up to the highest one touched.
  std::vector<std::unique_ptr<Chunk>> m_chunks;
};

}  // namespace npu::isa
