// Matmul cases whose operands are token rows (attention's head split and merge as addressing):
// the graph and geometry a case builds, its golden bytes against planes gathered by hand, and
// the sweep of such cases on every engine.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine_run_name.h"
#include "npu/golden/int8_matmul.h"
#include "npu/subnet_bench/op_sweep.h"
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

constexpr std::int64_t kHeads = 3;
constexpr std::int64_t kTokens = 5;
constexpr std::int64_t kHeadDim = 4;
constexpr std::int64_t kModel = kHeads * kHeadDim;  // D

/// Self-attention of 5 tokens, 3 heads of 4: q, k and v packed in fused qkv rows [T][3D].
OpCase attentionCase(bool scores) {
  OpCase c;
  c.kind = CaseKind::MatMul;
  c.seed = 4242;
  c.height = kHeads;
  c.width = kTokens;
  c.inputZeroPoint = -7;
  c.requant = {1 << 30, -5};
  c.outputZeroPoint = 3;
  if (scores) {  // Q x K^T: scores [heads][T][T]
    c.channels = kHeadDim;
    c.outChannels = kTokens;
    c.transposedB = true;
    c.tokensA = TokenView{3 * kModel, 0, kHeadDim};
    c.tokensB = TokenView{3 * kModel, kModel, kHeadDim};
  } else {  // P x V: merged rows [T][D]
    c.channels = kTokens;
    c.outChannels = kHeadDim;
    c.tokensB = TokenView{3 * kModel, 2 * kModel, kHeadDim};
    c.mergedY = true;
  }
  return c;
}

TEST(OpcheckTokenRows, QueryTimesKeyReadsHeadsFromFusedRows) {
  const OpCase c = attentionCase(true);
  ASSERT_NO_THROW(validateCase(c));
  const CaseGraph built = buildCaseGraph(c);
  ASSERT_EQ(built.inputs.size(), 2U);
  const std::vector<std::int64_t> qkv{1, kTokens, 1, 3 * kModel};
  EXPECT_EQ(built.inputs[0].shape, qkv);
  EXPECT_EQ(built.inputs[1].shape, qkv);
  EXPECT_EQ(caseOutputShape(c), (std::vector<std::int64_t>{1, kHeads, kTokens, kTokens}));
  const auto& op = std::get<compiler::QMatMul>(built.graph.ops.at(0));
  ASSERT_TRUE(op.geometry);
  EXPECT_EQ(op.geometry->a, (compiler::MatrixView{0, kHeadDim, 3 * kModel}));
  EXPECT_EQ(op.geometry->b, (compiler::MatrixView{kModel, kHeadDim, 3 * kModel}));
  EXPECT_EQ(op.geometry->y, (compiler::MatrixView{0, kTokens * kTokens, kTokens}));
  EXPECT_TRUE(op.geometry->bRowsAreN);
  EXPECT_EQ(describeCase(c),
            "matmul 3x5x4 -> 3x5x5 (b NK) a in rows of 36 at 0 step 4 b in rows of 36 at 12 step 4"
            " zp -7->3 M 1073741824*2^-5 clip [-128,127] data uniform seed 4242");

  // The golden output equals the planar matmul of q and k gathered here by hand.
  golden::Int8Tensor q{{1, kHeads, kTokens, kHeadDim}, {}};
  golden::Int8Tensor k{{1, kHeads, kTokens, kHeadDim}, {}};
  for (std::int64_t h = 0; h < kHeads; ++h) {
    for (std::int64_t t = 0; t < kTokens; ++t) {
      for (std::int64_t d = 0; d < kHeadDim; ++d) {
        const auto at = static_cast<std::size_t>(t * 3 * kModel + h * kHeadDim + d);
        q.data.push_back(built.inputs[0].data[at]);
        k.data.push_back(built.inputs[1].data[at + kModel]);
      }
    }
  }
  const auto& matmul = std::get<compiler::QMatMul>(built.graph.ops[0]);
  const golden::Int8Tensor expected = golden::matMulInt8(q, k, matmul.params);
  const auto values = compiler::runQuantizedGraphGolden(built.graph, built.inputs);
  EXPECT_EQ(values[built.graph.outputs[0]].data, expected.data);
}

TEST(OpcheckTokenRows, ProbabilitiesTimesValueMergeHeadsIntoTokenRows) {
  const OpCase c = attentionCase(false);
  ASSERT_NO_THROW(validateCase(c));
  const CaseGraph built = buildCaseGraph(c);
  EXPECT_EQ(built.inputs[0].shape, (std::vector<std::int64_t>{1, kHeads, kTokens, kTokens}));
  EXPECT_EQ(built.inputs[1].shape, (std::vector<std::int64_t>{1, kTokens, 1, 3 * kModel}));
  EXPECT_EQ(caseOutputShape(c), (std::vector<std::int64_t>{1, kTokens, 1, kModel}));
  const auto& op = std::get<compiler::QMatMul>(built.graph.ops.at(0));
  ASSERT_TRUE(op.geometry);
  EXPECT_EQ(op.geometry->a, (compiler::MatrixView{0, kTokens * kTokens, kTokens}));
  EXPECT_EQ(op.geometry->b, (compiler::MatrixView{2 * kModel, kHeadDim, 3 * kModel}));
  EXPECT_EQ(op.geometry->y, (compiler::MatrixView{0, kHeadDim, kModel}));

  // Planes of v gathered by hand, the planar matmul, its heads merged by hand.
  golden::Int8Tensor v{{1, kHeads, kTokens, kHeadDim}, {}};
  for (std::int64_t h = 0; h < kHeads; ++h) {
    for (std::int64_t t = 0; t < kTokens; ++t) {
      for (std::int64_t d = 0; d < kHeadDim; ++d) {
        v.data.push_back(
            built.inputs[1]
                .data[static_cast<std::size_t>(t * 3 * kModel + 2 * kModel + h * kHeadDim + d)]);
      }
    }
  }
  const golden::Int8Tensor planes = golden::matMulInt8(built.inputs[0], v, op.params);
  std::vector<std::int8_t> merged(static_cast<std::size_t>(kTokens * kModel));
  for (std::int64_t h = 0; h < kHeads; ++h) {
    for (std::int64_t t = 0; t < kTokens; ++t) {
      for (std::int64_t d = 0; d < kHeadDim; ++d) {
        merged[static_cast<std::size_t>(t * kModel + h * kHeadDim + d)] =
            planes.data[static_cast<std::size_t>((h * kTokens + t) * kHeadDim + d)];
      }
    }
  }
  const auto values = compiler::runQuantizedGraphGolden(built.graph, built.inputs);
  EXPECT_EQ(values[built.graph.outputs[0]].data, merged);
}

TEST(OpcheckTokenRows, QueryAndKeyFromOneFusedTensor) {
  // Self-attention as it runs: q and k are views of one qkv tensor, a graph input or the one a
  // LUT op wrote.
  OpCase c = attentionCase(true);
  c.bFromA = true;
  ASSERT_NO_THROW(validateCase(c));
  const CaseGraph input = buildCaseGraph(c);
  ASSERT_EQ(input.inputs.size(), 1U);
  EXPECT_EQ(input.inputs[0].shape, (std::vector<std::int64_t>{1, kTokens, 1, 3 * kModel}));
  const auto& op = std::get<compiler::QMatMul>(input.graph.ops.at(0));
  EXPECT_EQ(op.a, input.graph.inputs[0]);
  EXPECT_EQ(op.b, op.a);
  c.producedB = true;
  const CaseGraph produced = buildCaseGraph(c);
  ASSERT_EQ(produced.graph.ops.size(), 2U);
  const auto& lut = std::get<compiler::QLut>(produced.graph.ops[0]);
  const auto& matmul = std::get<compiler::QMatMul>(produced.graph.ops[1]);
  EXPECT_EQ(matmul.a, lut.output);
  EXPECT_EQ(matmul.b, lut.output);

  // b_from_a needs two views of one tensor.
  c.tokensB->rowWidth += 1;
  try {
    validateCase(c);
    ADD_FAILURE() << "accepted " << describeCase(c);
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "case: b_from_a needs a_view and b_view in token rows of one width and as many "
                 "rows of b (5) as of a (5)");
  }
}

TEST(OpcheckTokenRows, AttentionCasesAreBitExactOnEveryEngine) {
  for (const int form : {0, 1, 2}) {
    for (const bool produced : {false, true}) {
      OpCase c = attentionCase(form != 2);
      c.bFromA = form == 1;
      c.producedB = produced;
      for (const Engine engine : {Engine::Functional, Engine::Timed, Engine::Rtl}) {
        CheckOptions check;
        check.hw = preset("npu-s");
        check.engine = engine;
        const CaseResult result = checkCase(c, check);
        EXPECT_EQ(result.verdict, Verdict::Pass) << engineName(engine) << ": " << describeCase(c)
                                                 << ": " << result.kind << ": " << result.message;
      }
    }
  }
}

TEST(OpcheckTokenRows, ViewsOutsideTheirRowsAreErrorsNamingTheKey) {
  OpCase c = attentionCase(true);
  c.tokensB->rowWidth = 2 * kModel - 1;  // the last head of k ends one column past the row
  try {
    validateCase(c);
    ADD_FAILURE() << "accepted " << describeCase(c);
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "case: b_view head 2 reads columns [20, 24), past the token row's 23 columns");
  }
  c = attentionCase(true);
  c.tokensA->columnOffset = -1;
  try {
    validateCase(c);
    ADD_FAILURE() << "accepted " << describeCase(c);
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "case: a_view column offset -1 is outside [0, 65535]");
  }
}

struct TokenRowsRun {
  std::string config;
  Engine engine;
  std::uint64_t count;  ///< token-row cases checked (the sweep's planar cases are skipped)
};

class OpcheckTokenRowsTest : public ::testing::TestWithParam<TokenRowsRun> {};

TEST_P(OpcheckTokenRowsTest, SweepIsBitExact) {
  // The matmul family's token-row cases: every one passes, none refused; reached are the
  // attention forms (q and k from fused qkv rows, one tensor or two; P x V merged into token
  // rows), a and b each in token rows and as planes, both layouts of b, shared (step 0) and
  // spaced heads, and 5-8 heads.
  const TokenRowsRun run = GetParam();
  CheckOptions check;
  check.hw = run.config == "npu-tiny" ? tiny() : preset(run.config);
  check.engine = run.engine;
  std::uint64_t checked = 0, tokensA = 0, tokensB = 0, merged = 0, transposed = 0;
  std::uint64_t shared = 0, spaced = 0, manyHeads = 0, fromA = 0;
  for (std::uint64_t i = 0; checked < run.count; ++i) {
    ASSERT_LT(i, 20 * run.count) << "too few token-row cases drawn";
    const OpCase c = sweepCase(OpFamily::MatMul, 26, i);
    if (!isStridedMatMul(c)) {
      continue;
    }
    ++checked;
    const CaseResult result = checkCase(c, check);
    EXPECT_EQ(result.verdict, Verdict::Pass)
        << describeCase(c) << ": " << result.kind << ": " << result.message;
    tokensA += c.tokensA ? 1 : 0;
    tokensB += c.tokensB ? 1 : 0;
    merged += c.mergedY ? 1 : 0;
    transposed += c.transposedB ? 1 : 0;
    const std::int64_t colsB = c.transposedB ? c.channels : c.outChannels;
    for (const auto& [t, cols] : {std::pair{c.tokensA, c.channels}, std::pair{c.tokensB, colsB}}) {
      shared += t && t->headStep == 0 && c.height > 1 ? 1 : 0;
      spaced += t && t->headStep > cols && c.height > 1 ? 1 : 0;
    }
    manyHeads += c.height > 4 ? 1 : 0;
    fromA += c.bFromA ? 1 : 0;
  }
  EXPECT_GT(tokensA, 0U);
  EXPECT_LT(tokensA, run.count);
  EXPECT_GT(tokensB, 0U);
  EXPECT_LT(tokensB, run.count);
  EXPECT_GT(merged, 0U);
  EXPECT_LT(merged, run.count);
  EXPECT_GT(transposed, 0U);
  EXPECT_LT(transposed, run.count);
  EXPECT_GT(manyHeads, 0U);
  if (run.count >= 40) {
    EXPECT_GT(shared, 0U);
    EXPECT_GT(spaced, 0U);
    EXPECT_GT(fromA, 0U);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryEngine, OpcheckTokenRowsTest,
                         ::testing::Values(TokenRowsRun{"npu-s", Engine::Functional, 100},
                                           TokenRowsRun{"npu-s", Engine::Timed, 60},
                                           TokenRowsRun{"npu-s", Engine::Rtl, 16},
                                           TokenRowsRun{"npu-l", Engine::Functional, 40},
                                           TokenRowsRun{"npu-tiny", Engine::Functional, 60},
                                           TokenRowsRun{"npu-tiny", Engine::Timed, 30}),
                         engineRunName<TokenRowsRun>);

TEST(OpcheckTokenRows, AFailingCaseShrinksThroughValidViews) {
  // A planted CONV clip bug in a token-row case: shrinking keeps it failing the same way, and
  // every step it takes (planes for the operands the bug does not need, rows no wider than
  // their heads) is a valid case.
  CheckOptions check;
  check.hw = preset("npu-s");
  check.bug = InjectedBug::ConvClipHigh;
  std::optional<std::pair<OpCase, CaseResult>> failing;
  for (std::uint64_t i = 0; i < 200 && !failing; ++i) {
    const OpCase c = sweepCase(OpFamily::MatMul, 26, i);
    if (!isStridedMatMul(c)) {
      continue;
    }
    const CaseResult result = checkCase(c, check);
    if (result.verdict == Verdict::Fail) {
      failing.emplace(c, result);
    }
  }
  ASSERT_TRUE(failing) << "the planted bug went unnoticed";
  const ShrinkResult shrunk = shrinkCase(failing->first, failing->second, check, 400);
  EXPECT_EQ(shrunk.result.verdict, Verdict::Fail);
  EXPECT_EQ(shrunk.minimal.kind, CaseKind::MatMul);
  EXPECT_NO_THROW(validateCase(shrunk.minimal));
  EXPECT_LE(caseWork(shrunk.minimal), caseWork(failing->first));
}

}  // namespace
}  // namespace npu::bench
