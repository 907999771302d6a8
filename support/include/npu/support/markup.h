// Helpers for the self-contained HTML and XML reports: escaping and inline SVG bar charts.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "npu/support/provenance.h"

namespace npu {

/// `text` safe inside HTML or XML text and quoted attributes: & < > " ' become entities, and
/// control characters XML 1.0 forbids (all below 0x20 but tab, newline, carriage return) become
/// '?'.
std::string escapeMarkup(std::string_view text);

/// The start of a self-contained report page, up to and including <body>: the title and the
/// shared style of the project's reports (tables, .pass and .fail verdicts), plus `extraCss`.
std::string htmlReportHead(std::string_view title, std::string_view extraCss = "");

/// The provenance line of an HTML report (Provenance::line), one paragraph of class provenance.
std::string htmlProvenanceLine(const Provenance& provenance, int schemaVersion);

/// The provenance line of a Markdown report, one paragraph in italics.
std::string markdownProvenanceLine(const Provenance& provenance, int schemaVersion);

/// One bar of svgBarChart.
struct ChartBar {
  std::string label;
  double value = 0.0;
  /// Printed after the bar; empty: the value with no decimals.
  std::string text;
  /// Fill colour (CSS); empty: the default blue.
  std::string color;
};

/// A horizontal bar chart as one inline <svg> element, labels on the left, each bar scaled to
/// the largest |value|. When some value is negative the zero axis sits in the middle and bars
/// grow left or right of it (a change chart).
std::string svgBarChart(std::string_view title, std::span<const ChartBar> bars);

}  // namespace npu
