// Subnetwork benchmark units: suite files (and the exact error of each bad one), sharding,
// baseline files and the cycle comparison, the verdict of a result, well-formed reports, reports
// read back and shards merged.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "npu/subnet_bench/bench_baseline.h"
#include "npu/subnet_bench/bench_junit.h"
#include "npu/subnet_bench/bench_merge.h"
#include "npu/subnet_bench/bench_report.h"
#include "npu/subnet_bench/bench_runner.h"
#include "npu/subnet_bench/bench_selection.h"
#include "npu/subnet_bench/bench_suite.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/provenance.h"

namespace npu::bench {
namespace {

namespace fs = std::filesystem;

const fs::path kSuiteDir = fs::path(NPU_SOURCE_DIR) / "subnet_bench" / "suites";
const std::string kGraphs = (fs::path(NPU_SOURCE_DIR) / "subnet_bench" / "graphs").string();

BenchSuite parse(const std::string& text) {
  return parseSuite(text, "s.yaml", kSuiteDir);
}

std::string suiteError(const std::string& text) {
  try {
    parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// ---- suite files

TEST(BenchSuite, ParsesEntriesWithDefaults) {
  const BenchSuite s = parse(R"(suite: mine
defaults: {cosine: 0.98, cycle_tolerance: 5%}
subnets:
  - name: block
    graph: ../graphs/resnet_basic_block.yaml
    input: [1, 64, 56, 56]
  - name: fpn
    graph: ../graphs/fpn_upsample_add.yaml
    input: {c5: [1, 512, 14, 14], c4: [1, 256, 28, 28]}
    quant: ../quant/activations_mse.yaml
    cosine: 0.9
    cycle_tolerance: 0.1
)");
  EXPECT_EQ(s.name, "mine");
  EXPECT_EQ(s.baselineDir, (fs::path(NPU_SOURCE_DIR) / "subnet_bench" / "baselines"));
  ASSERT_EQ(s.subnets.size(), 2U);
  EXPECT_EQ(s.subnets[0].name, "block");
  EXPECT_EQ(s.subnets[0].graph, fs::path(kGraphs) / "resnet_basic_block.yaml");
  ASSERT_EQ(s.subnets[0].inputs.size(), 1U);
  EXPECT_EQ(s.subnets[0].inputs[0].first, "");
  EXPECT_EQ(s.subnets[0].inputs[0].second, (std::vector<std::int64_t>{1, 64, 56, 56}));
  EXPECT_DOUBLE_EQ(s.subnets[0].minCosine, 0.98);
  EXPECT_DOUBLE_EQ(s.subnets[0].cycleTolerance, 0.05);
  EXPECT_TRUE(s.subnets[0].quantConfig.empty());
  EXPECT_EQ(s.subnets[0].location, "s.yaml:4");
  ASSERT_EQ(s.subnets[1].inputs.size(), 2U);
  EXPECT_EQ(s.subnets[1].inputs[1].first, "c4");
  EXPECT_DOUBLE_EQ(s.subnets[1].minCosine, 0.9);
  EXPECT_DOUBLE_EQ(s.subnets[1].cycleTolerance, 0.1);
  EXPECT_EQ(s.subnets[1].quantConfig.filename(), "activations_mse.yaml");
}

TEST(BenchSuite, BundledSuitesLoad) {
  const BenchSuite d = loadSuite(kSuiteDir / "default.yaml");
  EXPECT_EQ(d.name, "default");
  EXPECT_EQ(d.subnets.size(), 23U);
  const BenchSuite f = loadSuite(kSuiteDir / "full.yaml");
  EXPECT_EQ(f.subnets.size(), 2U);
  const BenchSuite h = loadSuite(kSuiteDir / "hires.yaml");
  EXPECT_EQ(h.name, "hires");
  EXPECT_EQ(h.subnets.size(), 6U);
  EXPECT_EQ(defaultSuitePath().filename(), "default.yaml");
}

TEST(BenchSuite, BadFilesNameFileAndLine) {
  const std::string entry = "  - name: a\n    graph: ../graphs/gap_fc_head.yaml\n";
  EXPECT_EQ(
      suiteError("subnet: []\n"),
      "s.yaml:1: unknown key 'subnet' in the suite (keys: suite, baselines, defaults, subnets)");
  EXPECT_EQ(suiteError("suite: x\n"), "s.yaml:1: no 'subnets:' list");
  EXPECT_EQ(suiteError("subnets: []\n"), "s.yaml:1: 'subnets' must be a non-empty list");
  EXPECT_EQ(suiteError("subnets:\n  - [1\n"),
            "s.yaml:3:1: YAML syntax error: end of sequence flow not found");
  EXPECT_EQ(suiteError("subnets:\n" + entry), "s.yaml:2: subnet 'a' has no 'input'");
  EXPECT_EQ(suiteError("subnets:\n  - {graph: ../graphs/gap_fc_head.yaml, input: [1]}\n"),
            "s.yaml:2: subnet has no 'name'");
  EXPECT_EQ(suiteError("subnets:\n  - name: a\n    graph: ../graphs/nope.yaml\n"),
            "s.yaml:3: graph file '" + kGraphs + "/nope.yaml' does not exist");
  EXPECT_EQ(suiteError("subnets:\n" + entry + "    input: [1, 0, 7]\n"),
            "s.yaml:4: 'input' must be a shape: a list of positive integers, e.g. [1, 64, 56, "
            "56]");
  EXPECT_EQ(suiteError("subnets:\n" + entry + "    input: 7\n"),
            "s.yaml:4: 'input' must be a shape ([1, 64, 56, 56]) or a map of input name to shape");
  EXPECT_EQ(suiteError("subnets:\n" + entry + "    input: [1]\n    graf: x\n"),
            "s.yaml:5: unknown key 'graf' in a subnet (keys: name, graph, input, quant, cosine, "
            "cycle_tolerance)");
  EXPECT_EQ(suiteError("subnets:\n" + entry + "    input: [1]\n    cosine: 1.5\n"),
            "s.yaml:5: 'cosine' must be in [0, 1], got 1.5");
  EXPECT_EQ(suiteError("subnets:\n" + entry + "    input: [1]\n    cycle_tolerance: 150%\n"),
            "s.yaml:5: 'cycle_tolerance' must be a fraction in [0, 1] or a percentage in [0%, "
            "100%], got '150%'");
  EXPECT_EQ(suiteError("subnets:\n" + entry + "    input: [1]\n    cycle_tolerance: lots\n"),
            "s.yaml:5: 'cycle_tolerance' must be a fraction in [0, 1] or a percentage in [0%, "
            "100%], got 'lots'");
  EXPECT_EQ(suiteError("subnets:\n" + entry + "    input: [1]\n" + entry + "    input: [1]\n"),
            "s.yaml:5: subnet 'a' is listed twice");
  EXPECT_EQ(suiteError("subnets:\n  - name: a b\n"),
            "s.yaml:2: 'name' = 'a b' may hold only letters, digits, '_', '-' and '.'");
  EXPECT_EQ(suiteError("defaults: {tolerance: 1}\nsubnets: []\n"),
            "s.yaml:1: unknown key 'tolerance' in 'defaults' (keys: cosine, cycle_tolerance)");
  EXPECT_EQ(suiteError("subnets:\n" + entry + "    input: [1]\n    quant: q.yaml\n"),
            "s.yaml:5: quant file '" + kSuiteDir.string() + "/q.yaml' does not exist");
}

TEST(BenchSuite, MissingFileIsNamed) {
  try {
    loadSuite("/nonexistent/suite.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/suite.yaml: cannot open", 0), 0U)
        << e.what();
  }
}

// ---- sharding

BenchSuite namedSuite(std::size_t count) {
  BenchSuite s;
  for (std::size_t i = 0; i < count; ++i) {
    SubnetEntry e;
    e.name = (i % 3 == 0 ? "resnet_" : "mbv2_") + std::to_string(i);
    s.subnets.push_back(e);
  }
  return s;
}

TEST(BenchSelection, ShardsAreDisjointAndCoverTheSuite) {
  const BenchSuite suite = namedSuite(11);
  for (const std::string filter : {"", "resnet", "^mbv2_1"}) {
    const std::vector<std::size_t> all = selectSubnets(suite, filter, {});
    for (std::size_t n = 1; n <= 13; ++n) {
      std::vector<std::size_t> seen;
      for (std::size_t i = 1; i <= n; ++i) {
        const std::vector<std::size_t> shard = selectSubnets(suite, filter, {i, n});
        EXPECT_EQ(shard, selectSubnets(suite, filter, {i, n}));  // deterministic
        EXPECT_TRUE(std::is_sorted(shard.begin(), shard.end()));
        // Balanced: shard sizes differ by at most one.
        EXPECT_LE(shard.size(), all.size() / n + 1);
        EXPECT_GE(shard.size(), all.size() / n);
        seen.insert(seen.end(), shard.begin(), shard.end());
      }
      std::sort(seen.begin(), seen.end());
      EXPECT_EQ(seen, all) << "filter '" << filter << "', " << n << " shards";
      EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()).size(), seen.size());
    }
  }
  EXPECT_EQ(selectSubnets(suite, "resnet", {}), (std::vector<std::size_t>{0, 3, 6, 9}));
  EXPECT_EQ(selectSubnets(suite, "", {2, 4}), (std::vector<std::size_t>{1, 5, 9}));
}

TEST(BenchSelection, ParsesShards) {
  const Shard s = parseShard("3/8");
  EXPECT_EQ(s.index, 3U);
  EXPECT_EQ(s.count, 8U);
  EXPECT_EQ(shardText(s), "3/8");
  for (const char* bad : {"0/3", "4/3", "1/0", "3", "a/b", "1/2/3", "-1/2", "/2", "1/"}) {
    try {
      parseShard(bad);
      ADD_FAILURE() << bad << " parsed";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--shard: '") + bad +
                                           "' is not i/n with 1 <= i <= n (e.g. 2/4, the "
                                           "second of four shards)");
    }
  }
  try {
    selectSubnets(namedSuite(2), "(", {});
    ADD_FAILURE() << "bad regex accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--filter: '(' is not a regular expression", 0), 0U);
  }
}

// ---- baselines

TEST(BenchBaseline, ComparesWithinTolerance) {
  EXPECT_EQ(compareCycles(1000, std::nullopt, 0.02).verdict, CycleVerdict::NoBaseline);
  const CycleComparison same = compareCycles(1000, 1000, 0.02);
  EXPECT_EQ(same.verdict, CycleVerdict::Within);
  EXPECT_EQ(same.baseline, 1000U);
  EXPECT_DOUBLE_EQ(same.change, 0.0);
  EXPECT_EQ(compareCycles(1020, 1000, 0.02).verdict, CycleVerdict::Within);  // exactly 2%
  EXPECT_EQ(compareCycles(980, 1000, 0.02).verdict, CycleVerdict::Within);
  const CycleComparison slower = compareCycles(1021, 1000, 0.02);
  EXPECT_EQ(slower.verdict, CycleVerdict::Regression);
  EXPECT_NEAR(slower.change, 0.021, 1e-12);
  const CycleComparison faster = compareCycles(979, 1000, 0.02);
  EXPECT_EQ(faster.verdict, CycleVerdict::Improvement);
  EXPECT_NEAR(faster.change, -0.021, 1e-12);
  EXPECT_EQ(compareCycles(1001, 1000, 0.0).verdict, CycleVerdict::Regression);
  EXPECT_EQ(compareCycles(999, 1000, 0.0).verdict, CycleVerdict::Improvement);
  EXPECT_EQ(compareCycles(1, 0, 0.5).verdict, CycleVerdict::Regression);
  EXPECT_EQ(compareCycles(0, 0, 0.0).verdict, CycleVerdict::Within);
}

TEST(BenchBaseline, RoundTripsAndRejectsBadFiles) {
  Baselines b;
  b.hardware = "npu-s";
  b.subnets["b"] = {1234, 5678, 0.5, 0.99991};
  b.subnets["a"] = {1, 0, 0.0, 1.0};
  const std::string text = baselinesYaml(b);
  EXPECT_LT(text.find("  a: "), text.find("  b: "));  // sorted
  const Baselines back = parseBaselines(text, "b.yaml");
  EXPECT_EQ(back.hardware, "npu-s");
  EXPECT_EQ(back.subnets, b.subnets);

  auto error = [](const std::string& yaml) {
    try {
      parseBaselines(yaml, "b.yaml");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error("hardware: npu-s\nsubnets:\n  a: {macs: 3}\n"),
            "b.yaml:3: the baseline of 'a' has no 'cycles'");
  EXPECT_EQ(error("hardware: npu-s\nsubnets:\n  a: {cycles: -3}\n"),
            "b.yaml:3: 'cycles' must be a non-negative number");
  EXPECT_EQ(error("hardware: npu-s\nsubnets:\n  a: {cycles: 3, speed: 1}\n"),
            "b.yaml:3: unknown key 'speed' in the baseline of 'a' (keys: cycles, macs, "
            "utilization, cosine)");
  EXPECT_EQ(error("subnets: {}\n"), "b.yaml:1: a baseline file needs 'hardware:' and 'subnets:'");
  EXPECT_EQ(error("hardware: npu-s\nsubnets:\n  a: {cycles: 0}\n"),
            "b.yaml:3: the baseline of 'a' has 0 cycles (a run takes at least one)");
  EXPECT_EQ(error("hardware: npu-s\nsubnets:\n  a: {cycles: 9}\n  a: {cycles: 1}\n"),
            "b.yaml:4: subnet 'a' has a second baseline entry");
  EXPECT_EQ(parseBaselines("hardware: npu-s\nsubnets:\n", "b.yaml").subnets.size(), 0U);
  try {
    loadBaselines("/nonexistent/npu-x.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/npu-x.yaml: no baseline file (create it with `npu bench "
              "--update-baselines` on this hardware, or name one with --baseline)");
  }
}

SubnetResult result(const std::string& name, std::uint64_t cycles, std::uint64_t baseline) {
  SubnetResult r;
  r.entry.name = name;
  r.entry.location = "s.yaml:3";
  r.entry.minCosine = 0.99;
  r.entry.cycleTolerance = 0.02;
  r.job.inputs = 1;
  r.job.bitExactInputs = 1;
  r.job.outputCosine = 0.999;
  r.job.totalCycles = cycles;
  r.job.totalMacs = 1000;
  r.job.macUtilization = 0.5;
  r.cycleCheck = compareCycles(cycles, baseline, r.entry.cycleTolerance);
  judge(r, false);
  return r;
}

TEST(BenchJudge, FailsOnMismatchAccuracyAndRegressionOnly) {
  EXPECT_TRUE(result("same", 1000, 1000).passed());
  EXPECT_TRUE(result("faster", 900, 1000).passed());
  SubnetResult slower = result("slower", 1100, 1000);
  ASSERT_EQ(slower.failures.size(), 1U);
  EXPECT_EQ(slower.failures[0], "cycles: 1100 vs baseline 1000 (+10.00%, tolerance 2.00%)");
  judge(slower, true);  // accepting new baselines
  EXPECT_TRUE(slower.passed());

  SubnetResult bad = result("bad", 1000, 1000);
  bad.job.inputs = 1;
  bad.job.bitExactInputs = 0;
  bad.job.firstMismatch = "NPU segment 0: out[0,1,2,3]";
  bad.job.outputCosine = 0.5;
  judge(bad, true);
  ASSERT_EQ(bad.failures.size(), 2U);
  EXPECT_EQ(bad.failures[0], "bit mismatch: NPU segment 0: out[0,1,2,3]");
  EXPECT_EQ(bad.failures[1], "accuracy: output cosine vs fp32 0.50000 is below 0.99");

  SubnetResult broken = result("broken", 0, 0);
  broken.error = "graph.yaml:3: layer 'c' (Conv): unknown key 'kernal'";
  judge(broken, false);
  ASSERT_EQ(broken.failures.size(), 1U);
  EXPECT_EQ(broken.failures[0], "error: graph.yaml:3: layer 'c' (Conv): unknown key 'kernal'");

  SubnetResult rtl = result("rtl", 1000, 1000);
  rtl.rtl = RtlCheck{false, 3, 1003, "NPU segment 0: cycles differ"};
  judge(rtl, false);
  ASSERT_EQ(rtl.failures.size(), 1U);
  EXPECT_EQ(rtl.failures[0], "RTL: NPU segment 0: cycles differ");
}

TEST(BenchJudge, UpdateKeepsFailingEntries) {
  BenchReport report;
  report.results = {result("ok", 900, 1000), result("slow", 1100, 1000)};
  Baselines b{"npu-s", {{"ok", {1000, 1, 0, 0}}, {"slow", {1000, 1, 0, 0}}, {"other", {7}}}};
  EXPECT_EQ(updateBaselines(b, report), 1U);
  EXPECT_EQ(b.subnets.at("ok").cycles, 900U);
  EXPECT_EQ(b.subnets.at("slow").cycles, 1000U);
  EXPECT_EQ(b.subnets.at("other").cycles, 7U);
}

// ---- reports

/// A small XML well-formedness check: every tag closed in order, attribute values quoted,
/// no raw '<' in text or values, every '&' a known entity, no control characters.
std::string xmlProblem(const std::string& xml) {
  std::vector<std::string> open;
  std::size_t i = 0;
  auto entityOk = [&](std::size_t at) {
    for (const char* e : {"&lt;", "&gt;", "&amp;", "&quot;", "&#39;"}) {
      if (xml.compare(at, std::string(e).size(), e) == 0) {
        return true;
      }
    }
    return false;
  };
  if (xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0) != 0) {
    return "no XML declaration";
  }
  i = xml.find('\n') + 1;
  while (i < xml.size()) {
    const char c = xml[i];
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') {
      return "control character at " + std::to_string(i);
    }
    if (c == '&' && !entityOk(i)) {
      return "bad entity at " + std::to_string(i);
    }
    if (c != '<') {
      ++i;
      continue;
    }
    const std::size_t end = xml.find('>', i);
    if (end == std::string::npos) {
      return "unterminated tag";
    }
    std::string tag = xml.substr(i + 1, end - i - 1);
    // Attribute values: quoted, no '<'.
    std::size_t quotes = std::count(tag.begin(), tag.end(), '"');
    if (quotes % 2 != 0 || tag.find('<') != std::string::npos) {
      return "bad tag <" + tag + ">";
    }
    for (std::size_t k = 0; k < tag.size(); ++k) {
      if (tag[k] == '&' && !entityOk(i + 1 + k)) {
        return "bad entity in <" + tag + ">";
      }
    }
    const bool closing = tag.front() == '/';
    const bool selfClosing = tag.back() == '/';
    const std::string name =
        tag.substr(closing ? 1 : 0, tag.find_first_of(" />", 1) - (closing ? 1 : 0));
    if (closing) {
      if (open.empty() || open.back() != name) {
        return "</" + name + "> closes " + (open.empty() ? "nothing" : "<" + open.back() + ">");
      }
      open.pop_back();
    } else if (!selfClosing) {
      open.push_back(name);
    }
    i = end + 1;
  }
  return open.empty() ? "" : "<" + open.back() + "> not closed";
}

BenchReport sampleReport() {
  BenchReport report;
  report.suite = "default";
  report.suitePath = "subnet_bench/suites/default.yaml";
  report.hardware = "npu-s";
  report.mode = "timed";
  report.shard = {2, 3};
  report.baselinePath = "subnet_bench/baselines/npu-s.yaml";
  report.results = {result("ok", 1000, 1000), result("slow<&>\"'", 1100, 1000),
                    result("broken", 0, 0)};
  report.results[1].job.firstMismatch = "x";
  report.results[1].job.inputs = 1;
  report.results[1].job.bitExactInputs = 0;
  judge(report.results[1], false);
  report.results[2].error = "bad \x01 graph <a & b>";
  judge(report.results[2], false);
  return report;
}

TEST(BenchReport, JunitIsWellFormed) {
  const std::string xml = benchJunitXml(sampleReport());
  EXPECT_EQ(xmlProblem(xml), "") << xml;
  EXPECT_NE(xml.find("<testsuites name=\"npu bench\" tests=\"3\" failures=\"1\" errors=\"1\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testsuite name=\"subnet_bench.default.npu-s shard 2/3\" tests=\"3\""),
            std::string::npos);
  EXPECT_NE(xml.find("name=\"slow&lt;&amp;&gt;&quot;&#39;\""), std::string::npos);
  EXPECT_NE(xml.find("<failure message=\"bit mismatch: x\" type=\"bit mismatch\">"),
            std::string::npos);
  EXPECT_NE(xml.find("<error message=\"bad ? graph &lt;a &amp; b&gt;\""), std::string::npos);
  EXPECT_EQ(std::count(xml.begin(), xml.end(), '\x01'), 0);
  // The self-check catches what it should.
  EXPECT_NE(xmlProblem("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a><b></a></b>"), "");
  EXPECT_NE(xmlProblem("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a>x & y</a>"), "");
}

TEST(BenchReport, JsonMarkdownAndHtml) {
  const BenchReport report = sampleReport();
  const nlohmann::json j = nlohmann::json::parse(benchJson(report));
  EXPECT_EQ(j["summary"]["subnets"], 3);
  EXPECT_EQ(j["summary"]["failed"], 2);
  EXPECT_EQ(j["summary"]["regressions"], 1);
  EXPECT_EQ(j["subnets"][1]["cycle_verdict"], "regression");
  EXPECT_EQ(j["shard"], "2/3");
  const std::string md = benchMarkdown(report);
  EXPECT_NE(md.find("## Failures"), std::string::npos);
  EXPECT_NE(md.find("| ok | PASS | 1,000 | 1,000 | +0.00% | within |"), std::string::npos) << md;
  const std::string html = benchHtml(report);
  EXPECT_EQ(std::count(html.begin(), html.end(), '\x01'), 0);
  std::size_t svgs = 0;
  for (std::size_t at = html.find("<svg"); at != std::string::npos;
       at = html.find("<svg", at + 1)) {
    ++svgs;
  }
  EXPECT_EQ(svgs, 3U);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // self-contained
  const std::string table = formatBenchTable(report);
  EXPECT_NE(table.find("FAIL slow<&>\"': cycles: 1100 vs baseline 1000"), std::string::npos)
      << table;
  EXPECT_NE(table.find("2 failed (1 errors)"), std::string::npos) << table;
}

/// A report with every kind of row: layers, RTL, no baseline, an improvement, a failure, an error.
BenchReport richReport() {
  BenchReport report = sampleReport();
  report.shard = {1, 1};
  report.toolVersion = std::string(toolVersion());
  report.suiteDigest = "0123456789abcdef";
  report.filter = "o|k";
  report.rtl = true;
  report.results.push_back(result("fast", 900, 1000));
  report.results.push_back(result("new", 777, 0));
  report.results.back().cycleCheck = compareCycles(777, std::nullopt, 0.02);
  report.results[0].baselineCosine = 0.99912345678;
  report.results[0].rtl = RtlCheck{true, -3, 997, ""};
  report.results[1].rtl = RtlCheck{false, 12, 1112, "NPU segment 0: differs | at 0x40"};
  judge(report.results[1], false);
  runtime::LayerRow npuRow{"conv1", "Conv",          "npu", 0,    4096,   700,
                           650,     0.1234567890123, 8192,  0.97, 512.25, 0.999912};
  runtime::LayerRow hostRow{"softmax", "Softmax", "host", 1, 0, 33, 0, 0.0, 0, 1.0, 0.0, {}};
  report.results[0].job.layers = {npuRow, hostRow};
  for (std::size_t i = 0; i < report.results.size(); ++i) {
    report.results[i].suiteIndex = 2 * i + 1;
    report.results[i].seconds = 0.25 * static_cast<double>(i);
  }
  report.filtered = report.results.size();
  report.seconds = 3.5;
  return report;
}

std::vector<std::string> renderings(const BenchReport& report) {
  return {benchMarkdown(report), benchJson(report), benchHtml(report), benchJunitXml(report),
          formatBenchTable(report)};
}

TEST(BenchMerge, ReportsReadBackIdentically) {
  const BenchReport report = richReport();
  const fs::path dir = fs::path(testing::TempDir()) / "bench-read-back";
  fs::remove_all(dir);
  createDirectories(dir);
  writeBenchReports(dir, report);
  const BenchReport back = readBenchOutput(dir);
  const std::vector<std::string> expected = renderings(report);
  const std::vector<std::string> actual = renderings(back);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i], expected[i]) << "rendering " << i;
  }
  fs::remove_all(dir);
}

TEST(BenchMerge, ShardsMergeIntoTheWholeRun) {
  BenchReport whole = richReport();
  for (SubnetResult& r : whole.results) {
    r.seconds = 0.0;
  }
  whole.seconds = 0.0;
  whole.provenance = reportProvenance("name: npu-s\n");
  // Shard k takes the k-th, (k+3)-th, ... of the results, as selectSubnets splits.
  std::vector<BenchReport> shards;
  std::vector<std::string> sources;
  for (std::size_t k : {3U, 1U, 2U}) {
    BenchReport shard = whole;
    shard.shard = {k, 3};
    shard.results.clear();
    for (std::size_t i = k - 1; i < whole.results.size(); i += 3) {
      shard.results.push_back(whole.results[i]);
    }
    shards.push_back(shard);
    sources.push_back(fmt::format("shard{}", k));
  }
  const BenchReport merged = mergeBenchReports(shards, sources, false);
  ASSERT_EQ(merged.shardRuns.size(), 3U);
  EXPECT_EQ(merged.shardRuns[0].source, "shard1");
  EXPECT_TRUE(merged.missingShards.empty());
  // The merge stamps its own time and host and keeps the shards' tools and hardware hash; the
  // reports are compared under one stamp.
  EXPECT_EQ(merged.provenance.tool, whole.provenance.tool);
  EXPECT_EQ(merged.provenance.hardwareHash, whole.provenance.hardwareHash);
  EXPECT_FALSE(merged.provenance.time.empty());
  BenchReport mergedStamped = merged;
  mergedStamped.provenance = whole.provenance;
  nlohmann::json a = nlohmann::json::parse(benchJson(whole));
  nlohmann::json b = nlohmann::json::parse(benchJson(mergedStamped));
  EXPECT_EQ(b["shard"], "merged");
  b.erase("shards");
  b["shard"] = a["shard"];
  EXPECT_EQ(a, b);
  EXPECT_EQ(benchJunitXml(mergedStamped),
            benchJunitXml(whole).replace(benchJunitXml(whole).find("value=\"1/1\""), 11,
                                         "value=\"merged\""));

  // Missing shards: refused, or (allowed) listed.
  const std::vector<BenchReport> two(shards.begin(), shards.begin() + 2);
  const std::vector<std::string> twoSources(sources.begin(), sources.begin() + 2);
  try {
    mergeBenchReports(two, twoSources, false);
    ADD_FAILURE() << "a missing shard was not refused";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "shard 2/3 missing (of 3; give every shard's folder, or --allow-partial)");
  }
  const BenchReport partial = mergeBenchReports(two, twoSources, true);
  EXPECT_FALSE(partial.passed());
  EXPECT_EQ(partial.notRun(), 2U);
  EXPECT_EQ(missingShardsText(partial), "PARTIAL: shard 2/3 missing; 2 of 5 subnets were not run");
  const std::string xml = benchJunitXml(partial);
  EXPECT_EQ(xmlProblem(xml), "") << xml;
  EXPECT_NE(xml.find("name=\"missing shard 2/3\""), std::string::npos) << xml;

  // Shards of another run, named by their folder.
  shards[2].hardware = "npu-l";
  try {
    mergeBenchReports(shards, sources, false);
    ADD_FAILURE() << "shards of other hardware were merged";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "shard2: hardware 'npu-l' differs from 'npu-s' of shard3 (shards of different "
                 "runs)");
  }
}

TEST(BenchSelection, MissingShardsOfASplit) {
  using Named = std::vector<std::pair<Shard, std::string>>;
  EXPECT_TRUE(missingShards(Named{{{1, 2}, "a"}, {{2, 2}, "b"}}).empty());
  const std::vector<Shard> missing = missingShards(Named{{{4, 8}, "a"}, {{1, 8}, "b"}});
  ASSERT_EQ(missing.size(), 6U);
  EXPECT_EQ(shardListText(missing), "shards 2/8, 3/8, 5/8, 6/8, 7/8, 8/8");
  std::vector<Shard> many;
  for (std::size_t i = 1; i <= 12; ++i) {
    many.push_back({i, 12});
  }
  EXPECT_EQ(shardListText(many),
            "shards 1/12, 2/12, 3/12, 4/12, 5/12, 6/12, 7/12, 8/12, 9/12, 10/12 and 2 more");
  EXPECT_THROW(
      {
        try {
          missingShards(Named{{{1, 2}, "a"}, {{1, 2}, "b"}});
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(), "b: shard 1/2 given twice (also a)");
          throw;
        }
      },
      Error);
  EXPECT_THROW(
      {
        try {
          missingShards(Named{{{1, 2}, "a"}, {{3, 4}, "b"}});
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(),
                       "b: shard 3/4 is of a split into 4, but a is shard 1/2 of a split into 2");
          throw;
        }
      },
      Error);
}

TEST(BenchBaseline, ConcurrentUpdatesFromThreadsKeepEveryEntry) {
  const fs::path dir = fs::path(testing::TempDir()) / "baseline-threads";
  fs::remove_all(dir);
  const fs::path file = dir / "npu-s.yaml";
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&, t] {
      for (int k = 0; k < 10; ++k) {
        const std::uint64_t cycles = static_cast<std::uint64_t>(100 * t + k + 1);
        updateBaselineFile(file, "npu-s", {{fmt::format("s{}_{}", t, k), {cycles, 1, 0.5, 0.9}}});
      }
    });
  }
  for (std::thread& w : writers) {
    w.join();
  }
  const Baselines written = loadBaselines(file);
  EXPECT_EQ(written.subnets.size(), 80U);
  EXPECT_EQ(written.subnets.at("s7_9").cycles, 710U);
  try {
    updateBaselineFile(file, "npu-l", {});
    ADD_FAILURE() << "baselines of other hardware were updated";
  } catch (const Error& e) {
    EXPECT_EQ(
        std::string(e.what()),
        file.string() +
            ": the baselines are for hardware 'npu-s', not 'npu-l' (give --baseline or --hw)");
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace npu::bench
