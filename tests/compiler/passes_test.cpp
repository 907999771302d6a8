// Each front-end pass before and after: the ops it leaves and the same outputs.
#include <gtest/gtest.h>

#include "npu/compiler/ir/dump.h"
#include "npu/compiler/ir/op_params.h"
#include "npu/compiler/ir/verify.h"
#include "npu/compiler/passes/eliminate_dead_code.h"
#include "npu/compiler/passes/fold_batch_norm.h"
#include "npu/compiler/passes/fold_channel_shuffle.h"
#include "npu/compiler/passes/fold_constants.h"
#include "npu/compiler/passes/fold_conv_affine.h"
#include "npu/compiler/passes/fold_flatten_into_fc.h"
#include "npu/compiler/passes/fold_pad.h"
#include "npu/compiler/passes/fuse_activations.h"
#include "npu/compiler/passes/gemm_to_conv.h"
#include "npu/compiler/passes/pipeline.h"
#include "npu/compiler/passes/recognize_activations.h"
#include "npu/compiler/passes/reduce_to_global_pool.h"
#include "npu/compiler/passes/simplify_reshapes.h"
#include "npu/compiler/passes/sink_nhwc_transposes.h"
#include "npu/compiler/passes/slice_space_to_depth.h"
#include "npu/compiler/passes/split_linear_resize.h"
#include "npu/compiler/passes/split_to_slices.h"
#include "test_support.h"

namespace npu::compiler {
namespace {

using testing::attrs;
using testing::errorOf;
using testing::GraphBuilder;
using testing::opSequence;
using testing::pattern;
using testing::relativeError;
using testing::runAndCompare;
using testing::runSingle;

using Ints = std::vector<std::int64_t>;

const Node& nodeNamed(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes()) {
    if (n.name == name) {
      return n;
    }
  }
  throw Error("no node " + name);
}

// ---- fold-constants

TEST(FoldConstants, ShapeChainsBecomeConstants) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 8, 3, 3});
  ValueId shape = b.node(OpKind::Shape, "shape", {x});
  ValueId zero = b.graph().addConstant("zero", {}, TensorData(std::vector<std::int64_t>{0}));
  ValueId batch = b.node(OpKind::Gather, "gather", {shape, zero});
  ValueId batch1 = b.node(OpKind::Unsqueeze, "unsqueeze", {batch, b.ints("axes", {0})});
  ValueId target = b.node(OpKind::Concat, "concat", {batch1, b.ints("rest", {-1})},
                          attrs({{"axis", std::int64_t{0}}}));
  Graph g = b.finish({b.node(OpKind::Reshape, "reshape", {x, target})});
  EXPECT_EQ(opSequence(g), "Shape Gather Unsqueeze Concat Reshape");
  runAndCompare(g, foldConstants);
  EXPECT_EQ(opSequence(g), "Reshape");
  EXPECT_EQ(g.value(nodeNamed(g, "reshape").inputs[1]).data->toInt64(), (Ints{1, -1}));
}

TEST(FoldConstants, FloatConstantSubgraphsUseTheGoldenOps) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 3});
  ValueId wt = b.weights("wt", {4, 3});
  ValueId w = b.node(OpKind::Transpose, "transpose", {wt});
  ValueId scaled = b.node(OpKind::Mul, "scale", {w, b.constant("two", {}, {2.0F})});
  Graph g = b.finish({b.node(OpKind::MatMul, "matmul", {x, scaled})});
  runAndCompare(g, foldConstants);
  EXPECT_EQ(opSequence(g), "MatMul");
  EXPECT_EQ(g.value(nodeNamed(g, "matmul").inputs[1]).shape, (Shape{3, 4}));
}

// ---- eliminate-dead-code

TEST(EliminateDeadCode, DropsUnreadNodesAndValues) {
  GraphBuilder b;
  ValueId x = b.input("x", {4});
  ValueId live = b.node(OpKind::Relu, "live", {x});
  ValueId dead =
      b.node(OpKind::Sigmoid, "dead", {b.node(OpKind::Mul, "dead_mul", {x, b.weights("k", {4})})});
  (void)dead;
  Graph g = b.finish({live});
  runAndCompare(g, eliminateDeadCode);
  EXPECT_EQ(opSequence(g), "Relu");
  EXPECT_FALSE(g.findValue("k").has_value());
  EXPECT_TRUE(g.findValue("x").has_value());
}

// ---- simplify-reshapes

TEST(SimplifyReshapes, ReshapesCancelAcrossAnActivation) {
  // FC -> activation -> FC after gemm-to-conv: to_2d, the activation, to_nchw.
  GraphBuilder b;
  ValueId x = b.input("x", {1, 4, 1, 1});
  ValueId flat = b.node(OpKind::Flatten, "to_2d", {x});
  ValueId act = b.node(OpKind::HardSwish, "act", {flat});
  ValueId back = b.node(OpKind::Reshape, "to_nchw", {act, b.ints("s", {1, 4, 1, 1})});
  Graph g = b.finish({b.node(OpKind::Conv, "fc2", {back, b.weights("w", {2, 4, 1, 1})})});
  runAndCompare(g, simplifyReshapes);
  EXPECT_EQ(opSequence(g), "HardSwish Conv");
  // An activation that does not read a reshape is left where it is.
  GraphBuilder c;
  ValueId y = c.input("y", {1, 4, 1, 1});
  ValueId r = c.node(OpKind::Relu, "relu", {y});
  Graph h = c.finish({c.node(OpKind::Flatten, "flat", {r})});
  runAndCompare(h, simplifyReshapes);
  EXPECT_EQ(opSequence(h), "Relu Flatten");
}

TEST(SplitToSlices, EachOutputBecomesASlice) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 6, 2, 2});
  Node split;
  split.name = "split";
  split.op = OpKind::Split;
  split.inputs = {x, b.ints("sizes", {1, 2, 3})};
  split.attributes.set("axis", std::int64_t{-3});
  std::vector<ValueId> parts;
  for (const char* name : {"a", "b", "c"}) {
    parts.push_back(b.graph().addIntermediate(name));
    split.outputs.push_back(parts.back());
  }
  b.graph().addNode(std::move(split));
  Graph g = b.finish(parts);
  runAndCompare(g, splitToSlices);
  EXPECT_EQ(opSequence(g), "Slice Slice Slice");
  EXPECT_EQ(g.value(g.nodes()[2].input(1)).data->toInt64(), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(g.value(g.nodes()[2].input(2)).data->toInt64(), (std::vector<std::int64_t>{6}));
}

TEST(SplitLinearResize, BilinearBecomesARowThenAColumnResize) {
  // Scales and sizes forms; the fp32 result must not move (runAndCompare).
  for (const bool bySizes : {false, true}) {
    GraphBuilder b;
    ValueId x = b.input("x", {1, 3, 5, 4});
    const ValueId scales = bySizes ? ValueId{} : b.constant("scales", {4}, {1, 1, 2, 3});
    const ValueId sizes = bySizes ? b.ints("sizes", {1, 3, 7, 9}) : ValueId{};
    Graph g = b.finish({b.node(OpKind::Resize, "up", {x, ValueId{}, scales, sizes},
                               attrs({{"mode", std::string("linear")}}))});
    runAndCompare(g, splitLinearResize);
    ASSERT_EQ(opSequence(g), "Resize Resize");
    EXPECT_EQ(g.nodes()[0].name, "up/rows");
    EXPECT_EQ(g.value(g.nodes()[0].outputs[0]).shape, (Shape{1, 3, bySizes ? 7 : 10, 4}));
    EXPECT_EQ(g.nodes()[1].name, "up/cols");
  }
  // Nearest, or one axis only: left alone.
  GraphBuilder b;
  ValueId x = b.input("x", {1, 3, 5, 4});
  const ValueId scales = b.constant("scales", {4}, {1, 1, 2, 1});
  Graph g = b.finish({b.node(OpKind::Resize, "up", {x, ValueId{}, scales},
                             attrs({{"mode", std::string("linear")}}))});
  splitLinearResize(g);
  EXPECT_EQ(opSequence(g), "Resize");
}

TEST(FoldChannelShuffle, ReshapeTransposeReshapeBecomesAChannelGather) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 6, 2, 2});
  ValueId grouped = b.node(OpKind::Reshape, "view", {x, b.ints("g", {1, 3, 2, 2, 2})});
  ValueId swapped = b.node(OpKind::Transpose, "swap", {grouped},
                           attrs({{"perm", std::vector<std::int64_t>{0, 2, 1, 3, 4}}}));
  Graph g = b.finish({b.node(OpKind::Reshape, "back", {swapped, b.ints("s", {1, 6, 2, 2})})});
  runAndCompare(g, foldChannelShuffle);
  EXPECT_EQ(opSequence(g), "Gather");
  // Three groups of two: output channel c * 3 + g reads input channel g * 2 + c.
  std::vector<std::int64_t> order = g.value(g.nodes()[0].input(1)).data->toInt64();
  EXPECT_EQ(order, (std::vector<std::int64_t>{0, 2, 4, 1, 3, 5}));
  EXPECT_EQ(shuffleGroups(order, 6), 3);
  EXPECT_EQ(shuffleGroups(std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}, 6), 0);
  EXPECT_EQ(shuffleGroups(std::vector<std::int64_t>{0, 3, 1, 4, 2, 5}, 6), 2);
}

TEST(FoldFlattenIntoFc, TheFlattenBecomesTheKernel) {
  // AlexNet's classifier after gemm-to-conv: [1, 3, 2, 2] flattened to [1, 12, 1, 1], FC to 5.
  GraphBuilder b;
  ValueId x = b.input("x", {1, 3, 2, 2});
  ValueId flat = b.node(OpKind::Reshape, "flat", {x, b.ints("s", {1, 12, 1, 1})});
  Graph g = b.finish({b.node(OpKind::Conv, "fc", {flat, b.weights("w", {5, 12, 1, 1})})});
  runAndCompare(g, foldFlattenIntoFc);
  EXPECT_EQ(opSequence(g), "Conv");
  EXPECT_EQ(g.value(g.nodes()[0].input(1)).shape, (Shape{5, 3, 2, 2}));
  // A flatten of a 1x1 map (after a global pool) is already a layout no-op: left alone.
  GraphBuilder c;
  ValueId y = c.input("y", {1, 12, 1, 1});
  ValueId same = c.node(OpKind::Flatten, "flat", {y});
  ValueId back = c.node(OpKind::Reshape, "nchw", {same, c.ints("s", {1, 12, 1, 1})});
  Graph h = c.finish({c.node(OpKind::Conv, "fc", {back, c.weights("w", {5, 12, 1, 1})})});
  runAndCompare(h, foldFlattenIntoFc);
  EXPECT_EQ(opSequence(h), "Flatten Reshape Conv");
}

TEST(ReduceToGlobalPool, SpatialReductionsBecomeGlobalPools) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 3, 4, 5});
  ValueId mean = b.node(OpKind::ReduceMean, "mean", {x, b.ints("hw", {2, 3})});
  ValueId max = b.node(OpKind::ReduceMax, "max", {x, b.ints("wh", {-1, -2})},
                       attrs({{"keepdims", std::int64_t{0}}}));
  ValueId channels = b.node(OpKind::ReduceMean, "channels", {x, b.ints("c", {1})});
  Graph g = b.finish({mean, max, channels});
  runAndCompare(g, reduceToGlobalPool);
  EXPECT_EQ(opSequence(g), "GlobalAveragePool GlobalMaxPool Flatten ReduceMean");
}

TEST(SimplifyReshapes, IdentityAndNoOpsDisappear) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 4, 2, 2});
  ValueId id = b.node(OpKind::Identity, "id", {x});
  ValueId same = b.node(OpKind::Reshape, "same", {id, b.ints("s", {1, 4, 2, 2})});
  ValueId t1 = b.node(OpKind::Transpose, "t1", {same}, attrs({{"perm", Ints{0, 2, 3, 1}}}));
  ValueId t2 = b.node(OpKind::Transpose, "t2", {t1}, attrs({{"perm", Ints{0, 3, 1, 2}}}));
  ValueId pad = b.node(OpKind::Pad, "pad", {t2, b.ints("zeros", Ints(8, 0))});
  ValueId relu = b.node(OpKind::Relu, "relu", {pad});
  Graph g = b.finish({relu});
  runAndCompare(g, simplifyReshapes);
  EXPECT_EQ(opSequence(g), "Relu");
  EXPECT_EQ(g.nodes()[0].inputs[0], x);
}

TEST(SimplifyReshapes, ReshapeChainsMerge) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 8, 1, 1});
  ValueId flat = b.node(OpKind::Flatten, "flat", {x});
  ValueId up = b.node(OpKind::Unsqueeze, "up", {flat, b.ints("axes", {2})});
  ValueId sig = b.node(OpKind::Sigmoid, "sig", {up});
  Graph g = b.finish({sig});
  runAndCompare(g, simplifyReshapes);
  EXPECT_EQ(opSequence(g), "Reshape Sigmoid");
  EXPECT_EQ(g.value(g.nodes()[0].inputs[1]).data->toInt64(), (Ints{1, 8, 1}));
}

TEST(SimplifyReshapes, IdentityBeforeAGraphOutputRenamesTheProducer) {
  GraphBuilder b;
  ValueId x = b.input("x", {3});
  ValueId relu = b.node(OpKind::Relu, "relu", {x});
  ValueId out = b.node(OpKind::Identity, "output", {relu});
  Graph g = b.finish({out});
  runAndCompare(g, simplifyReshapes);
  EXPECT_EQ(opSequence(g), "Relu");
  EXPECT_EQ(g.value(g.outputs()[0]).name, "output");
}

TEST(SimplifyReshapes, KeepsAnIdentityFromInputToOutput) {
  GraphBuilder b;
  ValueId x = b.input("x", {3});
  Graph g = b.finish({b.node(OpKind::Identity, "output", {x})});
  runAndCompare(g, simplifyReshapes);
  EXPECT_EQ(opSequence(g), "Identity");
}

// ---- fold-batch-norm

Graph convBatchNorm(bool shareWeights) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 3, 5, 5});
  ValueId w = b.weights("w", {4, 3, 3, 3});
  ValueId conv = b.node(OpKind::Conv, "conv", {x, w, b.weights("bias", {4}, 2)});
  ValueId bn = b.node(OpKind::BatchNormalization, "bn",
                      {conv, b.constant("gamma", {4}, {0.5F, 1.0F, 1.5F, 2.0F}),
                       b.constant("beta", {4}, {0.1F, -0.2F, 0.3F, 0.0F}),
                       b.constant("mean", {4}, {0.3F, -0.1F, 0.0F, 1.0F}),
                       b.constant("var", {4}, {0.5F, 2.0F, 1.0F, 0.25F})},
                      attrs({{"epsilon", 1e-3F}}));
  if (!shareWeights) {
    return b.finish({bn});
  }
  ValueId other = b.node(OpKind::Conv, "other", {x, w});
  return b.finish({b.node(OpKind::Add, "sum", {bn, other})});
}

TEST(FoldBatchNorm, FoldsIntoConvWeightsAndBias) {
  Graph g = convBatchNorm(false);
  runAndCompare(g, foldBatchNorm);
  EXPECT_EQ(opSequence(g), "Conv");
  EXPECT_EQ(g.nodes()[0].inputs.size(), 3U);
}

TEST(FoldBatchNorm, SharedWeightsAreCopied) {
  Graph g = convBatchNorm(true);
  std::vector<float> original(g.value(*g.findValue("w")).data->floats().begin(),
                              g.value(*g.findValue("w")).data->floats().end());
  runAndCompare(g, foldBatchNorm);
  EXPECT_EQ(opSequence(g), "Conv Conv Add");
  EXPECT_EQ(nodeNamed(g, "other").inputs[1], *g.findValue("w"));
  std::span<const float> after = g.value(*g.findValue("w")).data->floats();
  EXPECT_TRUE(std::equal(after.begin(), after.end(), original.begin()));
}

TEST(FoldBatchNorm, LeavesAnEmptyConvUnfolded) {
  // Found by the graph_yaml fuzz campaign: a conv of 0 output channels before a BatchNorm made
  // the fold divide the weights by a channel count of 0.
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 3, 3});
  ValueId conv = b.node(OpKind::Conv, "conv", {x, b.weights("w", {0, 2, 1, 1})});
  std::vector<ValueId> p;
  for (const char* name : {"g", "b", "m", "v"}) {
    p.push_back(b.constant(name, {0}, {}));
  }
  Graph g = b.finish({b.node(OpKind::BatchNormalization, "bn", {conv, p[0], p[1], p[2], p[3]})});
  foldBatchNorm(g);
  EXPECT_EQ(opSequence(g), "Conv BatchNormalization");
}

TEST(FoldBatchNorm, LeavesBatchNormThatCannotFold) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 3, 3});
  ValueId conv = b.node(OpKind::Conv, "conv", {x, b.weights("w", {2, 2, 1, 1})});
  auto params = [&](const char* prefix) {
    return std::vector<ValueId>{b.constant(std::string(prefix) + "g", {2}, {1, 2}),
                                b.constant(std::string(prefix) + "b", {2}, {0, 1}),
                                b.constant(std::string(prefix) + "m", {2}, {0, 1}),
                                b.constant(std::string(prefix) + "v", {2}, {1, 2})};
  };
  std::vector<ValueId> p1 = params("a");
  ValueId bn = b.node(OpKind::BatchNormalization, "bn", {conv, p1[0], p1[1], p1[2], p1[3]});
  ValueId relu = b.node(OpKind::Relu, "relu", {x});
  std::vector<ValueId> p2 = params("c");
  ValueId bn2 = b.node(OpKind::BatchNormalization, "bn2", {relu, p2[0], p2[1], p2[2], p2[3]});
  ValueId sum = b.node(OpKind::Add, "sum", {bn, conv});  // conv has a second reader
  Graph g = b.finish({b.node(OpKind::Add, "out", {sum, bn2})});
  runAndCompare(g, foldBatchNorm);
  EXPECT_EQ(opSequence(g), "Conv BatchNormalization Relu BatchNormalization Add Add");
}

// ---- fold-pad

TEST(FoldPad, ZeroSpatialPadMovesIntoConvAndAveragePool) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 4, 4});
  ValueId pad = b.node(OpKind::Pad, "pad", {x, b.ints("pads", {0, 0, 1, 2, 0, 0, 1, 0})});
  ValueId conv = b.node(OpKind::Conv, "conv", {pad, b.weights("w", {2, 2, 3, 3})},
                        attrs({{"pads", Ints{1, 1, 1, 1}}}));
  ValueId pool =
      b.node(OpKind::AveragePool, "pool", {pad},
             attrs({{"kernel_shape", Ints{2, 2}}, {"count_include_pad", std::int64_t{1}}}));
  ValueId poolFlat = b.node(OpKind::Flatten, "pf", {pool});
  ValueId convFlat = b.node(OpKind::Flatten, "cf", {conv});
  Graph g = b.finish(
      {b.node(OpKind::Concat, "cat", {convFlat, poolFlat}, attrs({{"axis", std::int64_t{1}}}))});
  runAndCompare(g, foldPad);
  EXPECT_EQ(opSequence(g), "Conv AveragePool Flatten Flatten Concat");
  EXPECT_EQ(nodeNamed(g, "conv").attributes.getInts("pads"), (Ints{2, 3, 2, 1}));
  EXPECT_EQ(nodeNamed(g, "pool").attributes.getInts("pads"), (Ints{1, 2, 1, 0}));
}

TEST(FoldPad, LeavesPadsThatAreNotZeroSpatialPads) {
  for (const Ints& pads : {Ints{0, 1, 0, 0, 0, 0, 0, 0}, Ints{0, 0, -1, 0, 0, 0, 0, 0}}) {
    GraphBuilder b;
    ValueId x = b.input("x", {1, 2, 4, 4});
    ValueId pad = b.node(OpKind::Pad, "pad", {x, b.ints("pads", pads)});
    std::int64_t channels = pads[1] == 1 ? 3 : 2;
    Graph g = b.finish({b.node(OpKind::Conv, "conv", {pad, b.weights("w", {2, channels, 1, 1})})});
    runAndCompare(g, foldPad);
    EXPECT_EQ(opSequence(g), "Pad Conv");
  }
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 4, 4});
  ValueId pad = b.node(OpKind::Pad, "pad",
                       {x, b.ints("pads", {0, 0, 1, 1, 0, 0, 1, 1}), b.constant("v", {}, {1.0F})});
  Graph g = b.finish({b.node(OpKind::Conv, "conv", {pad, b.weights("w", {2, 2, 1, 1})})});
  runAndCompare(g, foldPad);
  EXPECT_EQ(opSequence(g), "Pad Conv") << "padding with 1.0 is not the conv's zero padding";
}

// ---- gemm-to-conv

TEST(GemmToConv, GemmBecomesOneByOneConv) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 6});
  ValueId gemm = b.node(OpKind::Gemm, "fc", {x, b.weights("w", {5, 6}), b.weights("c", {1, 5}, 3)},
                        attrs({{"transB", std::int64_t{1}}, {"alpha", 0.5F}, {"beta", 2.0F}}));
  Graph g = b.finish({gemm});
  runAndCompare(g, convertGemmToConv);
  EXPECT_EQ(opSequence(g), "Reshape Conv Reshape");
  EXPECT_EQ(g.value(nodeNamed(g, "fc/conv").inputs[1]).shape, (Shape{5, 6, 1, 1}));
}

TEST(GemmToConv, MatMulWithConstantWeights) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 6});
  Graph g = b.finish({b.node(OpKind::MatMul, "mm", {x, b.weights("w", {6, 3})})});
  runAndCompare(g, convertGemmToConv);
  EXPECT_EQ(opSequence(g), "Reshape Conv Reshape");
}

TEST(GemmToConv, LeavesIllegalForms) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 6});
  ValueId rowBias =
      b.node(OpKind::Gemm, "row_bias", {x, b.weights("w", {6, 4}), b.weights("c", {2, 1})});
  ValueId transA =
      b.node(OpKind::Gemm, "trans_a", {b.weights("a", {6, 2}), b.weights("w2", {6, 4})},
             attrs({{"transA", std::int64_t{1}}}));
  ValueId batched =
      b.node(OpKind::MatMul, "batched",
             {b.node(OpKind::Unsqueeze, "u", {x, b.ints("axes", {0})}), b.weights("w3", {6, 4})});
  ValueId flat = b.node(OpKind::Reshape, "flat", {batched, b.ints("s", {2, 4})});
  ValueId sum = b.node(OpKind::Add, "sum", {rowBias, transA});
  Graph g = b.finish({b.node(OpKind::Add, "out", {sum, flat})});
  runAndCompare(g, convertGemmToConv);
  EXPECT_EQ(opSequence(g), "Gemm Gemm Unsqueeze MatMul Reshape Add Add");
}

// ---- slice-space-to-depth

TEST(SliceSpaceToDepth, SpaceToDepthBecomesStridedSlices) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 3, 4, 6});
  Graph g =
      b.finish({b.node(OpKind::SpaceToDepth, "s2d", {x}, attrs({{"blocksize", std::int64_t{2}}}))});
  runAndCompare(g, sliceSpaceToDepth);
  EXPECT_EQ(opSequence(g), "Slice Slice Slice Slice Concat");
}

TEST(SliceSpaceToDepth, FocusSliceChainsMerge) {
  // YOLOv5's Focus: x[..., r::2, c::2] exported as a row Slice, shared by two column Slices.
  GraphBuilder b;
  ValueId x = b.input("x", {1, 3, 4, 6});
  std::vector<ValueId> rows;
  for (std::int64_t r = 0; r < 2; ++r) {
    std::string n = std::to_string(r);
    rows.push_back(b.node(OpKind::Slice, "rows" + n,
                          {x, b.ints("rs" + n, {r}), b.ints("re" + n, {1 << 30}),
                           b.ints("ra" + n, {2}), b.ints("rp" + n, {2})}));
  }
  std::vector<ValueId> parts;
  for (std::int64_t k = 0; k < 4; ++k) {
    std::string n = std::to_string(k);
    parts.push_back(
        b.node(OpKind::Slice, "cols" + n,
               {rows[static_cast<std::size_t>(k % 2)], b.ints("cs" + n, {k / 2}),
                b.ints("ce" + n, {1 << 30}), b.ints("ca" + n, {-1}), b.ints("cp" + n, {2})}));
  }
  Graph g = b.finish({b.node(OpKind::Concat, "focus", parts, attrs({{"axis", std::int64_t{1}}}))});
  runAndCompare(g, sliceSpaceToDepth);
  EXPECT_EQ(opSequence(g), "Slice Slice Slice Slice Concat");
}

// ---- sink-nhwc-transposes

/// A ConvNeXt block at opset 17: depthwise conv, permute to NHWC, LayerNorm, Linear, GELU,
/// Linear, permute back, layer scale, residual add. `tail` reads the LayerNorm's output too.
Graph convNextBlock(bool extraReader) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 4, 3, 5});
  ValueId dw =
      b.node(OpKind::Conv, "dw", {x, b.weights("dw_w", {4, 1, 3, 3}), b.weights("dw_b", {4})},
             attrs({{"group", std::int64_t{4}}, {"pads", Ints{1, 1, 1, 1}}}));
  ValueId nhwc = b.node(OpKind::Transpose, "to_nhwc", {dw}, attrs({{"perm", Ints{0, 2, 3, 1}}}));
  ValueId ln = b.node(OpKind::LayerNormalization, "ln",
                      {nhwc, b.weights("ln_g", {4}, 3), b.weights("ln_b", {4}, 4)},
                      attrs({{"epsilon", 1e-6F}}));
  ValueId fc1 = b.node(OpKind::MatMul, "fc1", {ln, b.weights("w1", {4, 8})});
  ValueId bias1 = b.node(OpKind::Add, "bias1", {b.weights("b1", {8}, 9), fc1});
  ValueId gelu = b.node(OpKind::Gelu, "gelu", {bias1});
  ValueId fc2 = b.node(OpKind::MatMul, "fc2", {gelu, b.weights("w2", {8, 4}, 11)});
  ValueId bias2 = b.node(OpKind::Add, "bias2", {fc2, b.weights("b2", {4}, 12)});
  ValueId nchw = b.node(OpKind::Transpose, "to_nchw", {bias2}, attrs({{"perm", Ints{0, 3, 1, 2}}}));
  ValueId scaled = b.node(OpKind::Mul, "layer_scale", {b.weights("gamma", {4, 1, 1}, 13), nchw});
  ValueId out = b.node(OpKind::Add, "residual", {scaled, x});
  if (!extraReader) {
    return b.finish({out});
  }
  ValueId soft = b.node(OpKind::Softmax, "soft", {ln}, attrs({{"axis", std::int64_t{-1}}}));
  ValueId back =
      b.node(OpKind::Transpose, "soft_nchw", {soft}, attrs({{"perm", Ints{0, 3, 1, 2}}}));
  return b.finish({b.node(OpKind::Add, "both", {out, back})});
}

TEST(SinkNhwcTransposes, ConvNextBlockRunsOnTheNchwTensor) {
  Graph g = convNextBlock(false);
  runAndCompare(g, sinkNhwcTransposes);
  // No transpose left; the Linears are 1x1 convs; the LayerNorm is spelled out over axis 1.
  EXPECT_EQ(opSequence(g),
            "Conv ReduceMean Sub Mul ReduceMean Add Sqrt Div Mul Add Conv Add Gelu Conv Add "
            "Identity Mul Add");
  EXPECT_EQ(g.value(nodeNamed(g, "fc1/nchw").inputs[1]).shape, (Shape{8, 4, 1, 1}));
  runAndCompare(g, simplifyReshapes);
  runAndCompare(g, foldConvAffine);
  // Both bias adds, the layer scale and the LayerNorm's affine are in the convs' weights and
  // biases.
  EXPECT_EQ(opSequence(g), "Conv ReduceMean Sub Mul ReduceMean Add Sqrt Div Conv Gelu Conv Add");
}

TEST(SinkNhwcTransposes, OtherReadersGetTheValueTransposedBack) {
  Graph g = convNextBlock(true);
  runAndCompare(g, sinkNhwcTransposes);
  // The Softmax over the last axis is not moved: it reads the LayerNorm's NHWC result.
  EXPECT_EQ(opSequence(g),
            "Conv ReduceMean Sub Mul ReduceMean Add Sqrt Div Mul Add Transpose Conv Add Gelu Conv "
            "Add Identity Mul Add Softmax Transpose Add");
}

TEST(SinkNhwcTransposes, ASecondTransposeInsideARegionReadsItsInputRebuilt) {
  // Transpose(0, 2, 3, 1) twice with a Relu between: the second is an ordinary reader of the
  // region, so its input must be rebuilt from its twin (once, it was left unproduced).
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 3, 4});
  ValueId t1 = b.node(OpKind::Transpose, "t1", {x}, attrs({{"perm", Ints{0, 2, 3, 1}}}));
  ValueId r1 = b.node(OpKind::Relu, "r1", {t1});
  ValueId t2 = b.node(OpKind::Transpose, "t2", {r1}, attrs({{"perm", Ints{0, 2, 3, 1}}}));
  Graph g = b.finish({b.node(OpKind::Relu, "r2", {t2})});
  runAndCompare(g, sinkNhwcTransposes);
}

TEST(SinkNhwcTransposes, LeavesRegionsWithNothingToMove) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 4, 3, 5});
  ValueId nhwc = b.node(OpKind::Transpose, "t", {x}, attrs({{"perm", Ints{0, 2, 3, 1}}}));
  Graph g = b.finish({b.node(OpKind::Softmax, "soft", {nhwc})});
  runAndCompare(g, sinkNhwcTransposes);
  EXPECT_EQ(opSequence(g), "Transpose Softmax");
}

// ---- fold-conv-affine

TEST(FoldConvAffine, PerChannelScaleAndShiftJoinTheConv) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 3, 4, 4});
  ValueId c = b.node(OpKind::Conv, "c", {x, b.weights("w", {2, 3, 3, 3})});
  ValueId half = b.node(OpKind::Div, "half", {c, b.constant("two", {}, {2.0F})});
  ValueId shift = b.node(OpKind::Sub, "shift", {half, b.weights("s", {1, 2, 1, 1}, 3)});
  ValueId scale = b.node(OpKind::Mul, "scale", {b.weights("g", {2, 1, 1}, 4), shift});
  // Not per channel (varies along W): stays.
  Graph g = b.finish({b.node(OpKind::Add, "row", {scale, b.weights("r", {2}, 5)})});
  runAndCompare(g, foldConvAffine);
  EXPECT_EQ(opSequence(g), "Conv Add");
}

TEST(FoldConvAffine, PerChannelAffineBeforeAnUnpaddedConvJoinsIt) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 4, 5, 5});
  ValueId scale = b.node(OpKind::Mul, "scale", {x, b.weights("g", {4, 1, 1}, 3)});
  ValueId shift = b.node(OpKind::Add, "shift", {b.weights("t", {1, 4, 1, 1}, 4), scale});
  // Grouped, strided, unpadded: folds.
  ValueId c1 =
      b.node(OpKind::Conv, "c1", {shift, b.weights("w1", {6, 2, 2, 2}), b.weights("b1", {6})},
             attrs({{"group", std::int64_t{2}}, {"strides", Ints{2, 2}}}));
  ValueId shift2 = b.node(OpKind::Add, "shift2", {c1, b.constant("one", {}, {1.0F})});
  ValueId relu = b.node(OpKind::Relu, "relu", {shift2});
  ValueId shift3 = b.node(OpKind::Add, "shift3", {relu, b.weights("t3", {6, 1, 1}, 5)});
  // Padded: the border would read 0, not the shift; stays.
  Graph g = b.finish({b.node(OpKind::Conv, "c2", {shift3, b.weights("w2", {3, 6, 3, 3})},
                             attrs({{"pads", Ints{1, 1, 1, 1}}}))});
  runAndCompare(g, foldConvAffine);
  EXPECT_EQ(opSequence(g), "Conv Relu Add Conv");
}

TEST(FoldConvAffine, AnAffineReadByManyUnpaddedConvsJoinsEachOfThem) {
  // An RMSNorm weight before the q, k and v projections: every reader takes the scale, the Mul
  // goes. A second affine with one padded reader among its convs stays for all of them.
  GraphBuilder b;
  ValueId x = b.input("x", {1, 4, 3, 1});
  ValueId weight = b.node(OpKind::Mul, "weight", {b.weights("g", {1, 4, 1, 1}, 3), x});
  ValueId q = b.node(OpKind::Conv, "q", {weight, b.weights("wq", {4, 4, 1, 1}, 4)});
  ValueId k = b.node(OpKind::Conv, "k", {weight, b.weights("wk", {2, 4, 1, 1}, 5)});
  ValueId v =
      b.node(OpKind::Conv, "v", {weight, b.weights("wv", {2, 4, 1, 1}, 6), b.weights("bv", {2})});
  ValueId kv = b.node(OpKind::Concat, "kv", {k, v}, attrs({{"axis", std::int64_t{1}}}));
  ValueId both = b.node(OpKind::Add, "both", {q, kv});
  ValueId shift = b.node(OpKind::Add, "shift", {both, b.weights("t", {4, 1, 1}, 7)});
  ValueId plain = b.node(OpKind::Conv, "plain", {shift, b.weights("wp", {4, 4, 1, 1}, 8)});
  ValueId padded = b.node(OpKind::Conv, "padded", {shift, b.weights("wd", {4, 4, 3, 1}, 9)},
                          attrs({{"pads", Ints{1, 0, 1, 0}}}));
  Graph g = b.finish({b.node(OpKind::Add, "out", {plain, padded})});
  runAndCompare(g, foldConvAffine);
  EXPECT_EQ(opSequence(g), "Conv Conv Conv Concat Add Add Conv Conv Add");
}

// ---- fuse-activations

FusedActivation fusedOf(const Graph& g, const std::string& node) {
  return fusedActivation(nodeNamed(g, node));
}

TEST(FuseActivations, ClipTypeActivationsBecomeClipBounds) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 3, 3});
  ValueId c1 = b.node(OpKind::Conv, "c1", {x, b.weights("w1", {2, 2, 1, 1})});
  ValueId r1 = b.node(OpKind::Relu, "r1", {c1});
  ValueId six =
      b.node(OpKind::Clip, "six", {r1, b.constant("lo", {}, {0.0F}), b.constant("hi", {}, {6.0F})});
  ValueId c2 = b.node(OpKind::Conv, "c2", {six, b.weights("w2", {2, 2, 1, 1}, 4)});
  ValueId add = b.node(OpKind::Add, "add", {c2, six});
  Graph g = b.finish({b.node(OpKind::Relu, "r2", {add})});
  runAndCompare(g, fuseActivations);
  EXPECT_EQ(opSequence(g), "Conv Conv Add");
  FusedActivation a = fusedOf(g, "c1");
  EXPECT_EQ(a.op, OpKind::Clip);
  EXPECT_EQ(a.min, 0.0F);
  EXPECT_EQ(a.max, 6.0F);
  EXPECT_FALSE(a.lut);
  EXPECT_EQ(fusedOf(g, "add").op, OpKind::Relu);
  EXPECT_EQ(fusedOf(g, "c2").op, OpKind::Identity);
}

TEST(FuseActivations, ReluAfterStandaloneBatchNormJoinsIt) {
  // DenseNet's pre-activation: BN -> ReLU on a concat, not foldable into a conv.
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 3, 3});
  ValueId cat = b.node(OpKind::Concat, "cat", {x, x}, attrs({{"axis", std::int64_t{1}}}));
  ValueId bn =
      b.node(OpKind::BatchNormalization, "bn",
             {cat, b.weights("g", {4}, 1), b.weights("beta", {4}, 2), b.weights("mean", {4}, 3),
              b.constant("var", {4}, {1.0F, 2.0F, 0.5F, 3.0F})});
  Graph g = b.finish({b.node(OpKind::Relu, "relu", {bn})});
  runAndCompare(g, fuseActivations);
  EXPECT_EQ(opSequence(g), "Concat BatchNormalization");
  EXPECT_EQ(fusedOf(g, "bn").op, OpKind::Relu);
}

TEST(RecognizeActivations, MishFromItsExportedForm) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 3, 3});
  ValueId c = b.node(OpKind::Conv, "c", {x, b.weights("w", {2, 2, 1, 1})});
  ValueId sp = b.node(OpKind::Softplus, "sp", {c});
  ValueId t = b.node(OpKind::Tanh, "t", {sp});
  Graph g = b.finish({b.node(OpKind::Mul, "mish", {c, t})});
  runAndCompare(g, recognizeActivations);
  EXPECT_EQ(opSequence(g), "Conv Mish");
  runAndCompare(g, fuseActivations);
  EXPECT_EQ(opSequence(g), "Conv");
  EXPECT_EQ(fusedOf(g, "c").op, OpKind::Mish);
  EXPECT_TRUE(fusedOf(g, "c").lut);
}

TEST(RecognizeActivations, SharedSlopePreluIsLeakyRelu) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 3, 3});
  ValueId shared = b.node(OpKind::PRelu, "shared", {x, b.constant("a", {1, 1, 1}, {0.25F})});
  Graph g = b.finish({b.node(OpKind::PRelu, "per_channel", {shared, b.weights("s", {2, 1, 1})})});
  runAndCompare(g, recognizeActivations);
  EXPECT_EQ(opSequence(g), "LeakyRelu PRelu");
  EXPECT_EQ(nodeNamed(g, "shared").attributes.getFloat("alpha", 0.0F), 0.25F);
}

TEST(FuseActivations, GatedAndSmoothActivationsBecomeLutCandidates) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 3, 3});
  ValueId c1 = b.node(OpKind::Conv, "c1", {x, b.weights("w1", {2, 2, 1, 1})});
  ValueId gate = b.node(OpKind::Sigmoid, "gate", {c1});
  ValueId silu = b.node(OpKind::Mul, "silu", {c1, gate});
  ValueId c2 = b.node(OpKind::Conv, "c2", {silu, b.weights("w2", {2, 2, 1, 1}, 4)});
  ValueId hs =
      b.node(OpKind::HardSigmoid, "hs", {c2}, attrs({{"alpha", 1.0F / 6.0F}, {"beta", 0.5F}}));
  ValueId hswish = b.node(OpKind::Mul, "hswish", {hs, c2});
  ValueId c3 = b.node(OpKind::Conv, "c3", {hswish, b.weights("w3", {2, 2, 1, 1}, 5)});
  ValueId gelu = b.node(OpKind::Gelu, "gelu", {c3});
  ValueId add = b.node(OpKind::Add, "add", {gelu, x});
  Graph g = b.finish({b.node(OpKind::Tanh, "tanh", {add})});
  runAndCompare(g, recognizeActivations);
  EXPECT_EQ(opSequence(g), "Conv Silu Conv HardSwish Conv Gelu Add Tanh");
  runAndCompare(g, fuseActivations);
  EXPECT_EQ(opSequence(g), "Conv Conv Conv Add Tanh") << "the Add has no LUT stage";
  EXPECT_EQ(fusedOf(g, "c1").op, OpKind::Silu);
  EXPECT_EQ(fusedOf(g, "c2").op, OpKind::HardSwish);
  EXPECT_EQ(fusedOf(g, "c3").op, OpKind::Gelu);
  EXPECT_TRUE(fusedOf(g, "c3").lut);
}

TEST(FuseActivations, LeavesActivationsOfSharedOutputs) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 3, 3});
  ValueId conv = b.node(OpKind::Conv, "conv", {x, b.weights("w", {2, 2, 1, 1})});
  ValueId relu = b.node(OpKind::Relu, "relu", {conv});
  Graph g = b.finish({b.node(OpKind::Add, "add", {relu, conv})});
  runAndCompare(g, fuseActivations);
  EXPECT_EQ(opSequence(g), "Conv Relu Add");
}

// ---- the pipeline

TEST(Pipeline, DumpsAfterTheNamedPasses) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2});
  Graph g = b.finish({b.node(OpKind::Relu, "r", {x})});
  PipelineOptions options;
  options.dumpAfter = {"fold-batch-norm", "simplify-reshapes"};
  std::vector<std::string> dumped;
  options.dumpSink = [&](std::string_view pass, const std::string& text) {
    dumped.emplace_back(pass);
    EXPECT_NE(text.find("Relu[r]"), std::string::npos);
  };
  runFrontEndPasses(g, options);
  EXPECT_EQ(dumped, (std::vector<std::string>{"simplify-reshapes", "fold-batch-norm",
                                              "simplify-reshapes"}));
}

TEST(Pipeline, UnknownDumpAfterPass) {
  GraphBuilder b;
  ValueId x = b.input("x", {1});
  Graph g = b.finish({b.node(OpKind::Relu, "r", {x})});
  PipelineOptions options;
  options.dumpAfter = {"fold-everything"};
  EXPECT_EQ(
      errorOf([&] { runFrontEndPasses(g, options); }),
      "--dump-after: unknown pass 'fold-everything' (passes: infer-shapes, fold-constants, "
      "eliminate-dead-code, simplify-reshapes, fold-batch-norm, fold-pad, split-to-slices, "
      "slice-space-to-depth, fold-channel-shuffle, recognize-activations, reduce-to-global-pool, "
      "split-linear-resize, sink-nhwc-transposes, fuse-rms-norm, rotary-to-tokens, "
      "masks-to-adds, split-grouped-attention, lift-token-tensors, "
      "fuse-channel-layernorm, "
      "gemm-to-conv, fold-conv-affine, merge-channel-affines, fold-flatten-into-fc, "
      "fuse-activations, or all)");
}

}  // namespace
}  // namespace npu::compiler
