// Repro files: every kind round-trips, bad files fail with the exact message, known codegen
// failures still fail and regression repros pass.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <string>

#include "npu/subnet_bench/op_generator.h"
#include "npu/subnet_bench/repro.h"
#include "npu/support/error.h"

namespace npu::bench {
namespace {

const std::filesystem::path kData = std::filesystem::path(NPU_SOURCE_DIR) / "tests/data/opcheck";

TEST(Repro, EveryKindRoundTrips) {
  // Every NPU op of the registry: an op whose keys the repro file forgets fails here.
  for (const compiler::NpuOpInfo& info : compiler::kNpuOps) {
    const CaseKind kind = info.op;
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      Repro repro;
      repro.opCase = randomCase(kind, seed);
      repro.engine = seed % 2 == 0 ? Engine::Timed : Engine::Functional;
      repro.bug = seed % 3 == 0 ? InjectedBug::ConvClipHigh : InjectedBug::None;
      repro.hw = seed % 4 == 0 ? "some dir/npu \"x\".yaml" : "npu-s";
      repro.failure = "mismatch: a\nmultiline message";
      const Repro back = parseRepro(reproToYaml(repro), "round-trip");
      EXPECT_EQ(back.opCase, repro.opCase) << reproToYaml(repro);
      EXPECT_EQ(back.engine, repro.engine);
      EXPECT_EQ(back.bug, repro.bug);
      EXPECT_EQ(back.hw, repro.hw);
    }
  }
}

TEST(Repro, NewFormsRoundTripWithTheirKeys) {
  // A per-channel second operand, a channel slice and a channel shuffle: each written with the
  // keys of its kind only, and read back to the same case.
  std::uint64_t perChannel = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    for (const CaseKind kind : {CaseKind::Add, CaseKind::Sub, CaseKind::Mul}) {
      Repro repro;
      repro.opCase = randomCase(kind, seed);
      perChannel += repro.opCase.perChannelB ? 1 : 0;
      const std::string text = reproToYaml(repro);
      EXPECT_NE(text.find(fmt::format("  input_b_per_channel: {}\n", repro.opCase.perChannelB)),
                std::string::npos)
          << text;
      EXPECT_EQ(parseRepro(text, "round-trip").opCase, repro.opCase) << text;
    }
  }
  EXPECT_GT(perChannel, 5U);

  Repro slice;
  slice.opCase.kind = CaseKind::Slice;
  slice.opCase.height = 2;
  slice.opCase.width = 3;
  slice.opCase.channels = 10;
  slice.opCase.channelBegin = 4;
  slice.opCase.sliceChannels = 5;
  slice.opCase.sliceRows = 2;
  slice.opCase.sliceCols = 3;
  const std::string sliceText = reproToYaml(slice);
  EXPECT_NE(sliceText.find("  input: [2, 3, 10]\n  input_zero_point: 0\n  channel_begin: 4\n"
                           "  slice_channels: 5\n  row_begin: 0\n  row_step: 1\n  slice_rows: 2\n"
                           "  col_begin: 0\n  col_step: 1\n  slice_cols: 3\n"),
            std::string::npos)
      << sliceText;
  EXPECT_EQ(sliceText.find("groups"), std::string::npos) << sliceText;
  EXPECT_EQ(parseRepro(sliceText, "slice").opCase, slice.opCase);

  // A strided window: rows 1 and 4 of 6, columns 0, 2 and 4 of 5.
  Repro strided = slice;
  strided.opCase.height = 6;
  strided.opCase.width = 5;
  strided.opCase.rowBegin = 1;
  strided.opCase.rowStep = 3;
  strided.opCase.sliceRows = 2;
  strided.opCase.colStep = 2;
  strided.opCase.sliceCols = 3;
  const std::string stridedText = reproToYaml(strided);
  EXPECT_NE(stridedText.find("  row_begin: 1\n  row_step: 3\n  slice_rows: 2\n  col_begin: 0\n"
                             "  col_step: 2\n  slice_cols: 3\n"),
            std::string::npos)
      << stridedText;
  EXPECT_EQ(parseRepro(stridedText, "strided").opCase, strided.opCase);

  Repro shuffle;
  shuffle.opCase.kind = CaseKind::Shuffle;
  shuffle.opCase.channels = 12;
  shuffle.opCase.groups = 4;
  const std::string shuffleText = reproToYaml(shuffle);
  EXPECT_NE(shuffleText.find("  groups: 4\n"), std::string::npos) << shuffleText;
  EXPECT_EQ(shuffleText.find("channel_begin"), std::string::npos) << shuffleText;
  EXPECT_EQ(shuffleText.find("row_"), std::string::npos) << shuffleText;
  EXPECT_EQ(shuffleText.find("slice_rows"), std::string::npos) << shuffleText;
  EXPECT_EQ(parseRepro(shuffleText, "shuffle").opCase, shuffle.opCase);

  // Omitted, a shuffle's groups are 2 (the smallest shuffle).
  const Repro two = parseRepro("opcheck_repro: 1\ncase:\n  op: shuffle\n  input: [1, 1, 6]\n", "r");
  EXPECT_EQ(two.opCase.groups, 2);
}

TEST(Repro, OmittedKeysTakeTheirDefaults) {
  const Repro repro = parseRepro("opcheck_repro: 1\ncase:\n  op: lut\n  input: [2, 3, 4]\n", "r");
  EXPECT_EQ(repro.hw, "npu-s");
  EXPECT_EQ(repro.engine, Engine::Functional);
  EXPECT_EQ(repro.bug, InjectedBug::None);
  EXPECT_EQ(repro.opCase.kind, CaseKind::Lut);
  EXPECT_EQ(repro.opCase.channels, 4);
  EXPECT_EQ(repro.opCase.seed, 0U);
}

TEST(Repro, SliceWithoutCountsKeepsRowsAndColumnsToTheEnd) {
  // Files written before slices had rows and columns read as the channel slices they were.
  const Repro old = parseRepro(
      "opcheck_repro: 1\ncase:\n  op: slice\n  input: [3, 5, 8]\n  channel_begin: 2\n"
      "  slice_channels: 4\n",
      "r");
  EXPECT_EQ(old.opCase.rowBegin, 0);
  EXPECT_EQ(old.opCase.rowStep, 1);
  EXPECT_EQ(old.opCase.sliceRows, 3);
  EXPECT_EQ(old.opCase.colBegin, 0);
  EXPECT_EQ(old.opCase.colStep, 1);
  EXPECT_EQ(old.opCase.sliceCols, 5);
  EXPECT_EQ(caseOutputShape(old.opCase), (std::vector<std::int64_t>{1, 3, 5, 4}));
  const Repro regression = readRepro(kData / "regressions/slice-last-channel-of-4097.yaml");
  EXPECT_EQ(caseOutputShape(regression.opCase), (std::vector<std::int64_t>{1, 3, 5, 1}));

  // With a begin and step but no count: every row from the begin at that step (rows 1, 3, 5 of
  // 6); a count given is kept (column 2 only).
  const Repro phase = parseRepro(
      "opcheck_repro: 1\ncase:\n  op: slice\n  input: [6, 4, 1]\n  row_begin: 1\n"
      "  row_step: 2\n  col_begin: 2\n  slice_cols: 1\n",
      "r");
  EXPECT_EQ(phase.opCase.sliceRows, 3);
  EXPECT_EQ(phase.opCase.sliceCols, 1);
  EXPECT_EQ(caseOutputShape(phase.opCase), (std::vector<std::int64_t>{1, 3, 1, 1}));
}

struct BadRepro {
  const char* name;  ///< the test's name: stable and readable (the default would be an index)
  const char* text;
  const char* message;
};

/// How gtest and ctest show a case: its expected message (the default prints the pointers' bytes,
/// which change from run to run and end up in the ctest names).
void PrintTo(const BadRepro& repro, std::ostream* os) {
  *os << repro.message;
}

class BadReproTest : public ::testing::TestWithParam<BadRepro> {};

TEST_P(BadReproTest, FailsWithTheExactMessage) {
  try {
    parseRepro(GetParam().text, "bad.yaml");
    FAIL() << "expected an error for:\n" << GetParam().text;
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), GetParam().message);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Messages, BadReproTest,
    ::testing::Values(
        BadRepro{"plain_text", "just text",
                 "bad.yaml:1: not an opcheck repro file (no 'opcheck_repro: 1')"},
        BadRepro{"no_repro_marker", "hw: npu-s\n",
                 "bad.yaml:1: not an opcheck repro file (no 'opcheck_repro: 1')"},
        BadRepro{"unsupported_version", "opcheck_repro: 2\ncase: {op: lut}\n",
                 "bad.yaml:1: unsupported opcheck_repro version 2 (this build reads 1)"},
        BadRepro{"unknown_top_level_key", "opcheck_repro: 1\nhardware: npu-s\n",
                 "bad.yaml:2: unknown key 'hardware' in a repro (keys: opcheck_repro, hw, mode, "
                 "inject_bug, case)"},
        BadRepro{"missing_case", "opcheck_repro: 1\nhw: npu-s\n",
                 "bad.yaml:1: missing key 'case' in a repro"},
        BadRepro{"unknown_mode", "opcheck_repro: 1\nmode: fast\ncase: {op: lut}\n",
                 "bad.yaml:2: 'mode': expected functional, timed or rtl, got 'fast'"},
        BadRepro{"unknown_injected_bug", "opcheck_repro: 1\ninject_bug: typo\ncase: {op: lut}\n",
                 "bad.yaml:2: 'inject_bug': expected an injected bug (none, conv-bias-bit, "
                 "conv-clip-hi, eltwise-zero-point, expected-off-by-one), got 'typo'"},
        BadRepro{"case_not_a_map", "opcheck_repro: 1\ncase: [1, 2]\n",
                 "bad.yaml:2: 'case' must be a mapping"},
        BadRepro{"case_without_op", "opcheck_repro: 1\ncase:\n  input: [1, 1, 1]\n",
                 "bad.yaml:3: missing key 'op' in the case"},
        BadRepro{
            "unknown_op", "opcheck_repro: 1\ncase:\n  op: deconv\n",
            "bad.yaml:3: 'case.op': expected an op (conv, add, mul, sub, maxpool, "
            "avgpool, globalavgpool, lut, concat, upsample, slice, shuffle, matmul, reducemax, "
            "reducesum, resize, softmax, layernorm, rmsnorm), got 'deconv'"},
        BadRepro{"key_not_for_op", "opcheck_repro: 1\ncase:\n  op: maxpool\n  dilation: [2, 2]\n",
                 "bad.yaml:4: key 'dilation' does not apply to op 'maxpool'"},
        BadRepro{"unknown_case_key", "opcheck_repro: 1\ncase:\n  op: conv\n  kernal: [3, 3]\n",
                 "bad.yaml:4: unknown case key 'kernal'"},
        BadRepro{"kernel_wrong_length", "opcheck_repro: 1\ncase:\n  op: conv\n  kernel: [3]\n",
                 "bad.yaml:4: 'case.kernel' must be a list of 2 integers"},
        BadRepro{"input_not_integers", "opcheck_repro: 1\ncase:\n  op: conv\n  input: [a, 2, 3]\n",
                 "bad.yaml:4: 'case.input[0]': expected an integer, got 'a'"},
        BadRepro{"requant_out_of_range",
                 "opcheck_repro: 1\ncase:\n  op: conv\n  requant: [-1, 0]\n",
                 "bad.yaml:4: 'case.requant[0]': -1 is out of range [0, 2147483647]"},
        BadRepro{"lut_not_bool", "opcheck_repro: 1\ncase:\n  op: add\n  lut: maybe\n",
                 "bad.yaml:4: 'case.lut': expected true or false, got 'maybe'"},
        BadRepro{"empty_clip", "opcheck_repro: 1\ncase:\n  op: conv\n  clip: [10, 5]\n",
                 "bad.yaml:2: case: clip [10, 5] is empty"},
        BadRepro{"groups_not_dividing",
                 "opcheck_repro: 1\ncase:\n  op: conv\n  input: [4, 4, 4]\n  out_channels: 6\n"
                 "  groups: 4\n",
                 "bad.yaml:2: case: groups 4 must divide both the input channels 4 and the output "
                 "channels 6"},
        BadRepro{
            "window_larger_than_input",
            "opcheck_repro: 1\ncase:\n  op: maxpool\n  input: [3, 3, 1]\n  kernel: [5, 5]\n",
            "bad.yaml:2: case: the 5x5 window (dilation 1x1) does not fit the 3x3 input padded "
            "by 0,0,0,0"},
        BadRepro{"height_out_of_range", "opcheck_repro: 1\ncase:\n  op: lut\n  input: [0, 1, 1]\n",
                 "bad.yaml:2: case: height 0 is outside [1, 65535]"},
        BadRepro{"empty_concat_channels",
                 "opcheck_repro: 1\ncase:\n  op: concat\n  concat_channels: []\n",
                 "bad.yaml:4: 'case.concat_channels' must be a non-empty list of integers"},
        BadRepro{"per_channel_b_not_bool",
                 "opcheck_repro: 1\ncase:\n  op: mul\n  input_b_per_channel: 3\n",
                 "bad.yaml:4: 'case.input_b_per_channel': expected true or false, got '3'"},
        BadRepro{"per_channel_b_not_for_op",
                 "opcheck_repro: 1\ncase:\n  op: lut\n  input_b_per_channel: true\n",
                 "bad.yaml:4: key 'input_b_per_channel' does not apply to op 'lut'"},
        BadRepro{"slice_key_not_for_op",
                 "opcheck_repro: 1\ncase:\n  op: concat\n  channel_begin: 2\n",
                 "bad.yaml:4: key 'channel_begin' does not apply to op 'concat'"},
        BadRepro{"slice_past_the_channels",
                 "opcheck_repro: 1\ncase:\n  op: slice\n  input: [2, 2, 8]\n  channel_begin: 6\n"
                 "  slice_channels: 3\n",
                 "bad.yaml:2: case: slice channels 3 is outside [1, 2]"},
        BadRepro{"slice_begin_past_the_channels",
                 "opcheck_repro: 1\ncase:\n  op: slice\n  input: [2, 2, 8]\n  channel_begin: 8\n",
                 "bad.yaml:2: case: slice channel begin 8 is outside [0, 7]"},
        BadRepro{"slice_rows_past_the_input",
                 "opcheck_repro: 1\ncase:\n  op: slice\n  input: [5, 4, 2]\n  row_begin: 1\n"
                 "  row_step: 2\n  slice_rows: 3\n",
                 "bad.yaml:2: case: slice rows 3 is outside [1, 2]"},
        BadRepro{"slice_row_begin_past_the_input",
                 "opcheck_repro: 1\ncase:\n  op: slice\n  input: [4, 4, 2]\n  row_begin: 4\n",
                 "bad.yaml:2: case: slice row begin 4 is outside [0, 3]"},
        BadRepro{"slice_column_step_zero",
                 "opcheck_repro: 1\ncase:\n  op: slice\n  input: [4, 4, 2]\n  col_step: 0\n",
                 "bad.yaml:2: case: slice column step 0 is outside [1, 65535]"},
        BadRepro{"slice_cols_not_an_integer",
                 "opcheck_repro: 1\ncase:\n  op: slice\n  slice_cols: two\n",
                 "bad.yaml:4: 'case.slice_cols': expected an integer, got 'two'"},
        BadRepro{"slice_window_key_not_for_op",
                 "opcheck_repro: 1\ncase:\n  op: upsample\n  row_step: 2\n",
                 "bad.yaml:4: key 'row_step' does not apply to op 'upsample'"},
        BadRepro{"shuffle_groups_not_dividing",
                 "opcheck_repro: 1\ncase:\n  op: shuffle\n  input: [1, 1, 10]\n  groups: 4\n",
                 "bad.yaml:2: case: shuffle groups 4 must divide the channels 10"},
        BadRepro{"shuffle_one_group",
                 "opcheck_repro: 1\ncase:\n  op: shuffle\n  input: [1, 1, 10]\n  groups: 1\n",
                 "bad.yaml:2: case: shuffle groups 1 is outside [2, 10]"},
        BadRepro{
            "a_view_not_a_view", "opcheck_repro: 1\ncase:\n  op: matmul\n  a_view: tokens\n",
            "bad.yaml:4: 'case.a_view' must be planar or [row width, column offset, head step]"},
        BadRepro{"b_view_wrong_length",
                 "opcheck_repro: 1\ncase:\n  op: matmul\n  b_view: [12, 0]\n",
                 "bad.yaml:4: 'case.b_view' must be planar or [row width, column offset, head "
                 "step]"},
        BadRepro{"b_view_not_integers",
                 "opcheck_repro: 1\ncase:\n  op: matmul\n  b_view: [12, x, 1]\n",
                 "bad.yaml:4: 'case.b_view[1]': expected an integer, got 'x'"},
        BadRepro{"y_view_unknown", "opcheck_repro: 1\ncase:\n  op: matmul\n  y_view: interleaved\n",
                 "bad.yaml:4: 'case.y_view': expected planar or merged, got 'interleaved'"},
        BadRepro{"a_view_past_the_row",
                 "opcheck_repro: 1\ncase:\n  op: matmul\n  input: [2, 3, 4]\n  a_view: [7, 0, 4]\n",
                 "bad.yaml:2: case: a_view head 1 reads columns [4, 8), past the token row's 7 "
                 "columns"},
        BadRepro{"b_view_negative_step",
                 "opcheck_repro: 1\ncase:\n  op: matmul\n  b_view: [10, 0, -1]\n",
                 "bad.yaml:2: case: b_view head step -1 is outside [0, 65535]"},
        BadRepro{"a_view_zero_width",
                 "opcheck_repro: 1\ncase:\n  op: matmul\n  a_view: [0, 0, 1]\n",
                 "bad.yaml:2: case: a_view row width 0 is outside [1, 65535]"},
        BadRepro{"y_view_merged_too_wide",
                 "opcheck_repro: 1\ncase:\n  op: matmul\n  input: [300, 1, 1]\n"
                 "  out_channels: 300\n  y_view: merged\n",
                 "bad.yaml:2: case: y_view merged rows of 300 heads x 300 columns are wider than "
                 "65535"},
        BadRepro{"b_from_a_not_bool", "opcheck_repro: 1\ncase:\n  op: matmul\n  b_from_a: 1x\n",
                 "bad.yaml:4: 'case.b_from_a': expected true or false, got '1x'"},
        BadRepro{
            "b_from_a_of_planes", "opcheck_repro: 1\ncase:\n  op: matmul\n  b_from_a: true\n",
            "bad.yaml:2: case: b_from_a needs a_view and b_view in token rows of one width and "
            "as many rows of b (1) as of a (1)"},
        BadRepro{"view_key_not_for_op", "opcheck_repro: 1\ncase:\n  op: conv\n  a_view: planar\n",
                 "bad.yaml:4: key 'a_view' does not apply to op 'conv'"},
        BadRepro{"yaml_syntax_error", "opcheck_repro: 1\ncase: {op: [\n",
                 "bad.yaml:3:1: YAML syntax error: end of sequence flow not found"}),
    [](const ::testing::TestParamInfo<BadRepro>& info) { return std::string(info.param.name); });

/// Replays every repro in a folder.
std::vector<std::pair<std::filesystem::path, CaseResult>> replayFolder(
    const std::filesystem::path& dir) {
  std::vector<std::pair<std::filesystem::path, CaseResult>> results;
  if (!std::filesystem::is_directory(dir)) {
    return results;  // git keeps no empty folders
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") {
      continue;
    }
    const Repro repro = readRepro(entry.path());
    CheckOptions check;
    check.hw = isa::loadNpuConfig(isa::resolveConfigPath(repro.hw, dir));
    check.engine = repro.engine;
    check.bug = repro.bug;
    results.emplace_back(entry.path(), checkCase(repro.opCase, check));
  }
  return results;
}

TEST(Repro, KnownCodegenFailuresReplay) {
  // Each file is a minimal case codegen got wrong when it was found. They must replay without
  // crashing; one that now passes (or is refused with a layer error) has been fixed: say so, so
  // it gets moved to ../regressions and keeps being checked. Not a failure: the fix lands in
  // codegen, the file move follows.
  const auto results = replayFolder(kData / "known_failures");
  for (const auto& [path, result] : results) {
    EXPECT_NE(result.kind, "crash") << path.filename() << ": " << result.message;
    if (result.verdict != Verdict::Fail) {
      std::cout << "note: known failure " << path.filename()
                << " no longer fails; move it to tests/data/opcheck/regressions/\n";
    }
  }
}

TEST(Repro, RegressionsPass) {
  const auto results = replayFolder(kData / "regressions");
  EXPECT_GE(results.size(), 4U);
  for (const auto& [path, result] : results) {
    EXPECT_NE(result.verdict, Verdict::Fail) << path.filename() << ": " << result.message;
  }
}

}  // namespace
}  // namespace npu::bench

namespace npu::bench {
namespace {

TEST(Repro, NormsRoundTripWithTheirScales) {
  // Softmax, LayerNorm and RMSNorm cases carry doubles (input scale, output scale, epsilon): the
  // repro file must give back the very same values, and only the keys each kind uses.
  for (const CaseKind kind : {CaseKind::Softmax, CaseKind::LayerNorm, CaseKind::RmsNorm}) {
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      Repro repro;
      repro.opCase = randomCase(kind, seed);
      repro.hw = "npu-s";
      const std::string text = reproToYaml(repro);
      EXPECT_EQ(parseRepro(text, "round-trip").opCase, repro.opCase) << text;
      EXPECT_NE(text.find("input_scale:"), std::string::npos) << text;
      EXPECT_EQ(text.find("epsilon:") != std::string::npos, isAffineNorm(kind)) << text;
      EXPECT_EQ(text.find("requant:"), std::string::npos) << text;
    }
  }
  try {
    parseRepro("opcheck_repro: 1\ncase:\n  op: softmax\n  input_scale: -1\n", "bad.yaml");
    ADD_FAILURE() << "a negative input scale was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("input scale -1 is outside"), std::string::npos)
        << e.what();
  }
}

TEST(Repro, ReductionsRoundTrip) {
  for (const CaseKind kind : {CaseKind::ReduceMax, CaseKind::ReduceSum}) {
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      Repro repro;
      repro.opCase = randomCase(kind, seed);
      repro.hw = "npu-s";
      const std::string text = reproToYaml(repro);
      EXPECT_EQ(parseRepro(text, "round-trip").opCase, repro.opCase) << text;
      EXPECT_EQ(text.find("requant:") != std::string::npos, kind == CaseKind::ReduceSum) << text;
    }
  }
}

TEST(Repro, MatMulRoundTripsWithItsKeys) {
  std::uint64_t tokenRows = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    Repro repro;
    repro.opCase = randomCase(CaseKind::MatMul, seed);
    tokenRows += isStridedMatMul(repro.opCase) ? 1 : 0;
    repro.hw = "npu-s";
    const std::string text = reproToYaml(repro);
    EXPECT_EQ(parseRepro(text, "round-trip").opCase, repro.opCase) << text;
    EXPECT_NE(text.find("out_channels:"), std::string::npos) << text;
    EXPECT_EQ(text.find("input_b_zero_point"), std::string::npos) << text;
  }
  EXPECT_GT(tokenRows, 5U);
  EXPECT_LT(tokenRows, 35U);
  Repro repro;
  repro.opCase.kind = CaseKind::MatMul;
  repro.opCase.transposedB = true;
  repro.opCase.producedB = true;
  const std::string text = reproToYaml(repro);
  EXPECT_NE(text.find("b_transposed: true"), std::string::npos) << text;
  EXPECT_NE(text.find("b_produced: true"), std::string::npos) << text;
  EXPECT_EQ(parseRepro(text, "matmul").opCase, repro.opCase);
  try {
    (void)parseRepro("opcheck_repro: 1\ncase:\n  op: conv\n  b_produced: true\n", "bad.yaml");
    ADD_FAILURE() << "a matmul key on a conv was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "bad.yaml:4: key 'b_produced' does not apply to op 'conv'");
  }
}

TEST(Repro, TokenRowMatMulRoundTripsItsViews) {
  // 2 heads of [3, 4] x [4, 5]: a in rows of 20 from column 3, heads 6 apart; b in rows of 12
  // from column 2, packed; y merged into rows of 2 x 5.
  Repro repro;
  repro.hw = "npu-s";
  repro.engine = Engine::Rtl;
  OpCase& c = repro.opCase;
  c.kind = CaseKind::MatMul;
  c.seed = 31;
  c.height = 2;
  c.width = 3;
  c.channels = 4;
  c.outChannels = 5;
  c.producedB = true;
  c.tokensA = TokenView{20, 3, 6};
  c.tokensB = TokenView{12, 2, 5};
  c.mergedY = true;
  ASSERT_NO_THROW(validateCase(c));
  const std::string text = reproToYaml(repro);
  EXPECT_NE(text.find("  a_view: [20, 3, 6]  # token rows: width, column offset, head step\n"
                      "  b_view: [12, 2, 5]  # token rows: width, column offset, head step\n"
                      "  y_view: merged\n"),
            std::string::npos)
      << text;
  const Repro back = parseRepro(text, "token-rows");
  EXPECT_EQ(back.opCase, c) << text;
  EXPECT_EQ(back.engine, Engine::Rtl);

  // Shared heads (step 0) and b laid out [N][K] with planes elsewhere.
  c.tokensA.reset();
  c.tokensB = TokenView{9, 5, 0};
  c.transposedB = true;
  c.mergedY = false;
  const std::string shared = reproToYaml(repro);
  EXPECT_NE(shared.find("  a_view: planar\n"), std::string::npos) << shared;
  EXPECT_NE(shared.find("  b_view: [9, 5, 0]"), std::string::npos) << shared;
  EXPECT_NE(shared.find("  y_view: planar\n"), std::string::npos) << shared;
  EXPECT_EQ(parseRepro(shared, "shared").opCase, c) << shared;

  // q and k read from one tensor.
  c.tokensA = TokenView{9, 0, 0};
  c.width = 5;
  c.bFromA = true;
  ASSERT_NO_THROW(validateCase(c));
  const std::string fromA = reproToYaml(repro);
  EXPECT_NE(fromA.find("  y_view: planar\n  b_from_a: true\n"), std::string::npos) << fromA;
  EXPECT_EQ(parseRepro(fromA, "from-a").opCase, c) << fromA;

  // Files written before views read as planes.
  const Repro old = readRepro(kData / "regressions/matmul-kn-inner-split-tiny.yaml");
  EXPECT_FALSE(old.opCase.tokensA);
  EXPECT_FALSE(old.opCase.tokensB);
  EXPECT_FALSE(old.opCase.mergedY);
  EXPECT_FALSE(isStridedMatMul(old.opCase));
}

}  // namespace
}  // namespace npu::bench
