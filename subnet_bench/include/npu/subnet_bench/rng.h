// A small deterministic random generator (SplitMix64) whose streams are identical on every
// platform, so a seed in a repro file rebuilds the same data anywhere.
#pragma once

#include <cstdint>
#include <string_view>

namespace npu::bench {

/// SplitMix64 with integer and real helpers written out here (the std distributions are
/// implementation-defined, which would make repro files non-portable).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : m_state(seed) {}

  /// A stream derived from `seed` and a purpose label, independent of other labels' streams.
  Rng(std::uint64_t seed, std::string_view label) : m_state(seed) {
    for (const char ch : label) {
      m_state = mix(m_state ^ static_cast<std::uint8_t>(ch));
    }
  }

  /// The next 64 random bits.
  std::uint64_t next() {
    m_state += 0x9E3779B97F4A7C15ULL;
    return mix(m_state);
  }

  /// Uniform integer in [lo, hi] (hi >= lo); the modulo bias is negligible for our ranges.
  std::int64_t pick(std::int64_t lo, std::int64_t hi) {
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
    return span == 0 ? static_cast<std::int64_t>(next())
                     : lo + static_cast<std::int64_t>(next() % span);
  }

  /// Uniform real in [lo, hi).
  double real(double lo, double hi) {
    return lo + (hi - lo) * (static_cast<double>(next() >> 11) * 0x1.0p-53);
  }

  /// True with probability `p`.
  bool chance(double p) { return real(0.0, 1.0) < p; }

  /// The SplitMix64 finaliser, also useful to derive seeds.
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t m_state;
};

}  // namespace npu::bench
