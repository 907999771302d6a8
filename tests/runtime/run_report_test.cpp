// The run report as a person reads it: layers below the cosine threshold flagged in every format
// (the verdict qualified, not an unqualified green), roofline points labelled, the accuracy and
// timeline charts drawn; and the run trace's slices named by the program's layers.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "npu/runtime/main_job.h"
#include "npu/runtime/run_report.h"
#include "npu/runtime/run_trace.h"

namespace npu::runtime {
namespace {

LayerRow npuRow(const std::string& name, double cosine, std::uint64_t cycles) {
  LayerRow row;
  row.layer = name;
  row.kind = "conv";
  row.device = "npu";
  row.macs = 64 * cycles;
  row.cycles = cycles;
  row.computeCycles = cycles;
  row.ddrBytes = 1000;
  row.rooflineCycles = static_cast<double>(cycles) / 2.0;
  row.cosine = cosine;
  return row;
}

/// A bit-exact report of three NPU layers, the second of which quantizes badly, and one host
/// node; its timeline: the NPU segment (two units' spans), then the host segment.
MainJobReport syntheticReport() {
  MainJobReport r;
  r.model = "synthetic.onnx";
  r.hardware = "npu-s";
  r.mode = "timed";
  r.peakMacsPerCycle = 256;
  r.ddrBytesPerCycle = 16;
  r.clockMhz = 500;
  r.inputs = 2;
  r.bitExactInputs = 2;
  r.layers = {npuRow("stem_conv", 0.9995, 100), npuRow("coarse_conv", 0.7031, 200),
              npuRow("head_conv", 0.9950, 50)};
  LayerRow host;
  host.layer = "softmax";
  host.kind = "Softmax";
  host.device = "host";
  host.cycles = 30;
  r.layers.push_back(host);
  TimelineSegment npu;
  npu.device = "npu";
  npu.cycles = 350;
  npu.layerNames = {"stem_conv", "coarse_conv", "head_conv"};
  npu.instructionLayer = {0, 1, 2, -1};
  npu.spans = {{"load", 0, "LOAD", 0, 40},
               {"compute", 1, "CONV", 40, 240},
               {"compute", 2, "CONV", 240, 300},
               {"store", 3, "END", 300, 350}};
  npu.units["compute"].busyCycles = 260;
  npu.units["compute"].stallCycles["token_wait"] = 40;
  TimelineSegment cpu;
  cpu.segment = 1;
  cpu.device = "host";
  cpu.start = 350;
  cpu.cycles = 40;
  cpu.hostNodes = {{"softmax", 30}};
  cpu.borderCycles = 10;
  r.timeline = {npu, cpu};
  return r;
}

TEST(RunReport, LayersBelowTheCosineThresholdAreFlaggedEverywhere) {
  MainJobReport r = syntheticReport();
  ASSERT_TRUE(r.pass());
  const std::string flagged = "1 layer below cosine 0.99: coarse_conv 0.70310";

  const std::string text = formatRunSummary(r);
  EXPECT_NE(text.find("\nPASS: final DDR bit-exact against golden on 2/2 inputs\nWARNING: " +
                      flagged + "\n"),
            std::string::npos)
      << text;

  const std::string md = runReportMarkdown(r);
  EXPECT_NE(md.find("- **Verdict: PASS: final DDR bit-exact against golden on 2/2 inputs; " +
                    flagged + "**"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| coarse_conv | conv | npu |"), std::string::npos);
  EXPECT_NE(md.find("| 0.70310 **LOW** |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| 0.99950 **LOW** |"), std::string::npos) << md;

  const auto json = nlohmann::json::parse(runReportJson(r));
  EXPECT_EQ(json["pass"], true);  // bit-exactness stays the check
  EXPECT_EQ(json["cosine_warning"]["threshold"], 0.99);
  ASSERT_EQ(json["cosine_warning"]["layers_below"].size(), 1U);
  EXPECT_EQ(json["cosine_warning"]["layers_below"][0]["layer"], "coarse_conv");
  EXPECT_EQ(json["cosine_warning"]["layers_below"][0]["cosine"], 0.7031);

  const std::string html = runReportHtml(r);
  // Not an unqualified green: the verdict is amber and says why.
  EXPECT_EQ(html.find("<p class='pass'>"), std::string::npos);
  EXPECT_NE(html.find("<p class='warn'>PASS: final DDR bit-exact against golden on 2/2 inputs; " +
                      flagged + "</p>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr class='low'><td>coarse_conv</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>0.70310 (low)</td>"), std::string::npos);
  EXPECT_EQ(html.find("<tr class='low'><td>stem_conv</td>"), std::string::npos);

  // A lower threshold flags nothing, and the verdict is green again.
  r.cosineWarn = 0.5;
  EXPECT_NE(runReportHtml(r).find("<p class='pass'>PASS: final DDR bit-exact against golden on "
                                  "2/2 inputs</p>"),
            std::string::npos);
  EXPECT_EQ(formatRunSummary(r).find("WARNING"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(runReportJson(r))["cosine_warning"]["layers_below"].empty());
  // A stricter one flags the 0.995 layer too; the summary names the lowest first, report.json
  // lists them in layer order.
  r.layers[0].cosine = 0.998;
  r.cosineWarn = 0.999;
  EXPECT_NE(formatRunSummary(r).find("WARNING: 3 layers below cosine 0.999: coarse_conv 0.70310, "
                                     "head_conv 0.99500, stem_conv 0.99800\n"),
            std::string::npos)
      << formatRunSummary(r);
  const auto strict = nlohmann::json::parse(runReportJson(r))["cosine_warning"]["layers_below"];
  ASSERT_EQ(strict.size(), 3U);
  EXPECT_EQ(strict[0]["layer"], "stem_conv");
}

TEST(RunReport, ChartsLabelRooflinePointsAndDrawAccuracyAndTimeline) {
  const MainJobReport r = syntheticReport();
  const std::string html = runReportHtml(r);
  // Roofline: few points, each labelled with its layer.
  const std::size_t roofline = html.find("<h2>Roofline</h2>");
  ASSERT_NE(roofline, std::string::npos);
  for (const std::string name : {"stem_conv", "coarse_conv", "head_conv"}) {
    EXPECT_NE(html.find("font-size='10'>" + name + "</text>", roofline), std::string::npos) << name;
  }
  // Accuracy: the threshold line and the low layer in red, named.
  const std::size_t accuracy = html.find("<h2>Accuracy per layer</h2>");
  ASSERT_NE(accuracy, std::string::npos);
  EXPECT_NE(html.find("<title>coarse_conv: 0.70310 (below the threshold)</title>", accuracy),
            std::string::npos);
  EXPECT_NE(html.find("fill='#c00' font-size='10'>coarse_conv</text>", accuracy),
            std::string::npos);
  EXPECT_EQ(html.find("<title>stem_conv: 0.99950 (below", accuracy), std::string::npos);
  // Timeline: layers by time, the host segment with its border, unit busy shares, stall table.
  const std::size_t timeline = html.find("<h2>Timeline of the first input</h2>");
  ASSERT_NE(timeline, std::string::npos);
  EXPECT_NE(html.find("first input, 390 cycles end to end", timeline), std::string::npos);
  EXPECT_NE(html.find("<title>coarse_conv (NPU segment 0, cycles", timeline), std::string::npos);
  EXPECT_NE(html.find("pointer-events='none'>coarse_conv</text>", timeline), std::string::npos);
  EXPECT_NE(html.find("<title>softmax (30 cycles, modelled)</title>", timeline), std::string::npos);
  EXPECT_NE(html.find("<title>NPU/host border (10 cycles, modelled)</title>", timeline),
            std::string::npos);
  EXPECT_NE(html.find("<title>compute busy 100% of cycles", timeline), std::string::npos);
  EXPECT_NE(html.find("<td>compute</td><td>0</td><td>260</td><td>74.3%</td><td>40</td><td>"
                      "token_wait 40</td>",
                      timeline),
            std::string::npos);

  // Many points: numbers on the chart, names in a legend.
  MainJobReport many = r;
  many.layers.clear();
  for (int i = 0; i < 20; ++i) {
    many.layers.push_back(npuRow("layer" + std::to_string(i), 0.999, 100 + i));
  }
  const std::string crowded = runReportHtml(many);
  EXPECT_NE(crowded.find("font-size='10'>20</text>"), std::string::npos);
  EXPECT_NE(crowded.find("<b>20</b> layer19</p>"), std::string::npos);
}

TEST(RunTrace, SlicesAreNamedByLayerOnUnitAndHostTracks) {
  const auto json = nlohmann::json::parse(runTraceJson(syntheticReport()));
  std::map<int, std::string> tracks;
  std::vector<nlohmann::json> slices;
  for (const auto& event : json["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "thread_name") {
      tracks[event["tid"].get<int>()] = event["args"]["name"];
    } else if (event["ph"] == "X") {
      slices.push_back(event);
    }
  }
  EXPECT_EQ(tracks.size(), 7U);  // host and the six units of `npu sim --trace`
  ASSERT_EQ(slices.size(), 6U);
  EXPECT_EQ(slices[0]["name"], "stem_conv");
  EXPECT_EQ(tracks[slices[0]["tid"].get<int>()], "load");
  EXPECT_EQ(slices[1]["name"], "coarse_conv");
  EXPECT_EQ(slices[1]["args"]["opcode"], "CONV");
  EXPECT_EQ(slices[1]["args"]["instruction"], 1);
  EXPECT_EQ(slices[1]["ts"], 40);
  EXPECT_EQ(slices[1]["dur"], 200);
  EXPECT_EQ(slices[3]["name"], "END");
  // The host segment follows the NPU's on the same axis.
  EXPECT_EQ(slices[4]["name"], "softmax");
  EXPECT_EQ(tracks[slices[4]["tid"].get<int>()], "host");
  EXPECT_EQ(slices[4]["ts"], 350);
  EXPECT_EQ(slices[5]["name"], "NPU/host border");
  EXPECT_EQ(slices[5]["ts"], 380);
  EXPECT_EQ(slices[5]["dur"], 10);
}

}  // namespace
}  // namespace npu::runtime
