// Shape inference: the op rules' shapes, index propagation through exporter shape chains, and
// the exact message for each kind of inconsistent input.
#include <gtest/gtest.h>

#include "npu/compiler/ir/shape_inference.h"
#include "test_support.h"

namespace npu::compiler {
namespace {

using testing::attrs;
using testing::errorOf;
using testing::GraphBuilder;

using Ints = std::vector<std::int64_t>;

/// The shape of the single output of a one-node graph over input x.
Shape outputShape(Shape x, OpKind op, Attributes a,
                  const std::function<std::vector<ValueId>(GraphBuilder&, ValueId)>& extra = {}) {
  GraphBuilder b;
  ValueId in = b.input("x", std::move(x));
  std::vector<ValueId> inputs{in};
  if (extra) {
    for (ValueId id : extra(b, in)) {
      inputs.push_back(id);
    }
  }
  Graph g = b.finish({b.node(op, "n", inputs, std::move(a))});
  return g.value(g.outputs()[0]).shape;
}

TEST(ShapeRules, ConvStridesPadsDilationsAndSamePadding) {
  auto weights = [](Shape w) {
    return [w](GraphBuilder& b, ValueId) { return std::vector<ValueId>{b.weights("w", w)}; };
  };
  EXPECT_EQ(outputShape({1, 3, 224, 224}, OpKind::Conv,
                        attrs({{"strides", Ints{2, 2}}, {"pads", Ints{3, 3, 3, 3}}}),
                        weights({64, 3, 7, 7})),
            (Shape{1, 64, 112, 112}));
  EXPECT_EQ(outputShape({1, 8, 10, 10}, OpKind::Conv,
                        attrs({{"dilations", Ints{2, 2}}, {"group", std::int64_t{8}}}),
                        weights({8, 1, 3, 3})),
            (Shape{1, 8, 6, 6}));
  EXPECT_EQ(outputShape({1, 4, 9, 9}, OpKind::Conv,
                        attrs({{"strides", Ints{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}}),
                        weights({4, 4, 3, 3})),
            (Shape{1, 4, 5, 5}));
}

TEST(ShapeRules, ConvTransposeAndPools) {
  EXPECT_EQ(outputShape({1, 4, 5, 5}, OpKind::ConvTranspose,
                        attrs({{"strides", Ints{2, 2}},
                               {"pads", Ints{1, 1, 1, 1}},
                               {"output_padding", Ints{1, 1}}}),
                        [](GraphBuilder& b, ValueId) {
                          return std::vector<ValueId>{b.weights("w", {4, 6, 3, 3})};
                        }),
            (Shape{1, 6, 10, 10}));
  EXPECT_EQ(outputShape({1, 2, 7, 7}, OpKind::MaxPool,
                        attrs({{"kernel_shape", Ints{2, 2}},
                               {"strides", Ints{2, 2}},
                               {"ceil_mode", std::int64_t{1}}})),
            (Shape{1, 2, 4, 4}));
  EXPECT_EQ(outputShape({1, 2, 7, 5}, OpKind::GlobalAveragePool, {}), (Shape{1, 2, 1, 1}));
}

TEST(ShapeRules, DataMovement) {
  EXPECT_EQ(outputShape({2, 3, 4}, OpKind::Transpose, attrs({{"perm", Ints{2, 0, 1}}})),
            (Shape{4, 2, 3}));
  EXPECT_EQ(outputShape({2, 3, 4}, OpKind::Flatten, attrs({{"axis", std::int64_t{2}}})),
            (Shape{6, 4}));
  EXPECT_EQ(outputShape({2, 3, 4}, OpKind::Reshape, {},
                        [](GraphBuilder& b, ValueId) {
                          return std::vector<ValueId>{b.ints("s", {0, -1})};
                        }),
            (Shape{2, 12}));
  EXPECT_EQ(outputShape({2, 1, 4}, OpKind::Unsqueeze, {},
                        [](GraphBuilder& b, ValueId) {
                          return std::vector<ValueId>{b.ints("axes", {0, -1})};
                        }),
            (Shape{1, 2, 1, 4, 1}));
  EXPECT_EQ(outputShape({2, 1, 4, 1}, OpKind::Squeeze, {}), (Shape{2, 4}));
  EXPECT_EQ(outputShape({1, 2, 8, 8}, OpKind::Slice, {},
                        [](GraphBuilder& b, ValueId) {
                          return std::vector<ValueId>{b.ints("starts", {-1}),
                                                      b.ints("ends", {-100}), b.ints("axes", {3}),
                                                      b.ints("steps", {-3})};
                        }),
            (Shape{1, 2, 8, 3}));
}

TEST(ShapeRules, ExporterShapeChainGivesTheReshapeTarget) {
  // x.view(x.size(0), -1) as PyTorch exports it.
  GraphBuilder b;
  ValueId x = b.input("x", {1, 8, 3, 3});
  ValueId shape = b.node(OpKind::Shape, "shape", {x});
  ValueId batch = b.node(OpKind::Gather, "gather", {shape, b.ints("zero", {0})},
                         attrs({{"axis", std::int64_t{0}}}));
  ValueId minusOne = b.ints("minus_one", {-1});
  ValueId target =
      b.node(OpKind::Concat, "concat", {batch, minusOne}, attrs({{"axis", std::int64_t{0}}}));
  ValueId flat = b.node(OpKind::Reshape, "reshape", {x, target});
  Graph g = b.finish({flat});
  EXPECT_EQ(g.value(flat).shape, (Shape{1, 72}));
  EXPECT_EQ(g.value(target).dtype, DType::Int64);
  InferredTypes types = inferGraph(g);
  ASSERT_NE(types[target].data, nullptr);
  EXPECT_EQ(types[target].data->toInt64(), (Ints{1, -1}));
}

TEST(ShapeRules, BadInputMessages) {
  auto message = [](Shape x, OpKind op, Attributes a,
                    const std::function<std::vector<ValueId>(GraphBuilder&, ValueId)>& extra) {
    return errorOf([&] { outputShape(x, op, a, extra); });
  };
  EXPECT_EQ(message({1, 3, 8, 8}, OpKind::Conv, {},
                    [](GraphBuilder& b, ValueId) {
                      return std::vector<ValueId>{b.weights("w", {8, 2, 3, 3})};
                    }),
            "test.onnx: node 'n' (Conv): input has 3 channels, weights [8, 2, 3, 3] expect 2 "
            "(group 1)");
  EXPECT_EQ(message({1, 3, 8}, OpKind::Conv, {},
                    [](GraphBuilder& b, ValueId) {
                      return std::vector<ValueId>{b.weights("w", {8, 3, 3})};
                    }),
            "test.onnx: node 'n' (Conv): input must have rank 4 (only 2-D spatial ops are "
            "supported), has shape [1, 3, 8]");
  EXPECT_EQ(message({1, 3, 4, 4}, OpKind::Add, {},
                    [](GraphBuilder& b, ValueId) {
                      return std::vector<ValueId>{b.weights("c", {1, 5, 1, 1})};
                    }),
            "test.onnx: node 'n' (Add): input shapes [1, 3, 4, 4] and [1, 5, 1, 1] do not "
            "broadcast");
  EXPECT_EQ(message({2, 3, 4}, OpKind::Reshape, {},
                    [](GraphBuilder& b, ValueId) {
                      return std::vector<ValueId>{b.ints("s", {5, -1})};
                    }),
            "test.onnx: node 'n' (Reshape): cannot reshape [2, 3, 4] to [5, -1]");
  EXPECT_EQ(message({1, 2, 4, 4}, OpKind::Concat, attrs({{"axis", std::int64_t{1}}}),
                    [](GraphBuilder& b, ValueId) {
                      return std::vector<ValueId>{b.weights("c", {1, 2, 4, 5})};
                    }),
            "test.onnx: node 'n' (Concat): input 1 has shape [1, 2, 4, 5], which does not "
            "concatenate with [1, 2, 4, 4] along axis 1");
  EXPECT_EQ(message({2, 3}, OpKind::MatMul, {},
                    [](GraphBuilder& b, ValueId) {
                      return std::vector<ValueId>{b.weights("w", {4, 5})};
                    }),
            "test.onnx: node 'n' (MatMul): shapes [2, 3] and [4, 5] do not multiply");
  EXPECT_EQ(
      message({1, 1, 2, 2}, OpKind::Resize, attrs({{"mode", std::string("cubic")}}),
              [](GraphBuilder& b, ValueId) {
                return std::vector<ValueId>{ValueId{}, b.constant("scales", {4}, {1, 1, 2, 2})};
              }),
      "test.onnx: node 'n' (Resize): mode 'cubic' is not supported (nearest and linear)");
  EXPECT_EQ(message({1, 1, 2, 2}, OpKind::Reshape, {},
                    [](GraphBuilder& b, ValueId x) {
                      return std::vector<ValueId>{b.node(OpKind::Relu, "computed", {x})};
                    }),
            "test.onnx: node 'n' (Reshape): the target shape (input 1) must be integers, is f32");
  EXPECT_EQ(message({1, 1, 2, 2}, OpKind::Reshape, {},
                    [](GraphBuilder& b, ValueId x) {
                      ValueId relu = b.node(OpKind::Relu, "computed", {x});
                      return std::vector<ValueId>{
                          b.node(OpKind::Cast, "cast", {relu}, attrs({{"to", std::int64_t{7}}}))};
                    }),
            "test.onnx: node 'n' (Reshape): the target shape (input 1) must be a constant or "
            "computable from static shapes");
}

}  // namespace
}  // namespace npu::compiler
