// Calibration observers: a memory-bounded histogram per tensor and the range each method picks
// from it (min/max, percentile, KL-divergence/entropy, MSE search).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace npu::compiler {

/// How an activation's range is chosen from what calibration observed (docs/quant-config.md).
enum class ObserverMethod : std::uint8_t {
  MinMax,      ///< the observed minimum and maximum
  Percentile,  ///< the given percentile of the values at each end
  Entropy,     ///< TensorRT's KL-divergence threshold search over the |x| histogram
  Mse,         ///< the clipping range minimising the expected squared quantization error
};

/// "minmax", "percentile", "kl", "mse".
std::string_view observerName(ObserverMethod method);

/// The method named `name` ("entropy" is accepted for "kl"), or nullopt.
std::optional<ObserverMethod> parseObserverMethod(std::string_view name);

/// A real interval [lo, hi].
struct Range {
  float lo = 0.0F;
  float hi = 0.0F;

  friend bool operator==(const Range&, const Range&) = default;
};

/// A histogram of values over [-limit, limit] in 2 * binsPerSide equal bins. It starts at the
/// first non-zero maximum |x| seen and doubles its limit (merging neighbouring bins, which is
/// exact) whenever a value falls outside, so its memory is fixed whatever the dataset size.
class Histogram {
 public:
  /// `binsPerSide` must be even and at least 2.
  explicit Histogram(std::size_t binsPerSide = 2048);

  /// Adds finite values.
  void add(std::span<const float> values);

  /// The current half-width; 0 until a non-zero value is seen.
  double limit() const { return m_limit; }
  std::size_t binsPerSide() const { return m_binsPerSide; }
  /// 2 * binsPerSide counts; bin i covers [-limit + i * w, -limit + (i + 1) * w), w = limit /
  /// binsPerSide. Zeros seen before the limit is known are in bin binsPerSide.
  const std::vector<double>& counts() const;
  /// Counts of |x|: bin k covers [k * w, (k + 1) * w).
  std::vector<double> absoluteCounts() const;
  double total() const { return m_total; }
  double binWidth() const;
  /// Lower edge of signed bin i.
  double binLow(std::size_t i) const;

 private:
  void grow(double maxAbs);

  std::size_t m_binsPerSide;
  double m_limit = 0.0;
  double m_total = 0.0;
  double m_pendingZeros = 0.0;
  mutable std::vector<double> m_counts;
};

/// What calibration records for one tensor: the exact minimum and maximum and a histogram.
class TensorObserver {
 public:
  explicit TensorObserver(std::size_t binsPerSide = 2048) : m_histogram(binsPerSide) {}

  /// Records finite values.
  void observe(std::span<const float> values);

  /// 0 when nothing was observed.
  float min() const { return m_count == 0 ? 0.0F : m_min; }
  float max() const { return m_count == 0 ? 0.0F : m_max; }
  std::uint64_t count() const { return m_count; }
  /// How many of the values were exactly 0 (a ReLU's output is often half zeros).
  std::uint64_t zeros() const { return m_zeros; }
  const Histogram& histogram() const { return m_histogram; }

 private:
  float m_min = 0.0F;
  float m_max = 0.0F;
  std::uint64_t m_count = 0;
  std::uint64_t m_zeros = 0;
  Histogram m_histogram;
};

/// [min, max], or [-m, m] with m = max(|min|, |max|) when `symmetric`.
Range minMaxRange(const TensorObserver& observer, bool symmetric);

/// The `percentile` (in [50, 100]) of the values: the upper edge of the bin where the cumulative
/// count reaches percentile% and the lower edge of the bin where it reaches (100 - percentile)%,
/// clamped to [min, max]. Symmetric: [-t, t] with t the percentile of |x|.
Range percentileRange(const TensorObserver& observer, double percentile, bool symmetric);

/// TensorRT's entropy calibration on the |x| histogram without the exact zeros (0 is exact under
/// every candidate, so a ReLU's spike of zeros only biases the search towards thresholds whose
/// first quantized level is a single bin): for each candidate threshold of i bins
/// (i from `levels` up), P = the first i bins with the rest folded into bin i - 1, Q = P's bins
/// merged into `levels` groups and spread back over their non-empty bins; the i with the least
/// KL(P || Q) gives t = i * w. `levels` 0 means 128, or 256 for non-negative data when not
/// symmetric. The range is [max(min, -t), min(max, t)], or [-t, t] when symmetric.
Range entropyRange(const TensorObserver& observer, bool symmetric, std::size_t levels = 0);

/// The range among 100 candidates (the min/max range scaled by k / 100, k = 1..100) whose int8
/// quantization gives the least squared error summed over the histogram (bin centres weighted by
/// their counts).
Range mseRange(const TensorObserver& observer, bool symmetric);

/// The squared error of quantizing the observed values (histogram bin centres weighted by their
/// counts) to int8 with `scale` and `zeroPoint`, saturating at -128 and 127: what mseRange
/// minimises.
double quantizationError(const TensorObserver& observer, double scale, std::int32_t zeroPoint);

/// The KL divergence sum p log(p / q) of two histograms of counts, each smoothed as MXNet and TVM
/// do (empty bins get 1e-4, taken evenly from the others) and normalised to sum 1.
double klDivergence(std::span<const double> p, std::span<const double> q);

}  // namespace npu::compiler
