// The run report's per-unit timeline and per-layer accuracy chart, as inline SVG.
#include "run_charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "npu/support/markup.h"

namespace npu::runtime {
namespace {

constexpr double kLeft = 90.0;
constexpr double kPlotWidth = 780.0;
constexpr double kRowHeight = 22.0;
constexpr std::size_t kBuckets = 240;
/// Width of one character of the 10-pixel labels, roughly, for deciding what fits.
constexpr double kCharWidth = 6.0;
constexpr std::array<std::string_view, 3> kUnits = {"load", "compute", "store"};
constexpr std::array<std::string_view, 6> kLayerColors = {"#4a7ab5", "#e39b3b", "#5aa55a",
                                                          "#9467bd", "#c9545a", "#3fa7b5"};

/// A layer of one NPU segment on the timeline: (timeline slot, index into its layerNames).
using LayerKey = std::pair<std::size_t, std::int64_t>;

/// Adds `cycles` of [begin, end) to the buckets it overlaps.
template <typename Add>
void spread(std::uint64_t begin, std::uint64_t end, std::uint64_t bucketCycles, Add add) {
  for (std::uint64_t b = begin / bucketCycles; b * bucketCycles < end; ++b) {
    const std::uint64_t from = std::max(begin, b * bucketCycles);
    const std::uint64_t to = std::min(end, (b + 1) * bucketCycles);
    if (to > from) {
      add(static_cast<std::size_t>(b), to - from);
    }
  }
}

/// The timeline's SVG for a run of `total` cycles: the spans' busy cycles gathered into buckets
/// of equal cycles, then a row of layers, one of host segments, one per unit, and the axis.
class TimelineChart {
 public:
  /// Gathers the spans' busy cycles into at most kBuckets buckets.
  TimelineChart(const MainJobReport& r, std::uint64_t total)
      : m_r(r),
        m_total(total),
        m_bucketCycles((total + kBuckets - 1) / kBuckets),
        m_buckets(static_cast<std::size_t>((total + m_bucketCycles - 1) / m_bucketCycles)),
        m_layerBusy(m_buckets),
        m_scale(kPlotWidth / static_cast<double>(m_buckets * m_bucketCycles)) {
    for (const std::string_view unit : kUnits) {
      m_busy[unit].assign(m_buckets, 0.0);
    }
    bucketSpans();
  }

  /// The whole chart, from <svg> to </svg>.
  std::string svg() {
    const std::size_t rows = 2 + kUnits.size();
    const double height = 30.0 + static_cast<double>(rows) * kRowHeight + 30.0;
    m_svg = fmt::format(
        "<svg xmlns='http://www.w3.org/2000/svg' width='{:.0f}' height='{:.0f}' font-size='11' "
        "font-family='sans-serif'>\n<text x='4' y='14'>first input, {} cycles end to end ({} per "
        "bucket); unit rows: busy share of each bucket (dark = busy, light = idle or stalled)"
        "</text>\n",
        kLeft + kPlotWidth + 20.0, height, m_total, m_bucketCycles);
    layerRow();
    hostRow();
    unitRows();
    const double axis = rowY(rows) + 12;
    for (int tick = 0; tick <= 4; ++tick) {
      const std::uint64_t cycle = m_total * static_cast<std::uint64_t>(tick) / 4;
      m_svg += fmt::format("<text x='{:.1f}' y='{:.1f}' text-anchor='middle'>{}</text>\n",
                           px(cycle), axis, cycle);
    }
    m_svg += "</svg>\n";
    return std::move(m_svg);
  }

 private:
  /// Adds every unit span's cycles to its unit's buckets, and to its layer's.
  void bucketSpans() {
    for (std::size_t t = 0; t < m_r.timeline.size(); ++t) {
      const TimelineSegment& slot = m_r.timeline[t];
      for (const sim::TraceSpan& span : slot.spans) {
        const auto unit = m_busy.find(span.unit);
        if (unit == m_busy.end()) {
          continue;  // fetch, and the compute unit's mac_array/vector copies
        }
        const std::int64_t layer = span.instruction < slot.instructionLayer.size()
                                       ? slot.instructionLayer[span.instruction]
                                       : -1;
        const LayerKey key{t, layer};
        if (layer >= 0) {
          m_ordinal.emplace(key, m_ordinal.size());
        }
        spread(slot.start + span.start, slot.start + span.end, m_bucketCycles,
               [&](std::size_t b, std::uint64_t cycles) {
                 unit->second[b] += static_cast<double>(cycles);
                 if (layer >= 0) {
                   m_layerBusy[b][key] += cycles;
                 }
               });
      }
    }
  }

  /// The x coordinate of a cycle.
  [[nodiscard]] double px(std::uint64_t cycle) const {
    return kLeft + static_cast<double>(cycle) * m_scale;
  }

  /// The top of a row.
  static double rowY(std::size_t row) { return 24.0 + static_cast<double>(row) * kRowHeight; }

  /// A row's label and its background.
  void rowLabel(std::size_t row, std::string_view label) {
    m_svg += fmt::format("<text x='{}' y='{:.1f}' text-anchor='end'>{}</text>\n", kLeft - 6,
                         rowY(row) + 14, label);
    m_svg += fmt::format(
        "<rect x='{}' y='{:.1f}' width='{}' height='{}' fill='#f2f2f2' stroke='#ccc'/>\n", kLeft,
        rowY(row), kPlotWidth, kRowHeight - 4);
  }

  /// The layer with the most busy cycles in bucket k (which has some).
  [[nodiscard]] LayerKey topLayer(std::size_t k) const {
    return std::max_element(m_layerBusy[k].begin(), m_layerBusy[k].end(),
                            [](const auto& x, const auto& y) { return x.second < y.second; })
        ->first;
  }

  /// Layers: runs of buckets whose busiest layer is the same, one rect each.
  void layerRow() {
    rowLabel(0, "layers");
    std::size_t b = 0;
    while (b < m_buckets) {
      if (m_layerBusy[b].empty()) {
        ++b;
        continue;
      }
      const LayerKey key = topLayer(b);
      std::size_t end = b + 1;
      while (end < m_buckets && !m_layerBusy[end].empty() && topLayer(end) == key) {
        ++end;
      }
      layerRect(b, end, key);
      b = end;
    }
  }

  /// The rect of layer `key` over buckets [b, end), with the name's tail where it fits.
  void layerRect(std::size_t b, std::size_t end, const LayerKey& key) {
    const TimelineSegment& slot = m_r.timeline[key.first];
    const std::string& name = slot.layerNames.at(static_cast<std::size_t>(key.second));
    const double x = px(b * m_bucketCycles);
    const double width = px(end * m_bucketCycles) - x;
    m_svg += fmt::format(
        "<rect x='{:.1f}' y='{:.1f}' width='{:.1f}' height='{}' fill='{}'><title>{} (NPU "
        "segment {}, cycles {}..{})</title></rect>\n",
        x, rowY(0), width, kRowHeight - 4, kLayerColors[m_ordinal.at(key) % kLayerColors.size()],
        escapeMarkup(name), slot.segment, b * m_bucketCycles,
        std::min(m_total, end * m_bucketCycles));
    // The name's tail (the distinctive part of a path-like ONNX name) where it fits.
    const auto fits = static_cast<std::size_t>(std::max(0.0, (width - 4.0) / kCharWidth));
    if (fits >= 4) {
      std::size_t from = name.size() > fits ? name.size() - (fits - 2) : 0;
      while (from < name.size() && (static_cast<unsigned char>(name[from]) & 0xC0) == 0x80) {
        ++from;  // not inside a UTF-8 sequence
      }
      m_svg += fmt::format(
          "<text x='{:.1f}' y='{:.1f}' font-size='10' fill='#fff' pointer-events='none'>{}{}"
          "</text>\n",
          x + 2, rowY(0) + 12, from > 0 ? ".." : "", escapeMarkup(name.substr(from)));
    }
  }

  /// Host segments: their nodes' modelled cycles and the border, as they follow the NPU's.
  void hostRow() {
    rowLabel(1, "host");
    for (const TimelineSegment& slot : m_r.timeline) {
      std::uint64_t at = slot.start;
      for (const auto& [name, cycles] : slot.hostNodes) {
        hostRect(at, name, cycles, "#8c6d31");
      }
      hostRect(at, "NPU/host border", slot.borderCycles, "#bd9e39");
    }
  }

  /// A rect of `cycles` from `at` on the host row (none for 0 cycles); moves `at` past it.
  void hostRect(std::uint64_t& at, const std::string& name, std::uint64_t cycles,
                std::string_view color) {
    if (cycles > 0) {
      m_svg += fmt::format(
          "<rect x='{:.1f}' y='{:.1f}' width='{:.1f}' height='{}' fill='{}'><title>{} "
          "({} cycles, modelled)</title></rect>\n",
          px(at), rowY(1), std::max(0.5, px(at + cycles) - px(at)), kRowHeight - 4, color,
          escapeMarkup(name), cycles);
    }
    at += cycles;
  }

  /// One row per unit: each bucket's busy share as the opacity of its rect.
  void unitRows() {
    for (std::size_t u = 0; u < kUnits.size(); ++u) {
      rowLabel(2 + u, kUnits[u]);
      const std::vector<double>& shares = m_busy.at(kUnits[u]);
      for (std::size_t k = 0; k < m_buckets; ++k) {
        if (shares[k] > 0.0) {
          const double share = std::min(1.0, shares[k] / static_cast<double>(m_bucketCycles));
          m_svg += fmt::format(
              "<rect x='{:.1f}' y='{:.1f}' width='{:.2f}' height='{}' fill='#2a7a3a' "
              "fill-opacity='{:.2f}'><title>{} busy {:.0f}% of cycles {}..{}</title></rect>\n",
              px(k * m_bucketCycles), rowY(2 + u),
              px((k + 1) * m_bucketCycles) - px(k * m_bucketCycles), kRowHeight - 4, share,
              kUnits[u], 100.0 * share, k * m_bucketCycles,
              std::min(m_total, (k + 1) * m_bucketCycles));
        }
      }
    }
  }

  const MainJobReport& m_r;
  const std::uint64_t m_total;
  const std::uint64_t m_bucketCycles;
  const std::size_t m_buckets;
  std::map<std::string_view, std::vector<double>> m_busy;
  std::vector<std::map<LayerKey, std::uint64_t>> m_layerBusy;
  std::map<LayerKey, std::size_t> m_ordinal;  // colours in order of first appearance
  const double m_scale;
  std::string m_svg;
};

/// Every unit's busy and stall cycles over the NPU segments (the simulator's own figures), as an
/// HTML table; "" without NPU units.
std::string unitStatsTable(const MainJobReport& r) {
  std::map<std::string, sim::UnitStats> units;
  std::uint64_t npuCycles = 0;
  for (const TimelineSegment& slot : r.timeline) {
    if (slot.device != "npu") {
      continue;
    }
    npuCycles += slot.cycles;
    for (const auto& [name, stats] : slot.units) {
      sim::UnitStats& sum = units[name];
      sum.instructions += stats.instructions;
      sum.busyCycles += stats.busyCycles;
      for (const auto& [reason, cycles] : stats.stallCycles) {
        sum.stallCycles[reason] += cycles;
      }
    }
  }
  std::string table;
  if (!units.empty()) {
    table +=
        "<table><tr><th>unit</th><th>instructions</th><th>busy cycles</th><th>busy share</th>"
        "<th>stall cycles</th><th>stalls by reason</th></tr>\n";
    for (const auto& [name, stats] : units) {
      std::uint64_t stalled = 0;
      std::string reasons;
      for (const auto& [reason, cycles] : stats.stallCycles) {
        stalled += cycles;
        if (cycles > 0) {
          reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", reason, cycles);
        }
      }
      table += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.1f}%</td><td>{}</td><td>{}</td></tr>\n",
          escapeMarkup(name), stats.instructions, stats.busyCycles,
          npuCycles > 0
              ? 100.0 * static_cast<double>(stats.busyCycles) / static_cast<double>(npuCycles)
              : 0.0,
          stalled, reasons.empty() ? "-" : escapeMarkup(reasons));
    }
    table += "</table>\n";
  }
  return table;
}

}  // namespace

std::string timelineSvg(const MainJobReport& r) {
  std::uint64_t total = 0;
  for (const TimelineSegment& slot : r.timeline) {
    total = std::max(total, slot.start + slot.cycles);
  }
  if (total == 0) {
    return "";
  }
  return TimelineChart(r, total).svg() + unitStatsTable(r);
}

std::string accuracySvg(const MainJobReport& r) {
  std::vector<const LayerRow*> rows;
  double lowest = r.cosineWarn;
  for (const LayerRow& row : r.layers) {
    if (row.device == "npu" && row.cosine) {
      rows.push_back(&row);
      lowest = std::min(lowest, *row.cosine);
    }
  }
  if (rows.empty()) {
    return "";
  }
  // From a round value below the lowest cosine (and the threshold) up to 1.
  const double yMin = std::max(-1.0, std::floor((lowest - 0.005) * 20.0) / 20.0);
  const double width = kLeft + kPlotWidth + 20.0;
  const double top = 24.0;
  const double plotHeight = 220.0;
  const double step = kPlotWidth / static_cast<double>(rows.size());
  auto px = [&](std::size_t i) { return kLeft + step * (static_cast<double>(i) + 0.5); };
  auto py = [&](double cosine) { return top + plotHeight * (1.0 - cosine) / (1.0 - yMin); };
  std::string svg = fmt::format(
      "<svg xmlns='http://www.w3.org/2000/svg' width='{:.0f}' height='{:.0f}' font-size='11' "
      "font-family='sans-serif'>\n<text x='4' y='14'>accumulated cosine, int8 vs fp32, per NPU "
      "layer in run order; dashed: the warning threshold {}</text>\n<rect x='{}' y='{}' "
      "width='{}' height='{}' fill='none' stroke='#999'/>\n",
      width, top + plotHeight + 30.0, r.cosineWarn, kLeft, top, kPlotWidth, plotHeight);
  for (const double y : {yMin, (1.0 + yMin) / 2.0, 1.0}) {
    svg += fmt::format("<text x='{}' y='{:.1f}' text-anchor='end'>{:.3f}</text>\n", kLeft - 4,
                       py(y) + 4, y);
  }
  svg += fmt::format(
      "<line x1='{}' x2='{}' y1='{:.1f}' y2='{:.1f}' stroke='#c33' stroke-dasharray='5,3'/>\n",
      kLeft, kLeft + kPlotWidth, py(r.cosineWarn), py(r.cosineWarn));
  std::string points;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    points += fmt::format("{}{:.1f},{:.1f}", i == 0 ? "" : " ", px(i), py(*rows[i]->cosine));
  }
  svg += fmt::format("<polyline fill='none' stroke='#4a7ab5' points='{}'/>\n", points);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double cosine = *rows[i]->cosine;
    const bool low = cosine < r.cosineWarn;
    svg += fmt::format(
        "<circle cx='{:.1f}' cy='{:.1f}' r='{}' fill='{}'><title>{}: {:.5f}{}</title></circle>\n",
        px(i), py(cosine), low ? 4 : 3, low ? "#c00" : "#4a7ab5", escapeMarkup(rows[i]->layer),
        cosine, low ? " (below the threshold)" : "");
    if (low) {
      svg += fmt::format("<text x='{:.1f}' y='{:.1f}' fill='#c00' font-size='10'>{}</text>\n",
                         px(i) + 5, py(cosine) - 4, escapeMarkup(rows[i]->layer));
    }
  }
  svg += fmt::format("<text x='{}' y='{:.1f}' text-anchor='middle'>layer 1 .. {}</text>\n",
                     kLeft + kPlotWidth / 2, top + plotHeight + 16.0, rows.size());
  return svg + "</svg>\n";
}

}  // namespace npu::runtime
