// Bounded opcheck sweeps (every op kind, every engine, a tiling-heavy config), and the debug bug
// injection: opcheck must find each planted bug, shrink it and write a repro that replays.
#include <gtest/gtest.h>

#include <unistd.h>
#include <set>

#include <algorithm>
#include <array>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine_run_name.h"
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
  for (const CaseKind kind :
       {CaseKind::Conv, CaseKind::Add, CaseKind::Sub, CaseKind::Mul, CaseKind::MaxPool,
        CaseKind::AvgPool, CaseKind::GlobalAvgPool, CaseKind::Lut, CaseKind::Concat,
        CaseKind::Upsample, CaseKind::Slice, CaseKind::Shuffle}) {
    ASSERT_TRUE(report.counts.contains(kind)) << caseKindName(kind);
    EXPECT_GT(report.counts.at(kind).pass, 10U) << caseKindName(kind);
  }
  // Nothing the generator draws is refused on npu-s (issue 21: column tiles, padding fills,
  // dilation phases, global pools as CONVs).
  EXPECT_EQ(report.total().unsupported, 0U) << formatSweepSummary(report, options);
}

TEST(OpcheckSweep, WideMapsAndLargeDilationsAreDrawnAndColumnTiled) {
  SweepOptions options;
  options.family = OpFamily::Conv;
  options.count = 400;
  options.seed = 21;
  options.check.hw = preset("npu-s");
  std::uint64_t wide = 0;
  std::uint64_t pastField = 0;
  for (std::uint64_t i = 0; i < options.count; ++i) {
    const OpCase c = sweepCase(options.family, options.seed, i);
    wide += c.width >= 600 && c.width < 3000 ? 1 : 0;
    pastField += std::max(c.dilation[0], c.dilation[1]) > 15 ? 1 : 0;
  }
  EXPECT_GE(wide, 8U);
  EXPECT_GE(pastField, 3U);
  const SweepReport report = expectClean(options, "wide_maps");
  EXPECT_EQ(report.total().unsupported, 0U) << formatSweepSummary(report, options);
  constexpr unsigned kColumnTilesBit = 7;
  static_assert(kFeatureColumnTiles == 1U << kColumnTilesBit);
  EXPECT_GE(report.counts.at(CaseKind::Conv).features[kColumnTilesBit], 8U)
      << formatSweepSummary(report, options);
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

/// The data-movement and broadcast forms: case `index` of a sweep over one of them.
enum class NewForm : std::uint8_t { Slice, Shuffle, BroadcastEltwise };

std::string formName(NewForm form) {
  return form == NewForm::Slice ? "slice" : (form == NewForm::Shuffle ? "shuffle" : "broadcast");
}

/// The first `count` cases of a seeded sweep that have the form (for broadcast: the eltwise
/// cases whose second input is per-channel).
std::vector<OpCase> casesOf(NewForm form, std::uint64_t seed, std::uint64_t count) {
  const OpFamily family = form == NewForm::Slice
                              ? OpFamily::Slice
                              : (form == NewForm::Shuffle ? OpFamily::Shuffle : OpFamily::Eltwise);
  std::vector<OpCase> cases;
  for (std::uint64_t i = 0; cases.size() < count && i < 100 * count; ++i) {
    OpCase c = sweepCase(family, seed, i);
    if (form != NewForm::BroadcastEltwise || c.perChannelB) {
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

struct FormRun {
  NewForm form;
  Engine engine;
  std::uint64_t count;
};

void PrintTo(const FormRun& run, std::ostream* os) {
  *os << formName(run.form) << "_" << engineName(run.engine);
}

class OpcheckNewFormTest : public ::testing::TestWithParam<FormRun> {};

TEST_P(OpcheckNewFormTest, SweepIsBitExact) {
  // Channel slices, channel shuffles and per-channel ([1, 1, 1, C]) add/mul operands, on every
  // engine: each case must pass (or be refused with a layer error), and most must pass.
  const FormRun run = GetParam();
  CheckOptions check;
  check.hw = preset("npu-s");
  check.engine = run.engine;
  const std::vector<OpCase> cases = casesOf(run.form, 12, run.count);
  ASSERT_EQ(cases.size(), run.count);
  std::uint64_t passed = 0;
  for (const OpCase& c : cases) {
    const CaseResult result = checkCase(c, check);
    EXPECT_TRUE(result.verdict != Verdict::Fail)
        << describeCase(c) << ": " << result.kind << ": " << result.message;
    passed += result.verdict == Verdict::Pass ? 1 : 0;
  }
  EXPECT_GE(passed, run.count * 9 / 10);
}

INSTANTIATE_TEST_SUITE_P(EveryEngine, OpcheckNewFormTest,
                         ::testing::Values(FormRun{NewForm::Slice, Engine::Functional, 30},
                                           FormRun{NewForm::Slice, Engine::Timed, 30},
                                           FormRun{NewForm::Slice, Engine::Rtl, 10},
                                           FormRun{NewForm::Shuffle, Engine::Functional, 30},
                                           FormRun{NewForm::Shuffle, Engine::Timed, 30},
                                           FormRun{NewForm::Shuffle, Engine::Rtl, 10},
                                           FormRun{NewForm::BroadcastEltwise, Engine::Functional,
                                                   30},
                                           FormRun{NewForm::BroadcastEltwise, Engine::Timed, 30},
                                           FormRun{NewForm::BroadcastEltwise, Engine::Rtl, 10}),
                         [](const ::testing::TestParamInfo<FormRun>& info) {
                           return formName(info.param.form) + "_" +
                                  std::string(engineName(info.param.engine));
                         });

TEST(OpcheckSweep, NewFormsOnTinySrams) {
  // Row bands and element-wise chunks of a few pixels: a per-channel operand is reloaded for
  // every chunk, a slice or shuffle group is copied band by band.
  for (const NewForm form : {NewForm::Slice, NewForm::Shuffle, NewForm::BroadcastEltwise}) {
    CheckOptions check;
    check.hw = tiny();
    for (const OpCase& c : casesOf(form, 13, 40)) {
      const CaseResult result = checkCase(c, check);
      EXPECT_TRUE(result.verdict != Verdict::Fail)
          << describeCase(c) << ": " << result.kind << ": " << result.message;
    }
  }
}

TEST(OpcheckCase, NewFormsBuildTheirOps) {
  OpCase add;
  add.kind = CaseKind::Add;
  add.height = 3;
  add.width = 2;
  add.channels = 5;
  add.perChannelB = true;
  const CaseGraph broadcast = buildCaseGraph(add);
  ASSERT_EQ(broadcast.inputs.size(), 2U);
  EXPECT_EQ(broadcast.inputs[1].shape, (std::vector<std::int64_t>{1, 1, 1, 5}));
  EXPECT_EQ(broadcast.graph.tensors[broadcast.graph.inputs[1]].shape,
            (std::vector<std::int64_t>{1, 1, 1, 5}));
  EXPECT_EQ(caseOutputShape(add), (std::vector<std::int64_t>{1, 3, 2, 5}));

  OpCase slice;
  slice.kind = CaseKind::Slice;
  slice.channels = 10;
  slice.channelBegin = 3;
  slice.sliceChannels = 4;
  const CaseGraph sliced = buildCaseGraph(slice);
  ASSERT_TRUE(std::holds_alternative<compiler::QSlice>(sliced.graph.ops.at(0)));
  EXPECT_EQ(std::get<compiler::QSlice>(sliced.graph.ops[0]).channelBegin, 3);
  EXPECT_EQ(caseOutputShape(slice), (std::vector<std::int64_t>{1, 1, 1, 4}));
  EXPECT_EQ(describeCase(slice), "slice 1x1x10 -> 1x1x4 channels [3,7) zp 0 data uniform seed 0");

  OpCase shuffle;
  shuffle.kind = CaseKind::Shuffle;
  shuffle.channels = 12;
  shuffle.groups = 3;
  const CaseGraph shuffled = buildCaseGraph(shuffle);
  ASSERT_TRUE(std::holds_alternative<compiler::QShuffle>(shuffled.graph.ops.at(0)));
  EXPECT_EQ(std::get<compiler::QShuffle>(shuffled.graph.ops[0]).groups, 3);
  EXPECT_EQ(caseOutputShape(shuffle), (std::vector<std::int64_t>{1, 1, 1, 12}));
}

TEST(OpcheckCase, StridedSliceBuildsItsWindow) {
  // Odd rows (a Focus phase) and every third column from column 1, stopping before the last
  // one it could reach (column 7), of channels [2, 5).
  OpCase slice;
  slice.kind = CaseKind::Slice;
  slice.height = 7;
  slice.width = 9;
  slice.channels = 6;
  slice.channelBegin = 2;
  slice.sliceChannels = 3;
  slice.rowBegin = 1;
  slice.rowStep = 2;
  slice.sliceRows = 3;  // rows 1, 3, 5
  slice.colBegin = 1;
  slice.colStep = 3;
  slice.sliceCols = 2;  // columns 1, 4
  slice.seed = 77;
  const CaseGraph built = buildCaseGraph(slice);
  ASSERT_TRUE(std::holds_alternative<compiler::QSlice>(built.graph.ops.at(0)));
  const auto& op = std::get<compiler::QSlice>(built.graph.ops[0]);
  EXPECT_EQ(op.channelBegin, 2);
  EXPECT_EQ(op.rowBegin, 1);
  EXPECT_EQ(op.rowStep, 2);
  EXPECT_EQ(op.colBegin, 1);
  EXPECT_EQ(op.colStep, 3);
  const std::vector<std::int64_t> outShape{1, 3, 2, 3};
  EXPECT_EQ(caseOutputShape(slice), outShape);
  EXPECT_EQ(built.graph.tensors[built.graph.outputs[0]].shape, outShape);
  EXPECT_EQ(describeCase(slice),
            "slice 7x9x6 -> 3x2x3 channels [2,5) rows 1:6:2 cols 1:5:3 zp 0 data uniform seed 77");

  // The graph's golden output is those bytes of the input, in order.
  const golden::Int8Tensor& x = built.inputs.at(0);
  std::vector<std::int8_t> expected;
  for (const std::int64_t y : {1, 3, 5}) {
    for (const std::int64_t col : {1, 4}) {
      for (std::int64_t ch = 2; ch < 5; ++ch) {
        expected.push_back(x.data[static_cast<std::size_t>((y * 9 + col) * 6 + ch)]);
      }
    }
  }
  const auto values = compiler::runQuantizedGraphGolden(built.graph, built.inputs);
  EXPECT_EQ(values[built.graph.outputs[0]].data, expected);

  // Every engine reproduces them bit-exactly.
  for (const Engine engine : {Engine::Functional, Engine::Timed, Engine::Rtl}) {
    CheckOptions check;
    check.hw = preset("npu-s");
    check.engine = engine;
    const CaseResult result = checkCase(slice, check);
    EXPECT_EQ(result.verdict, Verdict::Pass)
        << engineName(engine) << ": " << result.kind << ": " << result.message;
  }

  // A window that keeps every row and column describes as the channel slice it is.
  OpCase whole = slice;
  whole.rowBegin = whole.colBegin = 0;
  whole.rowStep = whole.colStep = 1;
  whole.sliceRows = 7;
  whole.sliceCols = 9;
  EXPECT_EQ(describeCase(whole), "slice 7x9x6 -> 7x9x3 channels [2,5) zp 0 data uniform seed 77");
}

TEST(OpcheckCase, SliceWindowOutsideTheInputIsAnError) {
  OpCase base;
  base.kind = CaseKind::Slice;
  base.height = 5;
  base.width = 4;
  base.channels = 2;
  base.sliceRows = 5;
  base.sliceCols = 4;
  validateCase(base);
  const std::vector<std::pair<std::function<void(OpCase&)>, std::string>> bad{
      {[](OpCase& c) { c.rowBegin = 5; }, "case: slice row begin 5 is outside [0, 4]"},
      {[](OpCase& c) { c.rowStep = 0; }, "case: slice row step 0 is outside [1, 65535]"},
      {[](OpCase& c) {  // rows 1, 3 fit; a third (row 5) does not
         c.rowBegin = 1;
         c.rowStep = 2;
         c.sliceRows = 3;
       },
       "case: slice rows 3 is outside [1, 2]"},
      {[](OpCase& c) { c.colBegin = -1; }, "case: slice column begin -1 is outside [0, 3]"},
      {[](OpCase& c) { c.colStep = -2; }, "case: slice column step -2 is outside [1, 65535]"},
      {[](OpCase& c) {  // columns 2, 3 at most
         c.colBegin = 2;
         c.sliceCols = 4;
       },
       "case: slice columns 4 is outside [1, 2]"},
      {[](OpCase& c) { c.sliceCols = 0; }, "case: slice columns 0 is outside [1, 4]"},
  };
  CheckOptions check;
  check.hw = preset("npu-s");
  for (const auto& [change, message] : bad) {
    OpCase c = base;
    change(c);
    try {
      checkCase(c, check);
      ADD_FAILURE() << "expected an error: " << message;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  }
}

TEST(OpcheckSweep, SliceSweepDrawsSpatialWindows) {
  // The slice family keeps its channel slices and adds windows of rows and columns: whole
  // planes, the four 2x2 phases of a Focus stem, steps up to 3, and windows that end before the
  // input does.
  std::uint64_t whole = 0, focus = 0, step3 = 0, endsEarly = 0;
  std::array<std::uint64_t, 4> phases{};
  constexpr std::uint64_t kCases = 1000;
  for (std::uint64_t i = 0; i < kCases; ++i) {
    const OpCase c = sweepCase(OpFamily::Slice, 1, i);
    ASSERT_EQ(c.kind, CaseKind::Slice);
    ASSERT_NO_THROW(validateCase(c)) << describeCase(c);
    const bool wholeRows = c.rowBegin == 0 && c.rowStep == 1 && c.sliceRows == c.height;
    const bool wholeCols = c.colBegin == 0 && c.colStep == 1 && c.sliceCols == c.width;
    whole += wholeRows && wholeCols ? 1 : 0;
    if (c.rowStep == 2 && c.colStep == 2 && c.rowBegin <= 1 && c.colBegin <= 1 && c.height > 1 &&
        c.width > 1 && c.sliceRows == sliceCountToEnd(c.height, c.rowBegin, 2) &&
        c.sliceCols == sliceCountToEnd(c.width, c.colBegin, 2)) {
      ++focus;
      ++phases.at(static_cast<std::size_t>(c.rowBegin * 2 + c.colBegin));
    }
    step3 += c.rowStep == 3 || c.colStep == 3 ? 1 : 0;
    endsEarly += c.sliceRows < sliceCountToEnd(c.height, c.rowBegin, c.rowStep) ||
                         c.sliceCols < sliceCountToEnd(c.width, c.colBegin, c.colStep)
                     ? 1
                     : 0;
  }
  EXPECT_GT(whole, kCases * 3 / 10);
  EXPECT_LT(whole, kCases * 6 / 10);
  EXPECT_GT(focus, kCases / 8);
  for (const std::uint64_t n : phases) {
    EXPECT_GT(n, kCases / 50);
  }
  EXPECT_GT(step3, kCases / 10);
  EXPECT_GT(endsEarly, kCases / 10);
}

TEST(OpcheckShrink, StridedSliceShrinksToASmallValidCase) {
  // A failure that does not depend on the window (the expected first byte is off by one):
  // every shrinking step must stay a valid slice, down to one pixel of one channel.
  OpCase c;
  c.kind = CaseKind::Slice;
  c.height = 9;
  c.width = 8;
  c.channels = 12;
  c.channelBegin = 5;
  c.sliceChannels = 4;
  c.rowBegin = 1;
  c.rowStep = 2;
  c.sliceRows = 4;
  c.colBegin = 2;
  c.colStep = 3;
  c.sliceCols = 2;
  CheckOptions check;
  check.hw = preset("npu-s");
  check.bug = InjectedBug::ExpectedOffByOne;
  const CaseResult failure = checkCase(c, check);
  ASSERT_EQ(failure.verdict, Verdict::Fail);
  const ShrinkResult shrunk = shrinkCase(c, failure, check, 200);
  const OpCase& m = shrunk.minimal;
  ASSERT_NO_THROW(validateCase(m)) << describeCase(m);
  EXPECT_EQ(m.kind, CaseKind::Slice);
  EXPECT_EQ(caseOutputShape(m), (std::vector<std::int64_t>{1, 1, 1, 1})) << describeCase(m);
  EXPECT_EQ(m.height * m.width * m.channels, 1) << describeCase(m);
  EXPECT_EQ(checkCase(m, check).verdict, Verdict::Fail);
}

TEST(OpcheckSweep, EltwiseMixesInPerChannelOperands) {
  // About 30% of add and mul cases broadcast their second input; the sweep draws that choice
  // from its own stream, so the cases that do not are the ones earlier builds drew.
  std::uint64_t perChannel = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    perChannel += sweepCase(OpFamily::Eltwise, 1, i).perChannelB ? 1 : 0;
  }
  EXPECT_GT(perChannel, 240U);
  EXPECT_LT(perChannel, 360U);
  for (std::uint64_t i = 0; i < 200; ++i) {
    EXPECT_FALSE(sweepCase(OpFamily::Concat, 1, i).perChannelB);
  }
}

TEST(OpcheckSweep, ShardsRunTheSweepsCasesOnce) {
  EXPECT_EQ(shardCases(10, {1, 3}), 4U);
  EXPECT_EQ(shardCases(10, {3, 3}), 3U);
  EXPECT_EQ(shardCases(2, {3, 3}), 0U);
  // With a bug planted, so that the failing cases identify the cases each shard ran.
  SweepOptions options;
  options.family = OpFamily::Conv;
  options.count = 31;
  options.seed = 5;
  options.check.hw = preset("npu-s");
  options.check.bug = InjectedBug::ConvClipHigh;
  options.generator.fieldLimits = false;
  options.maxRepros = 0;
  const SweepReport whole = runSweep(options);
  ASSERT_GT(whole.failures.size(), 2U);
  std::vector<std::uint64_t> failing;
  SweepCounts sum;
  for (std::size_t i = 1; i <= 4; ++i) {
    options.shard = {i, 4};
    const SweepReport part = runSweep(options);
    EXPECT_EQ(part.total().total(), shardCases(31, options.shard));
    for (const SweepFailure& f : part.failures) {
      EXPECT_EQ(f.index % 4, i - 1) << "case " << f.index << " ran in shard " << i;
      failing.push_back(f.index);
    }
    sum.pass += part.total().pass;
    sum.fail += part.total().fail;
    sum.unsupported += part.total().unsupported;
  }
  std::sort(failing.begin(), failing.end());
  std::vector<std::uint64_t> expected;
  for (const SweepFailure& f : whole.failures) {
    expected.push_back(f.index);
  }
  EXPECT_EQ(failing, expected);
  EXPECT_EQ(sum.pass, whole.total().pass);
  EXPECT_EQ(sum.fail, whole.total().fail);
  EXPECT_EQ(sum.unsupported, whole.total().unsupported);
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
  // A stride past CONV's 4-bit field (padding past LOAD's fields is filled, kernels and dilations
  // past CONV's are split, so none of them serves as the example any more).
  OpCase c;
  c.kind = CaseKind::Conv;
  c.height = 33;
  c.width = 33;
  c.stride = {16, 16};
  CheckOptions check;
  check.hw = preset("npu-s");
  const CaseResult result = checkCase(c, check);
  EXPECT_EQ(result.verdict, Verdict::Unsupported);
  EXPECT_EQ(result.message, "layer 'conv': stride must be at most 15 on the NPU");
}

TEST(OpcheckCase, InvalidCaseIsAnError) {
  OpCase c;
  c.kind = CaseKind::Conv;
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
  c.kind = CaseKind::Lut;
  CheckOptions check;
  check.hw = preset("npu-l");
  check.engine = Engine::Rtl;
  try {
    checkCase(c, check);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "the program targets hardware config 'npu-l', but the RTL model was built for "
                 "'npu-s'");
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

namespace npu::bench {
namespace {

struct MatMulRun {
  std::string config;
  Engine engine;
  std::uint64_t count;
};

class OpcheckMatMulTest : public ::testing::TestWithParam<MatMulRun> {};

TEST_P(OpcheckMatMulTest, SweepIsBitExact) {
  // Two runtime operands batched over heads, as attention's Q x K^T and P x V: every case must
  // pass on every engine (none is refused), reaching both layouts of b, a b the program produced,
  // and (on npu-tiny) row, column and inner-dimension blocks.
  const MatMulRun run = GetParam();
  CheckOptions check;
  check.hw = run.config == "npu-tiny" ? tiny() : preset(run.config);
  check.engine = run.engine;
  std::uint64_t transposed = 0, produced = 0, features = 0;
  for (std::uint64_t i = 0; i < run.count; ++i) {
    const OpCase c = sweepCase(OpFamily::MatMul, 16, i);
    ASSERT_EQ(c.kind, CaseKind::MatMul);
    const CaseResult result = checkCase(c, check);
    EXPECT_EQ(result.verdict, Verdict::Pass)
        << describeCase(c) << ": " << result.kind << ": " << result.message;
    transposed += c.transposedB ? 1 : 0;
    produced += c.producedB ? 1 : 0;
    features |= result.features;
  }
  EXPECT_GT(transposed, 0U);
  EXPECT_LT(transposed, run.count);
  EXPECT_GT(produced, 0U);
  EXPECT_LT(produced, run.count);
  EXPECT_NE(features & kFeatureTiled, 0U);
}

class OpcheckReduceTest : public ::testing::TestWithParam<MatMulRun> {};

TEST_P(OpcheckReduceTest, SweepIsBitExact) {
  // Row max (a POOL over each row) and row sum (a CONV with ones) along the last axis: every
  // case passes on every engine; both kinds are drawn.
  const MatMulRun run = GetParam();
  CheckOptions check;
  check.hw = run.config == "npu-tiny" ? tiny() : preset(run.config);
  check.engine = run.engine;
  std::uint64_t maxes = 0;
  for (std::uint64_t i = 0; i < run.count; ++i) {
    GeneratorOptions generator;
    generator.fieldLimits = false;
    const OpCase c = sweepCase(OpFamily::Reduce, 17, i, generator);
    const CaseResult result = checkCase(c, check);
    EXPECT_EQ(result.verdict, Verdict::Pass)
        << describeCase(c) << ": " << result.kind << ": " << result.message;
    maxes += c.kind == CaseKind::ReduceMax ? 1 : 0;
  }
  EXPECT_GT(maxes, 0U);
  EXPECT_LT(maxes, run.count);
}

INSTANTIATE_TEST_SUITE_P(EveryEngine, OpcheckReduceTest,
                         ::testing::Values(MatMulRun{"npu-s", Engine::Functional, 80},
                                           MatMulRun{"npu-s", Engine::Timed, 60},
                                           MatMulRun{"npu-s", Engine::Rtl, 16},
                                           MatMulRun{"npu-tiny", Engine::Functional, 60},
                                           MatMulRun{"npu-tiny", Engine::Timed, 40}),
                         engineRunName<MatMulRun>);

class OpcheckResizeTest : public ::testing::TestWithParam<MatMulRun> {};

TEST_P(OpcheckResizeTest, SweepIsBitExact) {
  // Linear resize along rows or columns (each half of a bilinear Resize): two-tap depthwise
  // CONVs scattered by STORE strides. Every case passes on every engine, the RTL included;
  // both axes, several transforms, upsampling and downscaling are drawn.
  const MatMulRun run = GetParam();
  CheckOptions check;
  check.hw = run.config == "npu-tiny" ? tiny() : preset(run.config);
  check.engine = run.engine;
  std::uint64_t rows = 0;
  std::uint64_t down = 0;
  std::set<golden::CoordinateTransform> transforms;
  for (std::uint64_t i = 0; i < run.count; ++i) {
    GeneratorOptions generator;
    generator.fieldLimits = false;
    const OpCase c = sweepCase(OpFamily::Resize, 18, i, generator);
    ASSERT_EQ(c.kind, CaseKind::Resize);
    const CaseResult result = checkCase(c, check);
    EXPECT_EQ(result.verdict, Verdict::Pass)
        << describeCase(c) << ": " << result.kind << ": " << result.message;
    rows += c.resizeAxis == 1 ? 1 : 0;
    down += c.resizeLength < (c.resizeAxis == 1 ? c.height : c.width) ? 1 : 0;
    transforms.insert(c.transform);
  }
  EXPECT_GT(rows, 0U);
  EXPECT_LT(rows, run.count);
  EXPECT_GT(down, 0U);
  EXPECT_GE(transforms.size(), 3U);
}

INSTANTIATE_TEST_SUITE_P(EveryEngine, OpcheckResizeTest,
                         ::testing::Values(MatMulRun{"npu-s", Engine::Functional, 120},
                                           MatMulRun{"npu-s", Engine::Timed, 60},
                                           MatMulRun{"npu-s", Engine::Rtl, 16},
                                           MatMulRun{"npu-tiny", Engine::Functional, 60},
                                           MatMulRun{"npu-tiny", Engine::Timed, 30}),
                         engineRunName<MatMulRun>);

class OpcheckNormTest : public ::testing::TestWithParam<MatMulRun> {};

TEST_P(OpcheckNormTest, SweepIsBitExact) {
  // NORM rows (softmax and LayerNorm along the last axis): every case passes, except one whose
  // row does not fit an input or output SRAM half, or a LayerNorm whose per-position records do
  // not fit a parameter SRAM half (8 + 12 * L bytes): those are refused as unsupported and say
  // so. Both kinds, long rows and many rows are drawn.
  const MatMulRun run = GetParam();
  CheckOptions check;
  check.hw = run.config == "npu-tiny" ? tiny() : preset(run.config);
  check.engine = run.engine;
  std::set<CaseKind> kinds;
  std::uint64_t longRows = 0;
  std::uint64_t manyRows = 0;
  for (std::uint64_t i = 0; i < run.count; ++i) {
    const OpCase c = sweepCase(OpFamily::Norm, 23, i, GeneratorOptions{});
    ASSERT_TRUE(c.kind == CaseKind::Softmax || isAffineNorm(c.kind));
    const CaseResult result = checkCase(c, check);
    const bool rowTooBig =
        c.channels > check.hw.inputSramBytes / 2 || c.channels > check.hw.outputSramBytes / 2 ||
        (isAffineNorm(c.kind) && 8 + 12 * c.channels > check.hw.parameterSramBytes / 2);
    if (rowTooBig) {
      EXPECT_EQ(result.verdict, Verdict::Unsupported) << describeCase(c);
      EXPECT_NE(result.message.find("SRAM too small for"), std::string::npos) << result.message;
      continue;
    }
    EXPECT_EQ(result.verdict, Verdict::Pass)
        << describeCase(c) << ": " << result.kind << ": " << result.message;
    kinds.insert(c.kind);
    longRows += c.channels > 255 ? 1 : 0;
    manyRows += c.height * c.width > 100 ? 1 : 0;
  }
  EXPECT_EQ(kinds.size(), 3U);
  EXPECT_GT(longRows, 0U);
  EXPECT_GT(manyRows, 0U);
}

INSTANTIATE_TEST_SUITE_P(EveryEngine, OpcheckNormTest,
                         ::testing::Values(MatMulRun{"npu-s", Engine::Functional, 160},
                                           MatMulRun{"npu-s", Engine::Timed, 80},
                                           MatMulRun{"npu-s", Engine::Rtl, 40},
                                           MatMulRun{"npu-tiny", Engine::Functional, 80}),
                         engineRunName<MatMulRun>);

TEST(OpcheckMatMul, LongInnerDimensionSplitsOnTinySrams) {
  // K = 1500 is past npu-tiny's 1 KiB weight half: the CONVs accumulate over inner slices
  // (acc_init / finalize) in both layouts of b, on both simulators.
  for (const Engine engine : {Engine::Functional, Engine::Timed}) {
    for (const bool transposed : {false, true}) {
      OpCase c;
      c.kind = CaseKind::MatMul;
      c.seed = 99;
      c.height = 2;
      c.width = 9;
      c.channels = 1500;
      c.outChannels = 5;
      c.inputZeroPoint = -3;
      c.transposedB = transposed;
      c.producedB = true;
      c.requant = {1 << 30, -12};
      CheckOptions check;
      check.hw = tiny();
      check.engine = engine;
      const CaseResult result = checkCase(c, check);
      EXPECT_EQ(result.verdict, Verdict::Pass) << describeCase(c) << ": " << result.message;
      EXPECT_NE(result.features & kFeatureChannelSplit, 0U) << describeCase(c);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryEngine, OpcheckMatMulTest,
                         ::testing::Values(MatMulRun{"npu-s", Engine::Functional, 80},
                                           MatMulRun{"npu-s", Engine::Timed, 60},
                                           MatMulRun{"npu-s", Engine::Rtl, 15},
                                           MatMulRun{"npu-l", Engine::Functional, 40},
                                           MatMulRun{"npu-tiny", Engine::Functional, 80},
                                           MatMulRun{"npu-tiny", Engine::Timed, 40}),
                         engineRunName<MatMulRun>);

TEST(OpcheckMatMul, FindsAndShrinksAClipBugInTheMatMulsConv) {
  // The matmul runs on CONV, so a planted CONV clip bug must show in its sweep, and a failing
  // case shrinks to a small matmul that still fails the same way.
  CheckOptions check;
  check.hw = preset("npu-s");
  check.bug = InjectedBug::ConvClipHigh;
  std::optional<std::pair<OpCase, CaseResult>> failing;
  for (std::uint64_t i = 0; i < 60 && !failing; ++i) {
    const OpCase c = sweepCase(OpFamily::MatMul, 16, i);
    const CaseResult result = checkCase(c, check);
    if (result.verdict == Verdict::Fail) {
      failing.emplace(c, result);
    }
  }
  ASSERT_TRUE(failing) << "the planted bug went unnoticed";
  EXPECT_EQ(failing->second.kind, "mismatch");
  const ShrinkResult shrunk = shrinkCase(failing->first, failing->second, check, 400);
  EXPECT_EQ(shrunk.result.verdict, Verdict::Fail);
  EXPECT_EQ(shrunk.minimal.kind, CaseKind::MatMul);
  EXPECT_LE(caseWork(shrunk.minimal), caseWork(failing->first));
}

}  // namespace
}  // namespace npu::bench
