// lift-token-tensors: transformer token tensors on their image twins, attention as HeadMatMul.
#include "npu/compiler/passes/lift_token_tensors.h"

#include <gtest/gtest.h>

#include "npu/compiler/ir/dump.h"
#include "npu/compiler/ir/head_matmul.h"
#include "npu/compiler/ir/verify.h"
#include "test_support.h"

namespace npu::compiler {
namespace {

using testing::attrs;
using testing::errorOf;
using testing::GraphBuilder;
using testing::opSequence;

using Ints = std::vector<std::int64_t>;

/// Runs the pass, verifies the graph and checks the output did not change.
void liftAndCompare(Graph& graph) {
  testing::runAndCompare(graph, liftTokenTensors, 3, 1e-5);
}

std::size_t countOps(const Graph& g, OpKind op) {
  return static_cast<std::size_t>(
      std::count_if(g.nodes().begin(), g.nodes().end(), [&](const Node& n) { return n.op == op; }));
}

/// A pre-norm attention block as exporters write it: tokens from an image, a fused qkv
/// projection sliced in three, heads split by Reshape/Transpose, Q x K^T scaled, softmax, P x V,
/// heads merged, the output projection, the residual and the tokens back to an image.
Graph attentionBlock(std::int64_t tokens, std::int64_t heads, std::int64_t headDim) {
  const std::int64_t d = heads * headDim;
  GraphBuilder b;
  ValueId x = b.input("x", {1, d, tokens, 1});
  ValueId flat = b.node(OpKind::Reshape, "flat", {x, b.ints("flat_shape", {1, d, tokens})});
  ValueId t = b.node(OpKind::Transpose, "tokens", {flat}, attrs({{"perm", Ints{0, 2, 1}}}));
  ValueId ln = b.node(OpKind::LayerNormalization, "ln",
                      {t, b.weights("ln_scale", {d}, 4), b.weights("ln_bias", {d}, 5)},
                      attrs({{"axis", std::int64_t{-1}}}));
  ValueId qkv = b.node(OpKind::MatMul, "qkv", {ln, b.weights("w_qkv", {d, 3 * d}, 6)});
  ValueId qkvb = b.node(OpKind::Add, "qkv_bias", {b.weights("b_qkv", {3 * d}, 7), qkv});
  std::vector<ValueId> parts;
  for (std::int64_t i = 0; i < 3; ++i) {
    const std::string name = std::string(1, "qkv"[i]);
    ValueId s = b.node(OpKind::Slice, name,
                       {qkvb, b.ints(name + "_s", {i * d}), b.ints(name + "_e", {(i + 1) * d}),
                        b.ints(name + "_a", {2})});
    parts.push_back(b.node(OpKind::Reshape, name + "_heads",
                           {s, b.ints(name + "_hs", {1, tokens, heads, headDim})}));
  }
  ValueId q = b.node(OpKind::Transpose, "q_t", {parts[0]}, attrs({{"perm", Ints{0, 2, 1, 3}}}));
  ValueId k = b.node(OpKind::Transpose, "k_t", {parts[1]}, attrs({{"perm", Ints{0, 2, 3, 1}}}));
  ValueId v = b.node(OpKind::Transpose, "v_t", {parts[2]}, attrs({{"perm", Ints{0, 2, 1, 3}}}));
  ValueId scores = b.node(OpKind::MatMul, "scores", {q, k});
  ValueId scaled = b.node(OpKind::Div, "scaled", {scores, b.constant("root", {}, {2.0F})});
  ValueId probs = b.node(OpKind::Softmax, "probs", {scaled}, attrs({{"axis", std::int64_t{-1}}}));
  ValueId context = b.node(OpKind::MatMul, "context", {probs, v});
  ValueId merged =
      b.node(OpKind::Transpose, "merged", {context}, attrs({{"perm", Ints{0, 2, 1, 3}}}));
  ValueId mergedTokens =
      b.node(OpKind::Reshape, "merged_tokens", {merged, b.ints("m_shape", {1, tokens, d})});
  ValueId proj = b.node(OpKind::MatMul, "proj", {mergedTokens, b.weights("w_proj", {d, d}, 8)});
  ValueId residual = b.node(OpKind::Add, "residual", {proj, t});
  ValueId back = b.node(OpKind::Transpose, "back", {residual}, attrs({{"perm", Ints{0, 2, 1}}}));
  return b.finish({b.node(OpKind::Reshape, "map", {back, b.ints("map_shape", {1, d, tokens, 1})})});
}

TEST(LiftTokenTensors, AttentionBecomesTwoHeadMatMulsOnTheTwins) {
  Graph g = attentionBlock(5, 2, 4);
  liftAndCompare(g);
  // Nothing moves tokens any more: the head split and merge, the slices and the 1/2 are in the
  // HeadMatMuls' views and alpha.
  EXPECT_EQ(countOps(g, OpKind::HeadMatMul), 2U) << dumpGraph(g);
  EXPECT_EQ(countOps(g, OpKind::Transpose), 0U) << dumpGraph(g);
  EXPECT_EQ(countOps(g, OpKind::MatMul), 0U) << dumpGraph(g);
  EXPECT_EQ(countOps(g, OpKind::Slice), 0U) << dumpGraph(g);
  EXPECT_EQ(countOps(g, OpKind::ChannelLayerNorm), 1U);
  for (const Node& n : g.nodes()) {
    if (n.op != OpKind::HeadMatMul) {
      continue;
    }
    const HeadMatMulGeometry geometry = headMatMulGeometry(n.attributes);
    EXPECT_EQ(geometry.heads, 2);
    if (n.name.starts_with("scores")) {
      // q and k read in place from the [5][24] qkv rows: k at column 8, as rows of keys (NK).
      EXPECT_EQ(geometry.a, (MatrixView{0, 4, 24}));
      EXPECT_EQ(geometry.b, (MatrixView{8, 4, 24}));
      EXPECT_TRUE(geometry.bRowsAreN);
      EXPECT_EQ(geometry.y, (MatrixView{0, 25, 5}));  // [heads][5][5] planes for the softmax
      EXPECT_FLOAT_EQ(n.attributes.getFloat("alpha", 0.0F), 0.5F);
    } else {
      // P x V: v at column 16 as [K][N] rows; the result merged into [5][8] token rows.
      EXPECT_EQ(geometry.b, (MatrixView{16, 4, 24}));
      EXPECT_FALSE(geometry.bRowsAreN);
      EXPECT_EQ(geometry.y, (MatrixView{0, 4, 8}));
    }
  }
}

TEST(LiftTokenTensors, HostReadersGetTheTokensRebuilt) {
  // A token tensor read by an op the pass does not lift (a Softmax over the tokens' first axis)
  // is rebuilt from its twin by a Transpose and a Reshape.
  GraphBuilder b;
  ValueId x = b.input("x", {1, 6, 4});
  ValueId fc = b.node(OpKind::MatMul, "fc", {x, b.weights("w", {4, 3}, 2)});
  ValueId gelu = b.node(OpKind::Gelu, "gelu", {fc});
  Graph g = b.finish({b.node(OpKind::Softmax, "soft", {gelu}, attrs({{"axis", std::int64_t{1}}}))});
  liftAndCompare(g);
  EXPECT_EQ(opSequence(g), "Reshape Transpose Conv Gelu Transpose Reshape Softmax");
}

TEST(LiftTokenTensors, ATransposeWithoutPermReversesTheAxes) {
  // No perm is the reversal (ONNX): [8, 8] tokens transposed are not the same bytes, so the
  // transpose reads the tokens rebuilt, whatever their last axis.
  GraphBuilder b;
  ValueId x = b.input("x", {8, 16});
  ValueId fc = b.node(OpKind::Gemm, "fc", {x, b.weights("w", {16, 8}, 3)});
  ValueId t = b.node(OpKind::Transpose, "t", {fc});
  Graph g = b.finish({b.node(OpKind::Relu, "r", {t})});
  liftAndCompare(g);
  EXPECT_EQ(countOps(g, OpKind::Transpose), 3U) << dumpGraph(g);  // seed, rebuild, the reversal
}

TEST(LiftTokenTensors, LeavesGraphsWithoutTokenCompute) {
  // Only moves: nothing to gain, the graph stays as it was.
  GraphBuilder b;
  ValueId x = b.input("x", {1, 6, 4});
  ValueId r = b.node(OpKind::Relu, "r", {x});
  Graph g = b.finish({b.node(OpKind::Transpose, "t", {r}, attrs({{"perm", Ints{0, 2, 1}}}))});
  const std::string before = opSequence(g);
  liftAndCompare(g);
  EXPECT_EQ(opSequence(g), before);
}

TEST(HeadMatMulGeometry, RefusesViewsOutsideTheirTensorsAndOverlappingOutputs) {
  HeadMatMulGeometry g;
  g.heads = 2;
  g.m = 3;
  g.k = 4;
  g.n = 5;
  g.a = {0, 12, 4};
  g.b = {0, 20, 5};
  g.y = {0, 15, 5};
  EXPECT_EQ(errorOf([&] { checkHeadMatMulGeometry(g, 24, 40, 30); }), "(no error)");
  EXPECT_EQ(errorOf([&] { checkHeadMatMulGeometry(g, 23, 40, 30); }),
            "HeadMatMul a view (offset 0, head stride 12, row stride 4) of 2 x 3 x 4 reaches past "
            "the tensor's 23 elements");
  g.y.headStride = 10;
  EXPECT_EQ(errorOf([&] { checkHeadMatMulGeometry(g, 24, 40, 30); }),
            "HeadMatMul output views overlap at element 10");
  g.y.headStride = 15;
  EXPECT_EQ(errorOf([&] { checkHeadMatMulGeometry(g, 24, 40, 31); }),
            "HeadMatMul writes 2 x 3 x 5 values into an output of 31 elements");
}

}  // namespace
}  // namespace npu::compiler
