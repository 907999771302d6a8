// Observers: the doubling histogram and the four range methods.
#include "npu/compiler/quant/observer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "npu/compiler/quant/quant_params.h"
#include "npu/support/error.h"

namespace npu::compiler {

std::string_view observerName(ObserverMethod method) {
  switch (method) {
    case ObserverMethod::MinMax:
      return "minmax";
    case ObserverMethod::Percentile:
      return "percentile";
    case ObserverMethod::Entropy:
      return "kl";
    case ObserverMethod::Mse:
      return "mse";
  }
  return "?";
}

std::optional<ObserverMethod> parseObserverMethod(std::string_view name) {
  if (name == "entropy") {
    return ObserverMethod::Entropy;
  }
  for (ObserverMethod m : {ObserverMethod::MinMax, ObserverMethod::Percentile,
                           ObserverMethod::Entropy, ObserverMethod::Mse}) {
    if (observerName(m) == name) {
      return m;
    }
  }
  return std::nullopt;
}

// ---- Histogram

Histogram::Histogram(std::size_t binsPerSide)
    : m_binsPerSide(binsPerSide), m_counts(2 * binsPerSide, 0.0) {
  if (binsPerSide < 2 || binsPerSide % 2 != 0) {
    fail("histogram bins per side must be even and at least 2, got {}", binsPerSide);
  }
}

const std::vector<double>& Histogram::counts() const {
  return m_counts;
}

double Histogram::binWidth() const {
  return m_limit / static_cast<double>(m_binsPerSide);
}

double Histogram::binLow(std::size_t i) const {
  return -m_limit + static_cast<double>(i) * binWidth();
}

void Histogram::grow(double maxAbs) {
  if (m_limit == 0.0) {
    // Zeros seen so far sit in bin B, which holds [0, w) whatever the limit.
    m_limit = maxAbs;
    return;
  }
  const std::size_t b = m_binsPerSide;
  while (m_limit < maxAbs) {
    std::vector<double> merged(2 * b, 0.0);
    for (std::size_t k = 0; k < b; ++k) {
      merged[b / 2 + k] = m_counts[2 * k] + m_counts[2 * k + 1];
    }
    m_counts = std::move(merged);
    m_limit *= 2.0;
  }
}

void Histogram::add(std::span<const float> values) {
  double maxAbs = 0.0;
  for (float v : values) {
    maxAbs = std::max(maxAbs, static_cast<double>(std::fabs(v)));
  }
  if (maxAbs > m_limit) {
    grow(maxAbs);
  }
  m_total += static_cast<double>(values.size());
  const std::size_t last = 2 * m_binsPerSide - 1;
  if (m_limit == 0.0) {
    m_counts[m_binsPerSide] += static_cast<double>(values.size());
    return;
  }
  const double inverseWidth = 1.0 / binWidth();
  for (float v : values) {
    double position = (static_cast<double>(v) + m_limit) * inverseWidth;
    auto i = static_cast<std::size_t>(std::clamp(position, 0.0, static_cast<double>(last)));
    ++m_counts[i];
  }
}

std::vector<double> Histogram::absoluteCounts() const {
  const std::size_t b = m_binsPerSide;
  std::vector<double> abs(b, 0.0);
  for (std::size_t k = 0; k < b; ++k) {
    abs[k] = m_counts[b + k] + m_counts[b - 1 - k];
  }
  return abs;
}

// ---- TensorObserver

void TensorObserver::observe(std::span<const float> values) {
  if (values.empty()) {
    return;
  }
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  if (m_count == 0) {
    m_min = *lo;
    m_max = *hi;
  } else {
    m_min = std::min(m_min, *lo);
    m_max = std::max(m_max, *hi);
  }
  m_count += values.size();
  m_zeros += static_cast<std::uint64_t>(std::count(values.begin(), values.end(), 0.0F));
  m_histogram.add(values);
}

// ---- Ranges

Range minMaxRange(const TensorObserver& observer, bool symmetric) {
  if (symmetric) {
    float m = std::max(std::fabs(observer.min()), std::fabs(observer.max()));
    return Range{-m, m};
  }
  return Range{observer.min(), observer.max()};
}

Range percentileRange(const TensorObserver& observer, double percentile, bool symmetric) {
  if (!(percentile >= 50.0 && percentile <= 100.0)) {
    fail("percentile {} is not in [50, 100]", percentile);
  }
  const Histogram& h = observer.histogram();
  if (observer.count() == 0 || h.limit() == 0.0) {
    return minMaxRange(observer, symmetric);
  }
  const double w = h.binWidth();
  const double fraction = percentile / 100.0;
  if (symmetric) {
    std::vector<double> abs = h.absoluteCounts();
    double target = fraction * h.total();
    double cumulative = 0.0;
    std::size_t k = abs.size() - 1;
    for (std::size_t i = 0; i < abs.size(); ++i) {
      cumulative += abs[i];
      if (cumulative >= target) {
        k = i;
        break;
      }
    }
    float maxAbs = std::max(std::fabs(observer.min()), std::fabs(observer.max()));
    float t = std::min(static_cast<float>(static_cast<double>(k + 1) * w), maxAbs);
    return Range{-t, t};
  }
  const std::vector<double>& counts = h.counts();
  const double loTarget = (1.0 - fraction) * h.total();
  const double hiTarget = fraction * h.total();
  double cumulative = 0.0;
  std::optional<std::size_t> loBin;
  std::size_t hiBin = counts.size() - 1;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    cumulative += counts[i];
    if (!loBin && cumulative > loTarget) {
      loBin = i;
    }
    if (cumulative >= hiTarget) {
      hiBin = i;
      break;
    }
  }
  float lo = std::max(static_cast<float>(h.binLow(loBin.value_or(0))), observer.min());
  float hi = std::min(static_cast<float>(h.binLow(hiBin) + w), observer.max());
  return Range{std::min(lo, hi), hi};
}

namespace {

/// MXNet/TVM's _smooth_distribution: zero bins get eps, the others give it back evenly, so the
/// divergence stays finite where one histogram is empty and the other is not.
std::vector<double> smoothed(std::span<const double> h) {
  constexpr double kEps = 1e-4;
  std::size_t zeros = 0;
  for (double v : h) {
    zeros += v == 0.0 ? 1 : 0;
  }
  std::vector<double> out(h.begin(), h.end());
  if (zeros == 0 || zeros == h.size()) {
    return out;
  }
  double give = kEps * static_cast<double>(zeros) / static_cast<double>(h.size() - zeros);
  for (double& v : out) {
    v = v == 0.0 ? kEps : v - give;
  }
  return out;
}

}  // namespace

double klDivergence(std::span<const double> p, std::span<const double> q) {
  std::vector<double> ps = smoothed(p);
  std::vector<double> qs = smoothed(q);
  double pSum = 0.0;
  double qSum = 0.0;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    pSum += ps[i];
    qSum += qs[i];
  }
  if (pSum <= 0.0 || qSum <= 0.0) {
    return std::numeric_limits<double>::infinity();
  }
  double kl = 0.0;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (ps[i] <= 0.0) {
      continue;
    }
    double pi = ps[i] / pSum;
    double qi = qs[i] / qSum;
    kl += qi > 0.0 ? pi * std::log(pi / qi) : std::numeric_limits<double>::infinity();
  }
  return kl;
}

Range entropyRange(const TensorObserver& observer, bool symmetric, std::size_t levels) {
  const Histogram& h = observer.histogram();
  if (observer.count() == 0 || h.limit() == 0.0) {
    return minMaxRange(observer, symmetric);
  }
  if (levels == 0) {
    levels = !symmetric && observer.min() >= 0.0F ? 256 : 128;
  }
  std::vector<double> abs = h.absoluteCounts();
  abs[0] -= static_cast<double>(observer.zeros());
  const std::size_t bins = abs.size();
  if (bins < levels) {
    return minMaxRange(observer, symmetric);
  }
  // Suffix sums: the mass beyond a threshold, folded into its last bin.
  std::vector<double> beyond(bins + 1, 0.0);
  for (std::size_t i = bins; i-- > 0;) {
    beyond[i] = beyond[i + 1] + abs[i];
  }
  double bestKl = std::numeric_limits<double>::infinity();
  std::size_t best = bins;
  std::vector<double> p;
  std::vector<double> q;
  for (std::size_t i = levels; i <= bins; ++i) {
    p.assign(abs.begin(), abs.begin() + static_cast<std::ptrdiff_t>(i));
    p[i - 1] += beyond[i];
    q.assign(i, 0.0);
    const std::size_t merged = i / levels;
    for (std::size_t j = 0; j < levels; ++j) {
      std::size_t start = j * merged;
      std::size_t stop = j + 1 == levels ? i : start + merged;
      double mass = 0.0;
      std::size_t nonEmpty = 0;
      for (std::size_t k = start; k < stop; ++k) {
        mass += abs[k];
        nonEmpty += p[k] != 0.0 ? 1 : 0;
      }
      if (nonEmpty == 0) {
        continue;
      }
      for (std::size_t k = start; k < stop; ++k) {
        if (p[k] != 0.0) {
          q[k] = mass / static_cast<double>(nonEmpty);
        }
      }
    }
    double kl = klDivergence(p, q);
    if (kl < bestKl) {
      bestKl = kl;
      best = i;
    }
  }
  auto t = static_cast<float>(static_cast<double>(best) * h.binWidth());
  if (symmetric) {
    float maxAbs = std::max(std::fabs(observer.min()), std::fabs(observer.max()));
    t = std::min(t, maxAbs);
    return Range{-t, t};
  }
  return Range{std::max(observer.min(), -t), std::min(observer.max(), t)};
}

double quantizationError(const TensorObserver& observer, double scale, std::int32_t zeroPoint) {
  const Histogram& h = observer.histogram();
  const std::vector<double>& counts = h.counts();
  const double w = h.binWidth();
  double error = 0.0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0.0) {
      continue;
    }
    double x = h.binLow(i) + 0.5 * w;
    double q = std::clamp(std::round(x / scale) + zeroPoint, -128.0, 127.0);
    double d = x - (q - zeroPoint) * scale;
    error += counts[i] * d * d;
  }
  return error;
}

Range mseRange(const TensorObserver& observer, bool symmetric) {
  const Histogram& h = observer.histogram();
  Range full = minMaxRange(observer, symmetric);
  if (observer.count() == 0 || h.limit() == 0.0) {
    return full;
  }
  double bestError = std::numeric_limits<double>::infinity();
  Range best = full;
  for (int k = 100; k >= 1; --k) {
    Range candidate{full.lo * static_cast<float>(k) / 100.0F,
                    full.hi * static_cast<float>(k) / 100.0F};
    golden::QuantParams params = quantParamsForRange(candidate, symmetric, false);
    double error = quantizationError(observer, params.scale, params.zeroPoint);
    if (error < bestError) {
      bestError = error;
      best = candidate;
    }
  }
  return best;
}

}  // namespace npu::compiler
