// Escaping and SVG bar charts for the HTML and XML reports.
#include "npu/support/markup.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace npu {

std::string escapeMarkup(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\t':
      case '\n':
      case '\r':
        out += c;
        break;
      default:
        out += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
    }
  }
  return out;
}

std::string htmlReportHead(std::string_view title, std::string_view extraCss) {
  return fmt::format(
      "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{}</title>\n"
      "<style>body{{font-family:sans-serif;margin:2em;max-width:1100px}}"
      "table{{border-collapse:collapse;font-size:12px}}td,th{{border:1px solid #ccc;padding:2px "
      "6px;text-align:right}}td:first-child,th:first-child{{text-align:left}}"
      ".pass{{color:#080;font-weight:bold}}.fail{{color:#c00;font-weight:bold}}"
      ".provenance{{color:#666;font-size:11px}}{}</style></head>"
      "<body>\n",
      escapeMarkup(title), extraCss);
}

std::string svgBarChart(std::string_view title, std::span<const ChartBar> bars) {
  constexpr int kBarHeight = 16;
  constexpr int kLabelWidth = 220;
  constexpr int kPlotWidth = 520;
  const int height = 30 + static_cast<int>(bars.size()) * kBarHeight;
  double top = 0.0;
  bool diverging = false;
  for (const ChartBar& bar : bars) {
    top = std::max(top, std::abs(bar.value));
    diverging = diverging || bar.value < 0.0;
  }
  // Where zero is and how many pixels the largest |value| spans.
  const double zero = diverging ? kLabelWidth + kPlotWidth / 2.0 : kLabelWidth;
  const double span = diverging ? kPlotWidth / 2.0 : kPlotWidth;
  std::string svg = fmt::format(
      "<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' font-size='11' "
      "font-family='sans-serif'><text x='4' y='14' font-weight='bold'>{}</text>\n",
      kLabelWidth + kPlotWidth + 90, height, escapeMarkup(title));
  if (diverging) {
    svg +=
        fmt::format("<line x1='{0}' y1='18' x2='{0}' y2='{1}' stroke='#999'/>\n", zero, height - 4);
  }
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const ChartBar& bar = bars[i];
    const double w = top > 0.0 ? span * std::abs(bar.value) / top : 0.0;
    const double x = bar.value < 0.0 ? zero - w : zero;
    const int y = 22 + static_cast<int>(i) * kBarHeight;
    const std::string text = bar.text.empty() ? fmt::format("{:.0f}", bar.value) : bar.text;
    // The value follows a bar that grows right; a bar that grows left leaves the right half of
    // its row free, so its value goes there, clear of the labels.
    svg += fmt::format(
        "<text x='{}' y='{}' text-anchor='end'>{}</text><rect x='{:.1f}' y='{}' width='{:.1f}' "
        "height='{}' fill='{}'/><text x='{:.1f}' y='{}'>{}</text>\n",
        kLabelWidth - 4, y + 11, escapeMarkup(bar.label), x, y + 2, w, kBarHeight - 4,
        bar.color.empty() ? std::string("#4a7ab5") : escapeMarkup(bar.color),
        bar.value < 0.0 ? zero + 4 : x + w + 4, y + 11, escapeMarkup(text));
  }
  return svg + "</svg>\n";
}

std::string htmlProvenanceLine(const Provenance& provenance, int schemaVersion) {
  return fmt::format("<p class='provenance'>{}</p>\n",
                     escapeMarkup(provenance.line(schemaVersion)));
}

std::string markdownProvenanceLine(const Provenance& provenance, int schemaVersion) {
  return fmt::format("*{}*\n", provenance.line(schemaVersion));
}

}  // namespace npu
