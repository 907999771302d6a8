// The random source of the structure-aware mutators: a SplitMix64 stream seeded by libFuzzer's
// seed, so one seed gives the same mutation with any compiler and standard library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace npu::fuzz {

/// A deterministic stream of random numbers (SplitMix64; no std:: distributions, whose results
/// differ between standard libraries).
class MutationRng {
 public:
  explicit MutationRng(std::uint64_t seed) : m_state(seed) {}

  /// The next 64 random bits.
  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  /// A number in [0, n); 0 when n is 0.
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

  /// True one time in `n`.
  bool oneIn(std::size_t n) { return below(n) == 0; }

  /// One element of a non-empty list.
  template <typename T>
  const T& pick(std::span<const T> items) {
    return items[below(items.size())];
  }

 private:
  std::uint64_t m_state;
};

/// Applies one to three mutations drawn by `mutateOnce` (false: the kind it drew had nothing to
/// edit, so it draws again, 16 draws at most); false when none took.
template <typename MutateOnce>
bool applyMutations(MutationRng& rng, MutateOnce&& mutateOnce) {
  const std::size_t wanted = 1 + rng.below(3);
  std::size_t applied = 0;
  for (std::size_t attempt = 0; attempt < 16 && applied < wanted; ++attempt) {
    applied += mutateOnce() ? 1 : 0;
  }
  return applied != 0;
}

}  // namespace npu::fuzz
