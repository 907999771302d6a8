// The IR: graph edits, the verifier's messages, the dump format, uses, attributes, tensor data.
#include <gtest/gtest.h>

#include "npu/compiler/ir/dump.h"
#include "npu/compiler/ir/verify.h"
#include "test_support.h"

namespace npu::compiler {
namespace {

using testing::attrs;
using testing::errorOf;
using testing::GraphBuilder;

Graph smallGraph() {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 4, 4});
  ValueId w = b.weights("w", {3, 2, 1, 1});
  ValueId conv = b.node(OpKind::Conv, "conv", {x, w});
  ValueId relu = b.node(OpKind::Relu, "relu", {conv});
  return b.finish({relu});
}

TEST(Verifier, AcceptsAWellFormedGraph) {
  Graph g = smallGraph();
  EXPECT_EQ(errorOf([&] { verifyGraph(g); }), "(no error)");
}

TEST(Verifier, DuplicateValueName) {
  Graph g("g", "m.onnx");
  g.addIntermediate("x");
  EXPECT_EQ(errorOf([&] { g.addIntermediate("x"); }), "m.onnx: duplicate value name 'x'");
}

TEST(Verifier, ReadBeforeProduced) {
  Graph g = smallGraph();
  std::swap(g.nodes()[0], g.nodes()[1]);
  EXPECT_EQ(errorOf([&] { verifyGraph(g); }),
            "test.onnx: node 'relu' (Relu): reads 'conv' before node 'conv' produces it (a cycle "
            "or nodes out of order)");
}

TEST(Verifier, DanglingInput) {
  Graph g = smallGraph();
  ValueId orphan = g.addIntermediate("orphan");
  g.value(orphan).typed = true;
  g.nodes()[1].inputs[0] = orphan;
  EXPECT_EQ(errorOf([&] { verifyGraph(g); }),
            "test.onnx: node 'relu' (Relu): reads 'orphan', which is not an input, a constant or "
            "a node output");
}

TEST(Verifier, ValueProducedTwice) {
  Graph g = smallGraph();
  g.nodes()[1].outputs[0] = g.nodes()[0].outputs[0];
  EXPECT_EQ(errorOf([&] { verifyGraph(g); }),
            "test.onnx: node 'relu' (Relu): output 'conv' is also produced by node 'conv'");
}

TEST(Verifier, DuplicateNodeName) {
  Graph g = smallGraph();
  g.nodes()[1].name = "conv";
  EXPECT_EQ(errorOf([&] { verifyGraph(g); }), "test.onnx: node 'conv' (Relu): duplicate node name");
}

TEST(Verifier, UntypedValue) {
  Graph g = smallGraph();
  g.value(g.nodes()[0].outputs[0]).typed = false;
  EXPECT_EQ(errorOf([&] { verifyGraph(g); }), "test.onnx: value 'conv' has no type");
}

TEST(Verifier, ConstantSizeMismatch) {
  Graph g = smallGraph();
  g.value(g.nodes()[0].inputs[1]).shape = {3, 2, 2, 1};
  EXPECT_EQ(errorOf([&] { verifyGraph(g); }),
            "test.onnx: constant 'w' has 6 elements, its shape [3, 2, 2, 1] needs 12");
}

TEST(Verifier, ShapeDisagreesWithTheOpRule) {
  Graph g = smallGraph();
  g.value(g.nodes()[1].outputs[0]).shape = {1, 3, 4, 5};
  EXPECT_EQ(errorOf([&] { verifyGraph(g); }),
            "test.onnx: node 'relu' (Relu): output 'relu' is f32[1, 3, 4, 5], but the op rule "
            "infers f32[1, 3, 4, 4]");
}

TEST(Verifier, OutputNeverProduced) {
  Graph g = smallGraph();
  ValueId lost = g.addIntermediate("lost");
  g.addOutput(lost);
  EXPECT_EQ(errorOf([&] { verifyGraph(g); }), "test.onnx: graph output 'lost' is never produced");
}

TEST(Dump, ShowsInputsConstantsNodesAndOutputs) {
  GraphBuilder b;
  ValueId x = b.input("x", {1, 2, 4, 4});
  ValueId w = b.weights("w", {3, 2, 3, 3});
  ValueId shape = b.ints("shape", {1, -1});
  ValueId conv = b.node(OpKind::Conv, "conv", {x, w}, attrs({{"group", std::int64_t{1}}}));
  ValueId flat = b.node(OpKind::Reshape, "flat", {conv, shape});
  Graph g = b.finish({flat});
  EXPECT_EQ(dumpGraph(g),
            "graph test (2 nodes)\n"
            "  input  %x: f32[1, 2, 4, 4]\n"
            "  const  %w: f32[3, 2, 3, 3]\n"
            "  const  %shape: i64[2] = [1, -1]\n"
            "  %conv: f32[1, 3, 2, 2] = Conv[conv](%x, %w) {group=1}\n"
            "  %flat: f32[1, 12] = Reshape[flat](%conv, %shape)\n"
            "  output %flat: f32[1, 12]\n");
}

TEST(Uses, ProducersConsumersAndSingleUse) {
  GraphBuilder b;
  ValueId x = b.input("x", {4});
  ValueId a = b.node(OpKind::Relu, "a", {x});
  ValueId s = b.node(OpKind::Add, "s", {a, a});
  ValueId t = b.node(OpKind::Sigmoid, "t", {s});
  Graph g = b.finish({t, s});
  Uses uses(g);
  EXPECT_EQ(uses.producer(a), 0U);
  EXPECT_FALSE(uses.producer(x).has_value());
  ASSERT_EQ(uses.consumers(a).size(), 1U);
  EXPECT_FALSE(uses.hasSingleUse(a)) << "read twice by the same node";
  EXPECT_FALSE(uses.hasSingleUse(s)) << "a graph output";
  EXPECT_TRUE(uses.hasSingleUse(x));
}

TEST(Graph, RemoveUnusedValuesRenumbers) {
  Graph g = smallGraph();
  g.addConstant("unused", {1}, TensorData(std::vector<float>{1.0F}));
  std::size_t before = g.valueCount();
  g.removeUnusedValues();
  EXPECT_EQ(g.valueCount(), before - 1);
  EXPECT_FALSE(g.findValue("unused").has_value());
  EXPECT_EQ(errorOf([&] { verifyGraph(g); }), "(no error)");
  EXPECT_EQ(g.value(g.outputs()[0]).name, "relu");
}

TEST(Graph, UniqueNames) {
  Graph g = smallGraph();
  EXPECT_EQ(g.uniqueValueName("conv"), "conv_1");
  EXPECT_EQ(g.uniqueValueName("fresh"), "fresh");
  EXPECT_EQ(g.uniqueNodeName("relu"), "relu_1");
}

TEST(Attributes, TypedGettersAndErrors) {
  Attributes a = attrs({{"group", std::int64_t{2}}, {"mode", std::string("nearest")}});
  EXPECT_EQ(a.getInt("group", 1), 2);
  EXPECT_EQ(a.getInt("absent", 7), 7);
  EXPECT_EQ(a.getFloat("group", 0.0F), 2.0F) << "ints read as floats";
  EXPECT_EQ(errorOf([&] { a.getInts("mode"); }),
            "attribute 'mode' is a string, expected a list of ints");
}

TEST(TensorData, CastGatherAndTypeChecks) {
  TensorData d(std::vector<std::int64_t>{3, -1, 7});
  EXPECT_EQ(d.castTo(DType::Float32).floats()[1], -1.0F);
  std::vector<std::int64_t> picks{2, 0};
  EXPECT_EQ(d.gather(picks).toInt64(), (std::vector<std::int64_t>{7, 3}));
  EXPECT_EQ(errorOf([&] { d.floats(); }), "tensor data is i64, not f32");
}

}  // namespace
}  // namespace npu::compiler
