// Bounded opcheck sweeps (every op kind, every engine, a tiling-heavy config), and the debug bug
// injection: opcheck must find each planted bug, shrink it and write a repro that replays.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "npu/subnet_bench/op_sweep.h"
#include "npu/subnet_bench/repro.h"
#include "npu/support/error.h"

namespace npu::bench {
namespace {

isa::NpuConfig preset(const std::string& name) {
  return isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "configs" / (name + ".yaml"));
}

isa::NpuConfig tiny() {
  return isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) /
                            "tests/data/opcheck/npu-tiny.yaml");
}

std::filesystem::path scratchDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("opcheck_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

/// Runs a sweep that must pass; prints the summary (with repro paths) when it does not.
SweepReport expectClean(SweepOptions options, const std::string& name) {
  options.outDir = scratchDir(name);
  const SweepReport report = runSweep(options);
  EXPECT_EQ(report.total().fail, 0U) << formatSweepSummary(report, options);
  EXPECT_EQ(report.total().total(), options.count);
  return report;
}

TEST(OpcheckSweep, AllOpsFunctionalOnNpuS) {
  SweepOptions options;
  options.count = 600;
  options.seed = 1;
  options.check.hw = preset("npu-s");
  const SweepReport report = expectClean(options, "functional");
  // Every op kind is reached, and most cases are supported.
  for (const OpKind kind :
       {OpKind::Conv, OpKind::Add, OpKind::Mul, OpKind::MaxPool, OpKind::AvgPool,
        OpKind::GlobalAvgPool, OpKind::Lut, OpKind::Concat, OpKind::Upsample}) {
    ASSERT_TRUE(report.counts.contains(kind)) << opKindName(kind);
    EXPECT_GT(report.counts.at(kind).pass, 10U) << opKindName(kind);
  }
  EXPECT_LT(report.total().unsupported, options.count / 20);
}

TEST(OpcheckSweep, AllOpsTimedOnNpuS) {
  SweepOptions options;
  options.count = 250;
  options.seed = 2;
  options.check.hw = preset("npu-s");
  options.check.engine = Engine::Timed;
  expectClean(options, "timed");
}

TEST(OpcheckSweep, AllOpsOnTinySramsBothEngines) {
  // Few-KiB SRAMs and a non-square array force bands, channel blocks and input-channel splits.
  for (const Engine engine : {Engine::Functional, Engine::Timed}) {
    SweepOptions options;
    options.count = 200;
    options.seed = 3;
    options.check.hw = tiny();
    options.check.engine = engine;
    expectClean(options, std::string("tiny_") + std::string(engineName(engine)));
  }
}

TEST(OpcheckSweep, ConvOnNpuL) {
  SweepOptions options;
  options.family = OpFamily::Conv;
  options.count = 100;
  options.seed = 4;
  options.check.hw = preset("npu-l");
  expectClean(options, "npu_l");
}

TEST(OpcheckSweep, SweepCasesAreDeterministic) {
  for (std::uint64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(sweepCase(std::nullopt, 9, i), sweepCase(std::nullopt, 9, i));
  }
  EXPECT_FALSE(sweepCase(std::nullopt, 9, 0) == sweepCase(std::nullopt, 10, 0));
}

TEST(OpcheckSweep, FieldLimitCasesPassOrAreRefused) {
  // Cases past 4095 rows, columns or channels (the 12-bit CONV/POOL size fields): codegen must
  // tile them or refuse them with a layer error, never emit an out-of-range field.
  SweepOptions options;
  options.count = 400;
  options.seed = 1;
  options.check.hw = preset("npu-s");
  std::uint64_t atLimit = 0;
  for (std::uint64_t i = 0; i < options.count; ++i) {
    const OpCase c = sweepCase(std::nullopt, options.seed, i);
    atLimit += std::max({c.height, c.width, c.channels}) > 4095 ? 1 : 0;
  }
  EXPECT_GE(atLimit, 2U);
  expectClean(options, "field_limits");
}

struct BugCase {
  InjectedBug bug;
  std::optional<OpFamily> family;
};

/// ctest names carry the printed parameter: the bug's name, not the struct's bytes.
void PrintTo(const BugCase& c, std::ostream* os) {
  *os << bugName(c.bug);
}

class InjectedBugTest : public ::testing::TestWithParam<BugCase> {};

TEST_P(InjectedBugTest, IsFoundShrunkAndReplayed) {
  const BugCase param = GetParam();
  SweepOptions options;
  options.family = param.family;
  options.count = 60;
  options.seed = 5;
  options.check.hw = preset("npu-s");
  options.check.bug = param.bug;
  options.generator.fieldLimits = false;
  options.maxRepros = 1;
  options.outDir = scratchDir(std::string(bugName(param.bug)));
  const SweepReport report = runSweep(options);

  // Found.
  ASSERT_GT(report.total().fail, 0U) << formatSweepSummary(report, options);
  const SweepFailure& first = report.failures.front();
  EXPECT_EQ(first.result.kind, "mismatch");
  ASSERT_TRUE(first.shrunk);

  // Shrunk: at most as large as the original everywhere, and small.
  const OpCase& minimal = first.shrunk->minimal;
  EXPECT_GT(first.shrunk->steps, 0);
  EXPECT_LE(minimal.height, first.original.height);
  EXPECT_LE(minimal.width, first.original.width);
  EXPECT_LE(minimal.channels, first.original.channels);
  EXPECT_LE(caseWork(minimal), caseWork(first.original));
  EXPECT_LE(minimal.height * minimal.width * minimal.channels, 16) << describeCase(minimal);
  EXPECT_EQ(minimal.kernel[0] * minimal.kernel[1], 1) << describeCase(minimal);

  // The repro replays and fails; without the bug it passes.
  const Repro repro = readRepro(first.repro);
  EXPECT_EQ(repro.opCase, minimal);
  EXPECT_EQ(repro.bug, param.bug);
  CheckOptions check = options.check;
  EXPECT_EQ(checkCase(repro.opCase, check).verdict, Verdict::Fail);
  check.bug = InjectedBug::None;
  const CaseResult clean = checkCase(repro.opCase, check);
  EXPECT_EQ(clean.verdict, Verdict::Pass) << clean.message;
  std::filesystem::remove_all(options.outDir);
}

INSTANTIATE_TEST_SUITE_P(EveryBug, InjectedBugTest,
                         ::testing::Values(BugCase{InjectedBug::ConvBiasBit, OpFamily::Conv},
                                           BugCase{InjectedBug::ConvClipHigh, OpFamily::Conv},
                                           BugCase{InjectedBug::EltwiseZeroPoint,
                                                   OpFamily::Eltwise},
                                           BugCase{InjectedBug::ExpectedOffByOne, std::nullopt}),
                         [](const ::testing::TestParamInfo<BugCase>& info) {
                           std::string name(bugName(info.param.bug));
                           std::erase(name, '-');
                           return name;
                         });

TEST(OpcheckCase, UnsupportedIsReportedSeparately) {
  OpCase c;
  c.kind = OpKind::MaxPool;
  c.height = 4;
  c.width = 4;
  c.kernel = {3, 3};
  c.pads = {64, 0, 0, 0};
  CheckOptions check;
  check.hw = preset("npu-s");
  const CaseResult result = checkCase(c, check);
  EXPECT_EQ(result.verdict, Verdict::Unsupported);
  EXPECT_EQ(result.message, "layer 'maxpool': padding above 63 is not supported by LOAD");
}

TEST(OpcheckCase, InvalidCaseIsAnError) {
  OpCase c;
  c.kind = OpKind::Conv;
  c.channels = 4;
  c.outChannels = 6;
  c.groups = 4;
  CheckOptions check;
  check.hw = preset("npu-s");
  try {
    checkCase(c, check);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "case: groups 4 must divide both the input channels 4 and the output channels 6");
  }
}

TEST(OpcheckCase, RtlEngineRefusesAnotherHardwareConfig) {
  OpCase c;
  c.kind = OpKind::Lut;
  CheckOptions check;
  check.hw = preset("npu-l");
  check.engine = Engine::Rtl;
  try {
    checkCase(c, check);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "opcheck: the RTL model is built for hardware 'npu-s', not 'npu-l'");
  }
}

TEST(OpcheckSweep, RtlEngineSmallSweep) {
  SweepOptions options;
  options.count = 40;
  options.seed = 6;
  options.check.hw = preset("npu-s");
  options.check.engine = Engine::Rtl;
  expectClean(options, "rtl");
}

}  // namespace
}  // namespace npu::bench
