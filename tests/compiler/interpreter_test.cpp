// The fp32 interpreter: dispatch to the golden ops, the per-tensor hook, integer shape chains at
// run time, fused epilogues, and input errors.
#include <gtest/gtest.h>

#include "npu/compiler/interp/interpreter.h"
#include "npu/golden/fp32_ops.h"
#include "test_support.h"

namespace npu::compiler {
namespace {

using testing::attrs;
using testing::errorOf;
using testing::GraphBuilder;
using testing::pattern;
using testing::runSingle;

using Ints = std::vector<std::int64_t>;

TEST(Interpreter, DispatchesToTheGoldenOps) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 5, 5});
  ValueId w = b.weights("w", {3, 2, 3, 3});
  ValueId bias = b.weights("b", {3}, 9);
  ValueId conv = b.node(OpKind::Conv, "conv", {x, w, bias},
                        attrs({{"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}}));
  ValueId pool = b.node(OpKind::MaxPool, "pool", {conv}, attrs({{"kernel_shape", Ints{2, 2}}}));
  Graph g = b.finish({b.node(OpKind::Sigmoid, "sig", {pool})});

  golden::FloatTensor input = pattern({1, 2, 5, 5});
  golden::Conv2dParams cp;
  cp.pads = {1, 1, 1, 1};
  cp.strides = {2, 2};
  golden::FloatTensor wt{{3, 2, 3, 3}, pattern({3, 2, 3, 3}, 7).data};
  golden::FloatTensor expected = golden::conv2d(input, wt, pattern({3}, 9).data, cp);
  golden::Pool2dParams pp;
  pp.kernel = {2, 2};
  expected = golden::sigmoid(golden::maxPool2d(expected, pp));
  EXPECT_EQ(runSingle(g, input).data, expected.data);
}

TEST(Interpreter, HookSeesEveryValueInOrder) {
  GraphBuilder b;
  ValueId x = b.input("x", {4});
  ValueId r = b.node(OpKind::Relu, "r", {x});
  ValueId t = b.node(OpKind::Tanh, "t", {r});
  Graph g = b.finish({t});
  std::vector<std::string> seen;
  std::vector<float> firstValues;
  interpret(g, {{"x", golden::FloatTensor{{4}, {-1, 0, 1, 2}}}},
            [&](const Value& v, const golden::FloatTensor& tensor) {
              seen.push_back(v.name);
              firstValues.push_back(tensor.data[0]);
            });
  EXPECT_EQ(seen, (std::vector<std::string>{"x", "r", "t"}));
  EXPECT_EQ(firstValues, (std::vector<float>{-1, 0, 0}));
}

TEST(Interpreter, RunsIntegerShapeChains) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 3, 2});
  ValueId shape = b.node(OpKind::Shape, "shape", {x});
  ValueId batch = b.node(OpKind::Gather, "gather", {shape, b.ints("zero", {0})});
  ValueId target = b.node(OpKind::Concat, "concat", {batch, b.ints("rest", {-1})},
                          attrs({{"axis", std::int64_t{0}}}));
  ValueId flat = b.node(OpKind::Reshape, "reshape", {x, target});
  Graph g = b.finish({flat});
  golden::FloatTensor input = pattern({2, 3, 2});
  golden::FloatTensor out = runSingle(g, input);
  EXPECT_EQ(out.shape, (Shape{2, 6}));
  EXPECT_EQ(out.data, input.data);
}

TEST(Interpreter, FusedEpilogueEqualsTheSeparateActivation) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 4, 4});
  ValueId w = b.weights("w", {2, 2, 1, 1});
  ValueId conv = b.node(OpKind::Conv, "conv", {x, w},
                        attrs({{"activation", std::string("Clip")},
                               {"activation_min", -0.1F},
                               {"activation_max", 0.2F}}));
  Graph fused = b.finish({conv});
  GraphBuilder s;
  ValueId sx = s.input("x", {1, 2, 4, 4});
  ValueId sc = s.node(OpKind::Conv, "conv", {sx, s.weights("w", {2, 2, 1, 1})});
  ValueId clip = s.node(OpKind::Clip, "clip",
                        {sc, s.constant("lo", {}, {-0.1F}), s.constant("hi", {}, {0.2F})});
  Graph separate = s.finish({clip});
  golden::FloatTensor input = pattern({1, 2, 4, 4}, 3);
  EXPECT_EQ(runSingle(fused, input).data, runSingle(separate, input).data);
}

TEST(Interpreter, LegacySoftmaxNormalisesTheFlattenedTail) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 3});
  Graph g =
      b.finish({b.node(OpKind::Softmax, "sm", {x},
                       attrs({{"axis", std::int64_t{1}}, {"flatten_to_2d", std::int64_t{1}}}))});
  golden::FloatTensor out = runSingle(g, pattern({1, 2, 3}));
  float sum = 0.0F;
  for (float v : out.data) {
    sum += v;
  }
  EXPECT_NEAR(sum, 1.0F, 1e-6F) << "all 6 values form one distribution";
}

TEST(Interpreter, InputErrors) {
  GraphBuilder b;
  ValueId x = b.input("x", {2});
  Graph g = b.finish({b.node(OpKind::Relu, "r", {x})});
  EXPECT_EQ(errorOf([&] { interpret(g, {}); }), "test.onnx: no tensor given for graph input 'x'");
  EXPECT_EQ(errorOf([&] {
              interpret(g, {{"x", golden::FloatTensor{{3}, {1, 2, 3}}}});
            }),
            "test.onnx: input 'x' has shape [3] (3 values), the graph expects [2]");
  EXPECT_EQ(errorOf([&] {
              interpret(g, {{"x", golden::FloatTensor{{2}, {1, 2}}},
                            {"y", golden::FloatTensor{{2}, {1, 2}}}});
            }),
            "test.onnx: the graph has no input named 'y'");
}

TEST(Interpreter, KernelErrorsNameTheNode) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 1, 2, 2});
  ValueId pads = b.ints("pads", {0, 0, 3, 0, 0, 0, 0, 0});
  Graph g =
      b.finish({b.node(OpKind::Pad, "pad", {x, pads}, attrs({{"mode", std::string("reflect")}}))});
  std::string message = errorOf([&] { runSingle(g, pattern({1, 1, 2, 2})); });
  EXPECT_EQ(message.rfind("test.onnx: node 'pad' (Pad): ", 0), 0U) << message;
}

}  // namespace
}  // namespace npu::compiler
