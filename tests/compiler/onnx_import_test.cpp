// ONNX import of hand-built models: every kind of bad input gives one exact message naming the
// file, the node and its op; never a crash.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <unistd.h>

#include <cmath>
#include <limits>
#include <string>

#include "npu/compiler/frontend/onnx_import.h"
#include "npu/compiler/interp/interpreter.h"
#include "npu/compiler/partition/partition.h"
#include "npu/compiler/passes/pipeline.h"
#include "npu/support/file_io.h"
#include "test_support.h"

namespace npu::compiler {
namespace {

using testing::errorOf;
using testing::sourcePath;

/// This process's own scratch folder: the same test run from another checkout at the same time
/// must not write the same files.
std::filesystem::path scratchDir() {
  return std::filesystem::path(::testing::TempDir()) /
         ("onnx_import_test-" + std::to_string(::getpid()));
}

/// A small model: input x [1, 2, 4, 4] -> Conv(w [3, 2, 1, 1]) -> Relu -> y.
class OnnxModel {
 public:
  OnnxModel() {
    m_model.set_ir_version(8);
    opset(13);
    onnx::GraphProto* g = m_model.mutable_graph();
    g->set_name("small");
    addInput("x", {1, 2, 4, 4});
    addWeight("w", {3, 2, 1, 1});
    addNode("Conv", "conv", {"x", "w"}, {"c"});
    addNode("Relu", "relu", {"c"}, {"y"});
    addOutput("y", {1, 3, 4, 4});
  }

  void opset(std::int64_t version) {
    m_model.clear_opset_import();
    auto* entry = m_model.add_opset_import();
    entry->set_domain("");
    entry->set_version(version);
  }

  void addInput(const std::string& name, const std::vector<std::int64_t>& dims,
                int type = onnx::TensorProto::FLOAT) {
    auto* input = m_model.mutable_graph()->add_input();
    input->set_name(name);
    auto* tensor = input->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(type);
    for (std::int64_t d : dims) {
      auto* dim = tensor->mutable_shape()->add_dim();
      if (d < 0) {
        dim->set_dim_param("N");
      } else {
        dim->set_dim_value(d);
      }
    }
  }

  void addOutput(const std::string& name, const std::vector<std::int64_t>& dims) {
    auto* output = m_model.mutable_graph()->add_output();
    output->set_name(name);
    auto* tensor = output->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    for (std::int64_t d : dims) {
      tensor->mutable_shape()->add_dim()->set_dim_value(d);
    }
  }

  onnx::TensorProto* addWeight(const std::string& name, const std::vector<std::int64_t>& dims) {
    onnx::TensorProto* t = m_model.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    std::int64_t count = 1;
    for (std::int64_t d : dims) {
      t->add_dims(d);
      count *= d;
    }
    for (std::int64_t i = 0; i < count; ++i) {
      t->add_float_data(0.1F * static_cast<float>(i % 7) - 0.3F);
    }
    return t;
  }

  onnx::NodeProto* addNode(const std::string& op, const std::string& name,
                           const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs) {
    onnx::NodeProto* n = m_model.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& in : inputs) {
      n->add_input(in);
    }
    for (const auto& out : outputs) {
      n->add_output(out);
    }
    return n;
  }

  /// A 0-d f32 initializer (an exporter's scalar constant: eps, 0.5, sqrt(2)).
  void addScalar(const std::string& name, float value) {
    onnx::TensorProto* t = addWeight(name, {});
    t->clear_float_data();
    t->add_float_data(value);
  }

  onnx::ModelProto& proto() { return m_model; }
  onnx::GraphProto& graph() { return *m_model.mutable_graph(); }

  /// Writes the model to a fresh folder and returns its path.
  std::filesystem::path write(const std::string& file = "model.onnx") const {
    std::filesystem::path dir =
        scratchDir() / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir);
    std::string bytes = m_model.SerializeAsString();
    writeBinaryFile(dir / file,
                    std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
    return dir / file;
  }

 private:
  onnx::ModelProto m_model;
};

std::string importError(const OnnxModel& model) {
  std::filesystem::path path = model.write();
  std::string message = errorOf([&] { importOnnx(path); });
  // Messages start with the path; compare them relative to it.
  std::string prefix = path.string();
  if (message.rfind(prefix, 0) == 0) {
    return "model.onnx" + message.substr(prefix.size());
  }
  return message;
}

TEST(OnnxImport, AWellFormedModelImports) {
  OnnxModel model;
  Graph g = importOnnx(model.write());
  EXPECT_EQ(g.name(), "small");
  EXPECT_EQ(g.value(g.outputs()[0]).shape, (Shape{1, 3, 4, 4}));
}

TEST(OnnxImport, SymbolicBatchIsOne) {
  OnnxModel model;
  model.graph()
      .mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_param("batch");
  Graph g = importOnnx(model.write());
  EXPECT_EQ(g.value(g.inputs()[0]).shape, (Shape{1, 2, 4, 4}));
}

TEST(OnnxImport, UnreadableFile) {
  std::filesystem::path missing = std::filesystem::path(::testing::TempDir()) / "nope.onnx";
  EXPECT_EQ(errorOf([&] { importOnnx(missing); }),
            missing.string() + ": cannot open for reading: No such file or directory");
}

TEST(OnnxImport, EmptyGarbageAndTruncatedFiles) {
  std::filesystem::path dir = scratchDir() / "bad_files";
  std::filesystem::create_directories(dir);
  writeTextFile(dir / "empty.onnx", "");
  EXPECT_EQ(errorOf([&] { importOnnx(dir / "empty.onnx"); }),
            (dir / "empty.onnx").string() + ": empty file, not an ONNX model");

  std::vector<std::uint8_t> real = readBinaryFile(sourcePath("tests/compiler/models/convnet.onnx"));
  real.resize(real.size() / 2);
  writeBinaryFile(dir / "truncated.onnx", real);
  EXPECT_EQ(errorOf([&] { importOnnx(dir / "truncated.onnx"); }),
            (dir / "truncated.onnx").string() +
                ": not a valid ONNX model (the protobuf does not parse: truncated or another "
                "format)");

  writeTextFile(dir / "text.onnx", "name: resnet\nlayers: []\n");
  std::string message = errorOf([&] { importOnnx(dir / "text.onnx"); });
  EXPECT_EQ(message.rfind((dir / "text.onnx").string() + ": not a valid ONNX model (", 0), 0U)
      << message;
}

TEST(OnnxImport, CorruptedFilesFailCleanly) {
  // Every truncation point and a spread of byte flips: each import either succeeds or throws
  // npu::Error; anything else (a crash, another exception) fails the test.
  std::vector<std::uint8_t> real = readBinaryFile(sourcePath("tests/compiler/models/shapes.onnx"));
  std::filesystem::create_directories(scratchDir());
  std::filesystem::path path = scratchDir() / "corrupt.onnx";
  int errors = 0;
  for (std::size_t cut = 1; cut < real.size(); cut += 97) {
    writeBinaryFile(path, std::span(real).first(cut));
    errors += errorOf([&] { importOnnx(path); }) != "(no error)";
  }
  std::uint32_t state = 12345;
  for (int variant = 0; variant < 300; ++variant) {
    std::vector<std::uint8_t> bytes = real;
    for (int flip = 0; flip < 3; ++flip) {
      state = state * 1664525U + 1013904223U;
      bytes[(state >> 8) % bytes.size()] ^= static_cast<std::uint8_t>(1U << (state % 8));
    }
    writeBinaryFile(path, bytes);
    errors += errorOf([&] { importOnnx(path); }) != "(no error)";
  }
  EXPECT_GT(errors, 0);
}

TEST(OnnxImport, MissingInitializer) {
  OnnxModel model;
  model.graph().mutable_initializer()->Clear();
  EXPECT_EQ(importError(model),
            "model.onnx: node 'conv' (Conv): input 'w' is not a graph input, an initializer or a "
            "node output (missing initializer?)");
}

TEST(OnnxImport, Cycle) {
  OnnxModel model;
  model.graph().mutable_node(0)->set_input(0, "y");  // conv reads relu's output
  EXPECT_EQ(importError(model),
            "model.onnx: node 'conv' (Conv): the graph has a cycle through this node");
}

TEST(OnnxImport, UnsupportedOpsAreListedTogether) {
  OnnxModel model;
  model.graph().mutable_node(1)->set_op_type("NonMaxSuppression");
  EXPECT_EQ(importError(model),
            "model.onnx: 1 node of 1 op type the compiler does not support: NonMaxSuppression "
            "(1 node, first 'relu')");
  // Every gap in one message: each op type once, with its node count and first node.
  model.addNode("TopK", "top1", {"y"}, {"t1"});
  model.addNode("NonMaxSuppression", "nms2", {"t1"}, {"t2"});
  model.addNode("TopK", "top2", {"t2"}, {"t3"});
  model.addNode("Einsum", "trace", {"t3", "t3"}, {"t4"});
  model.graph().mutable_node(5)->add_attribute()->set_name("equation");
  model.graph().mutable_node(5)->mutable_attribute(0)->set_s("ii,jj->");
  EXPECT_EQ(importError(model),
            "model.onnx: 5 nodes of 3 op types the compiler does not support: NonMaxSuppression "
            "(2 nodes, first 'relu'), TopK (2 nodes, first 'top1'), Einsum (only "
            "matrix-product equations such as 'bij,bjk->bik') (1 node, first 'trace')");
  OnnxModel custom;
  custom.graph().mutable_node(1)->set_domain("com.vendor");
  EXPECT_EQ(importError(custom),
            "model.onnx: 1 node of 1 op type the compiler does not support: com.vendor::Relu (1 "
            "node, first 'relu')");
}

TEST(OnnxImport, ErfAloneRunsOnItsOwnKernel) {
  OnnxModel model;
  model.graph().mutable_node(1)->set_op_type("Erf");
  Graph graph = importOnnx(model.write());
  EXPECT_EQ(testing::opSequence(graph), "Conv Erf");
}

TEST(OnnxImport, UnsupportedOpset) {
  OnnxModel model;
  model.opset(19);
  EXPECT_EQ(importError(model), "model.onnx: opset 19 is not supported (opsets 9-18)");
  model.proto().clear_opset_import();
  EXPECT_EQ(importError(model),
            "model.onnx: the model imports no version of the default ONNX opset");
}

TEST(OnnxImport, InconsistentShapes) {
  OnnxModel wrongOutput;
  wrongOutput.graph()
      .mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(5);
  EXPECT_EQ(importError(wrongOutput),
            "model.onnx: graph output 'y' is declared [1, 5, 4, 4], but the graph computes [1, 3, "
            "4, 4]");
  OnnxModel wrongWeights;
  wrongWeights.graph().mutable_initializer()->Clear();
  wrongWeights.addWeight("w", {3, 5, 1, 1});
  EXPECT_EQ(importError(wrongWeights),
            "model.onnx: node 'conv' (Conv): input has 2 channels, weights [3, 5, 1, 1] expect 5 "
            "(group 1)");
}

TEST(OnnxImport, BadInitializerData) {
  OnnxModel model;
  onnx::TensorProto* w = model.graph().mutable_initializer(0);
  w->clear_float_data();
  w->set_raw_data(std::string(10, '\0'));
  EXPECT_EQ(
      importError(model),
      "model.onnx: initializer 'w': raw data has 10 bytes, shape [3, 2, 1, 1] of f32 needs 24");
  w->clear_raw_data();
  w->add_float_data(1.0F);
  EXPECT_EQ(importError(model),
            "model.onnx: initializer 'w': has 1 values, shape [3, 2, 1, 1] needs 6");
  w->set_data_type(onnx::TensorProto::FLOAT16);
  EXPECT_EQ(
      importError(model),
      "model.onnx: initializer 'w': ONNX data type 10 is not supported (float, double, int64, "
      "int32, int8, uint8, bool)");
}

TEST(OnnxImport, ExternalData) {
  OnnxModel model;
  onnx::TensorProto* w = model.graph().mutable_initializer(0);
  w->clear_float_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = w->add_external_data();
  location->set_key("location");
  location->set_value("weights.bin");
  std::filesystem::path path = model.write();
  std::filesystem::remove(path.parent_path() / "weights.bin");  // from an earlier run
  EXPECT_EQ(errorOf([&] { importOnnx(path); }),
            path.string() + ": initializer 'w': cannot open external data file '" +
                (path.parent_path() / "weights.bin").string() + "'");
  writeTextFile(path.parent_path() / "weights.bin", "short");
  EXPECT_EQ(errorOf([&] { importOnnx(path); }),
            path.string() +
                ": initializer 'w': external data has 5 bytes, shape [3, 2, 1, 1] of "
                "f32 needs 24");
  std::vector<float> values(6, 0.5F);
  writeBinaryFile(path.parent_path() / "weights.bin",
                  std::span(reinterpret_cast<const std::uint8_t*>(values.data()), 24));
  EXPECT_EQ(errorOf([&] { importOnnx(path); }), "(no error)");
  location->set_value("../outside.bin");
  path = model.write();
  EXPECT_EQ(errorOf([&] { importOnnx(path); }),
            path.string() +
                ": initializer 'w': external data location '../outside.bin' is outside "
                "the model's folder");
}

TEST(OnnxImport, BadGraphInputs) {
  OnnxModel symbolic;
  symbolic.graph()
      .mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(2)
      ->set_dim_param("H");
  EXPECT_EQ(importError(symbolic),
            "model.onnx: graph input 'x' has a symbolic dimension 'H' at axis 2; only the batch "
            "axis may be symbolic");
  OnnxModel bytes;
  bytes.graph().mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::UINT8);
  EXPECT_EQ(importError(bytes),
            "model.onnx: graph input 'x' is not an f32, int64 or int32 tensor (only those inputs "
            "are supported)");
}

TEST(OnnxImport, TokenIdsAreIntegerInputsOfAnEmbeddingGather) {
  // A language model's input: int64 token ids [1, 3] gathered from an embedding table [5, 4].
  OnnxModel model;
  onnx::GraphProto& g = model.graph();
  g.clear_input();
  g.clear_node();
  g.clear_output();
  g.clear_initializer();
  model.addInput("ids", {1, 3}, onnx::TensorProto::INT64);
  model.addWeight("table", {5, 4});
  model.addNode("Gather", "embed", {"table", "ids"}, {"y"});
  model.addOutput("y", {1, 3, 4});
  const Graph graph = importOnnx(model.write());
  EXPECT_EQ(graph.value(graph.inputs().at(0)).dtype, DType::Int64);
  // Ids arrive as floats, like every sample, and run as the integers they are.
  const TensorMap out =
      interpret(graph, {{"ids", golden::FloatTensor{{1, 3}, {4.0F, 0.0F, 2.0F}}}});
  const golden::FloatTensor& y = out.at("y");
  ASSERT_EQ(y.shape, (Shape{1, 3, 4}));
  for (std::int64_t j = 0; j < 4; ++j) {
    // Row r of the table holds 0.1 * ((4r + j) % 7) - 0.3 (addWeight's pattern).
    EXPECT_FLOAT_EQ(y.data[static_cast<std::size_t>(j)],
                    0.1F * static_cast<float>((16 + j) % 7) - 0.3F);
    EXPECT_FLOAT_EQ(y.data[static_cast<std::size_t>(4 + j)],
                    0.1F * static_cast<float>(j % 7) - 0.3F);
  }
  EXPECT_EQ(errorOf([&] {
              interpret(graph, {{"ids", golden::FloatTensor{{1, 3}, {4.0F, 0.5F, 2.0F}}}});
            }),
            graph.source() + ": input 'ids' holds 0.5, not an integer within +-2^24");
  EXPECT_EQ(errorOf([&] {
              interpret(graph, {{"ids", golden::FloatTensor{{1, 3}, {4.0F, 1e30F, 2.0F}}}});
            }),
            graph.source() + ": input 'ids' holds 1e+30, not an integer within +-2^24");
  // int32 ids stay int32 (an exporter's other initializers and masks are int32 too).
  OnnxModel int32;
  int32.graph().clear_input();
  int32.graph().clear_node();
  int32.graph().clear_output();
  int32.graph().clear_initializer();
  int32.addInput("ids", {1, 3}, onnx::TensorProto::INT32);
  int32.addWeight("table", {5, 4});
  int32.addNode("Gather", "embed", {"table", "ids"}, {"y"});
  int32.addOutput("y", {1, 3, 4});
  const Graph graph32 = importOnnx(int32.write("int32.onnx"));
  EXPECT_EQ(graph32.value(graph32.inputs().at(0)).dtype, DType::Int32);
  EXPECT_EQ(
      interpret(graph32, {{"ids", golden::FloatTensor{{1, 3}, {4.0F, 0.0F, 2.0F}}}}).at("y").data,
      y.data);
}

TEST(OnnxImport, OutputNothingProduces) {
  OnnxModel model;
  model.graph().mutable_output(0)->set_name("z");
  EXPECT_EQ(importError(model), "model.onnx: graph output 'z' is not produced by any node");
}

TEST(OnnxImport, PadAndTileAmountsAreBounded) {
  // Found by the onnx fuzz campaign: a pad of 2^63 - 1 overflowed the padded size.
  for (const bool tile : {false, true}) {
    OnnxModel model;
    model.graph().clear_output();
    onnx::TensorProto* amounts = model.graph().add_initializer();
    amounts->set_name("amounts");
    amounts->set_data_type(onnx::TensorProto::INT64);
    amounts->add_dims(tile ? 4 : 8);
    for (int i = 0; i < (tile ? 4 : 8); ++i) {
      amounts->add_int64_data(i == 2 ? std::numeric_limits<std::int64_t>::max() : 1);
    }
    model.addNode(tile ? "Tile" : "Pad", "op", {"y", "amounts"}, {"z"});
    model.addOutput("z", {1, 3, 8, 8});
    EXPECT_EQ(importError(model),
              tile ? "model.onnx: node 'op' (Tile): repeat 9223372036854775807 along axis 2 is "
                     "outside [0, 268435456]"
                   : "model.onnx: node 'op' (Pad): pad 9223372036854775807 is outside "
                     "[-268435456, 268435456]");
  }
}

TEST(OnnxImport, GeluMatcherSkipsNodesWithoutOutputs) {
  // Found by the onnx fuzz campaign: an Erf after x / sqrt(2) with no output made the GELU
  // matcher index an empty output list.
  OnnxModel model;
  onnx::TensorProto* root2 = model.addWeight("sqrt2", {});
  root2->clear_float_data();
  root2->add_float_data(1.4142135F);
  model.addNode("Div", "div", {"y", "sqrt2"}, {"d"});
  model.addNode("Erf", "erf", {"d"}, {});
  const std::string error = importError(model);
  EXPECT_EQ(error.find("internal"), std::string::npos) << error;
}

TEST(OnnxImport, InferredShapesAreBoundedAsTheyAreInferred) {
  // A Tile by 2^26 rows: its output shape is refused at the node, before a Concat of two such
  // shapes (found by the onnx fuzz campaign) added dimensions past 2^63.
  OnnxModel model;
  model.graph().clear_output();
  onnx::TensorProto* repeats = model.graph().add_initializer();
  repeats->set_name("repeats");
  repeats->set_data_type(onnx::TensorProto::INT64);
  repeats->add_dims(4);
  for (const std::int64_t r :
       {std::int64_t{1}, std::int64_t{1}, std::int64_t{1} << 26, std::int64_t{1}}) {
    repeats->add_int64_data(r);
  }
  model.addNode("Tile", "tile", {"y", "repeats"}, {"t"});
  model.addNode("Concat", "cat", {"t", "t"}, {"z"})->add_attribute()->CopyFrom([] {
    onnx::AttributeProto axis;
    axis.set_name("axis");
    axis.set_type(onnx::AttributeProto::INT);
    axis.set_i(2);
    return axis;
  }());
  model.addOutput("z", {1, 3, 8, 4});
  EXPECT_EQ(importError(model),
            "model.onnx: node 'tile' (Tile): output 0 has shape [1, 3, 268435456, 4]: "
            "3221225472 elements, above the limit of 268435456 per tensor");
}

TEST(OnnxImport, BilinearUpsampleOfOpset9RunsOnTheNpu) {
  // Upsample (opset 9) in linear mode, which some exporters spell "bilinear": a Resize with
  // asymmetric coordinates, split into a row and a column pass, both placed on the NPU.
  for (const char* mode : {"linear", "bilinear"}) {
    OnnxModel model;
    model.opset(9);
    model.graph().clear_output();
    onnx::TensorProto* scales = model.addWeight("scales", {4});
    scales->clear_float_data();
    for (const float s : {1.0F, 1.0F, 2.0F, 3.0F}) {
      scales->add_float_data(s);
    }
    onnx::NodeProto* up = model.addNode("Upsample", "up", {"y", "scales"}, {"z"});
    onnx::AttributeProto* attribute = up->add_attribute();
    attribute->set_name("mode");
    attribute->set_type(onnx::AttributeProto::STRING);
    attribute->set_s(mode);
    model.addOutput("z", {1, 3, 8, 12});
    Graph graph = importOnnx(model.write());
    runFrontEndPasses(graph);
    const Partition partition = partitionGraph(graph);
    int linear = 0;
    for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
      if (graph.nodes()[n].op == OpKind::Resize) {
        EXPECT_EQ(partition.npuKind[n], NpuOpKind::ResizeLinear) << mode;
        ++linear;
      }
    }
    EXPECT_EQ(linear, 2) << mode;
  }
}

TEST(OnnxImport, ChannelLayerNormDecompositionBecomesOneNpuNode) {
  // y = (c - mean) / sqrt(var + eps) over axis 1, as an opset-13 export spells a LayerNorm:
  // fuse-channel-layernorm makes it one ChannelLayerNorm, which the NPU runs (NORM). When the
  // centred values are also a graph output, the Sub is mean - x, the mean drops the axis
  // (keepdims 0) or it is over another axis, the chain stays as it is.
  enum class Variant { Plain, ExtraReader, SwappedSub, KeepdimsZero, OtherAxis };
  for (const Variant variant : {Variant::Plain, Variant::ExtraReader, Variant::SwappedSub,
                                Variant::KeepdimsZero, Variant::OtherAxis}) {
    const bool extraReader = variant == Variant::ExtraReader;
    OnnxModel model;
    model.graph().clear_output();
    onnx::AttributeProto channelAxis;
    channelAxis.set_name("axes");
    channelAxis.set_type(onnx::AttributeProto::INTS);
    channelAxis.add_ints(variant == Variant::OtherAxis ? 2 : 1);
    onnx::NodeProto* mean = model.addNode("ReduceMean", "mean", {"y"}, {"m"});
    mean->add_attribute()->CopyFrom(channelAxis);
    if (variant == Variant::KeepdimsZero) {
      onnx::AttributeProto* keep = mean->add_attribute();
      keep->set_name("keepdims");
      keep->set_type(onnx::AttributeProto::INT);
      keep->set_i(0);
    }
    if (variant == Variant::SwappedSub) {
      model.addNode("Sub", "sub", {"m", "y"}, {"d"});  // mean - x: not a LayerNorm's
    } else {
      model.addNode("Sub", "sub", {"y", "m"}, {"d"});
    }
    onnx::TensorProto* two = model.addWeight("two", {});
    two->clear_float_data();
    two->add_float_data(2.0F);
    model.addNode("Pow", "pow", {"d", "two"}, {"sq"});
    model.addNode("ReduceMean", "var", {"sq"}, {"v"})->add_attribute()->CopyFrom(channelAxis);
    onnx::TensorProto* eps = model.addWeight("eps", {});
    eps->clear_float_data();
    eps->add_float_data(1e-6F);
    model.addNode("Add", "add", {"v", "eps"}, {"ve"});
    model.addNode("Sqrt", "sqrt", {"ve"}, {"sd"});
    model.addNode("Div", "div", {"d", "sd"}, {"z"});
    model.addOutput("z", {1, 3, 4, 4});
    if (extraReader) {
      model.addOutput("d", {1, 3, 4, 4});
    }
    Graph graph = importOnnx(model.write());
    runFrontEndPasses(graph);
    const Partition partition = partitionGraph(graph);
    int fused = 0;
    for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
      if (graph.nodes()[n].op == OpKind::ChannelLayerNorm) {
        EXPECT_EQ(partition.npuKind[n], NpuOpKind::LayerNorm);
        EXPECT_FLOAT_EQ(graph.nodes()[n].attributes.getFloat("epsilon", 0.0F), 1e-6F);
        ++fused;
      }
    }
    EXPECT_EQ(fused, variant == Variant::Plain ? 1 : 0) << static_cast<int>(variant);
  }
}

TEST(OnnxImport, RmsNormChainsBecomeOneNpuNorm) {
  // Llama's RMSNorm over the last axis of tokens [1, 6, 8], as exporters spell it:
  // fuse-rms-norm makes one RMSNormalization (weight included), lift-token-tensors a
  // ChannelRmsNorm on the twin, which the NPU runs (NORM op 2). Each variant's fp32 result is
  // the unfused graph's. A mean square that is also a graph output, a mean that drops the axis
  // or a Div of another value than x keep the chain as it is.
  enum class Variant { DivSqrt, Rsqrt, Reciprocal, ExtraReader, KeepdimsZero, OtherNumerator };
  for (const Variant variant :
       {Variant::DivSqrt, Variant::Rsqrt, Variant::Reciprocal, Variant::ExtraReader,
        Variant::KeepdimsZero, Variant::OtherNumerator}) {
    const auto name = static_cast<int>(variant);
    OnnxModel model;
    model.graph().clear_node();
    model.graph().clear_input();
    model.graph().clear_output();
    model.graph().clear_initializer();
    model.addInput("t", {1, 6, 8});
    model.addWeight("w", {8});
    model.addNode("MatMul", "proj", {"t", "w_in"}, {"x"});
    model.addWeight("w_in", {8, 8});
    auto scalar = [&](const std::string& name, float value) { model.addScalar(name, value); };
    scalar("two", 2.0F);
    scalar("eps", 1e-5F);
    scalar("one", 1.0F);
    onnx::AttributeProto lastAxis;
    lastAxis.set_name("axes");
    lastAxis.set_type(onnx::AttributeProto::INTS);
    lastAxis.add_ints(-1);
    if (variant == Variant::Rsqrt) {
      model.addNode("Mul", "square", {"x", "x"}, {"sq"});
    } else {
      model.addNode("Pow", "square", {"x", "two"}, {"sq"});
    }
    onnx::NodeProto* mean = model.addNode("ReduceMean", "mean", {"sq"}, {"ms"});
    mean->add_attribute()->CopyFrom(lastAxis);
    if (variant == Variant::KeepdimsZero) {
      onnx::AttributeProto* keep = mean->add_attribute();
      keep->set_name("keepdims");
      keep->set_type(onnx::AttributeProto::INT);
      keep->set_i(0);
      model.addNode("Unsqueeze", "keep", {"ms", "axis"}, {"ms1"});
      onnx::TensorProto* axis = model.addWeight("axis", {1});
      axis->set_data_type(onnx::TensorProto::INT64);
      axis->clear_float_data();
      axis->add_int64_data(-1);
      model.addNode("Add", "add", {"ms1", "eps"}, {"mse"});
    } else {
      model.addNode("Add", "add", {"eps", "ms"}, {"mse"});
    }
    model.addNode("Sqrt", "sqrt", {"mse"}, {"rms"});
    if (variant == Variant::Rsqrt) {
      model.addNode("Div", "rsqrt", {"one", "rms"}, {"inv"});
      model.addNode("Mul", "normalise", {"inv", "x"}, {"n"});
    } else if (variant == Variant::Reciprocal) {
      model.addNode("Reciprocal", "rsqrt", {"rms"}, {"inv"});
      model.addNode("Mul", "normalise", {"x", "inv"}, {"n"});
    } else if (variant == Variant::OtherNumerator) {
      model.addNode("Div", "normalise", {"t", "rms"}, {"n"});
    } else {
      model.addNode("Div", "normalise", {"x", "rms"}, {"n"});
    }
    model.addNode("Mul", "weight", {"w", "n"}, {"y"});
    model.addNode("MatMul", "out", {"y", "w_in"}, {"z"});
    model.addOutput("z", {1, 6, 8});
    if (variant == Variant::ExtraReader) {
      model.addOutput("ms", {1, 6, 1});
    }
    const Graph imported = importOnnx(model.write());
    Graph graph = imported;
    runFrontEndPasses(graph);
    const Partition partition = partitionGraph(graph);
    int fused = 0;
    for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
      if (graph.nodes()[n].op == OpKind::ChannelRmsNorm) {
        EXPECT_EQ(partition.npuKind[n], NpuOpKind::RmsNorm) << name;
        EXPECT_EQ(partition.device[n], Device::Npu) << name;
        EXPECT_FLOAT_EQ(graph.nodes()[n].attributes.getFloat("epsilon", 0.0F), 1e-5F);
        ++fused;
      }
    }
    const bool fuses =
        variant == Variant::DivSqrt || variant == Variant::Rsqrt || variant == Variant::Reciprocal;
    EXPECT_EQ(fused, fuses ? 1 : 0) << name;
    golden::FloatTensor t{{1, 6, 8}, std::vector<float>(48)};
    for (std::size_t i = 0; i < t.data.size(); ++i) {
      t.data[i] = std::sin(0.7F * static_cast<float>(i)) * (1.0F + static_cast<float>(i % 5));
    }
    const golden::FloatTensor before = interpret(imported, {{"t", t}}).at("z");
    const golden::FloatTensor after = interpret(graph, {{"t", t}}).at("z");
    ASSERT_EQ(after.shape, before.shape);
    for (std::size_t i = 0; i < before.data.size(); ++i) {
      EXPECT_NEAR(after.data[i], before.data[i], 1e-4F * (1.0F + std::fabs(before.data[i])))
          << name << " at " << i;
    }
  }
}

TEST(OnnxImport, TheInternalChannelRmsNormIsNotAnOnnxOp) {
  OnnxModel model;
  model.addNode("ChannelRmsNorm", "crn", {"y"}, {"z"});
  EXPECT_EQ(importError(model),
            "model.onnx: 1 node of 1 op type the compiler does not support: ChannelRmsNorm "
            "(the compiler's internal op, not an ONNX op) (1 node, first 'crn')");
}

TEST(OnnxImport, TheInternalChannelLayerNormIsNotAnOnnxOp) {
  // ChannelLayerNorm is made by fuse-channel-layernorm; a file that names it is refused (and
  // the QDQ export never writes it).
  OnnxModel model;
  model.addNode("ChannelLayerNorm", "cln", {"y"}, {"z"});
  EXPECT_EQ(importError(model),
            "model.onnx: 1 node of 1 op type the compiler does not support: ChannelLayerNorm "
            "(the compiler's internal op, not an ONNX op) (1 node, first 'cln')");
}

TEST(OnnxImport, GeluPatternVariantsBecomeOneNode) {
  // x * 0.5 * (1 + erf(x / sqrt(2))) with the 0.5 applied first.
  OnnxModel model;
  model.graph().mutable_node()->RemoveLast();  // drop the Relu
  model.graph().mutable_output(0)->set_name("y");
  auto scalar = [&](const std::string& name, float v) { model.addScalar(name, v); };
  scalar("sqrt2", 1.4142135F);
  scalar("one", 1.0F);
  scalar("half", 0.5F);
  model.addNode("Mul", "half_x", {"c", "half"}, {"hx"});
  model.addNode("Div", "div", {"c", "sqrt2"}, {"d"});
  model.addNode("Erf", "erf", {"d"}, {"e"});
  model.addNode("Add", "add", {"one", "e"}, {"a"});
  model.addNode("Mul", "gelu", {"hx", "a"}, {"y"});
  Graph g = importOnnx(model.write());
  EXPECT_EQ(testing::opSequence(g), "Conv Gelu");
}

TEST(OnnxImport, GeluTanhFormBecomesOneNode) {
  // GPT-2's gelu_new: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), as torch exports
  // it. The same chain with another coefficient, or a Tanh alone, stays as it is.
  for (const float coefficient : {0.044715F, 0.05F}) {
    OnnxModel model;
    model.graph().mutable_node()->RemoveLast();  // drop the Relu
    model.graph().mutable_output(0)->set_name("y");
    auto scalar = [&](const std::string& name, float v) { model.addScalar(name, v); };
    scalar("three", 3.0F);
    scalar("coefficient", coefficient);
    scalar("scale", 0.7978846F);
    scalar("one", 1.0F);
    scalar("half", 0.5F);
    model.addNode("Mul", "half_x", {"c", "half"}, {"hx"});
    model.addNode("Pow", "pow", {"c", "three"}, {"cube"});
    model.addNode("Mul", "mul_1", {"coefficient", "cube"}, {"cube_term"});
    model.addNode("Add", "add_1", {"c", "cube_term"}, {"inner"});
    model.addNode("Mul", "mul_2", {"scale", "inner"}, {"argument"});
    model.addNode("Tanh", "tanh", {"argument"}, {"t"});
    model.addNode("Add", "add_2", {"one", "t"}, {"bracket"});
    model.addNode("Mul", "gelu", {"hx", "bracket"}, {"y"});
    const Graph g = importOnnx(model.write());
    if (coefficient == 0.044715F) {
      EXPECT_EQ(testing::opSequence(g), "Conv Gelu");
      EXPECT_EQ(g.nodes().back().attributes.getString("approximate", "none"), "tanh");
    } else {
      EXPECT_EQ(testing::opSequence(g), "Conv Mul Pow Mul Add Mul Tanh Add Mul");
    }
  }
}

TEST(OnnxImport, HugeDimensionsAreRefusedAsTheyAreRead) {
  // Found by the onnx fuzz target: a dimension of 2^63 - 1 reached shape inference, whose window
  // arithmetic overflowed. Graph inputs and initializers are bounded when read, each dimension
  // too (an empty tensor's other dimensions are otherwise unchecked).
  constexpr std::int64_t kHuge = std::numeric_limits<std::int64_t>::max();
  OnnxModel wideInput;
  wideInput.graph()
      .mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(3)
      ->set_dim_value(kHuge);
  EXPECT_EQ(importError(wideInput),
            "model.onnx: graph input 'x' has shape [1, 2, 4, 9223372036854775807]: more elements "
            "than fit in 64 bits");
  OnnxModel emptyWeight;
  onnx::TensorProto* e = emptyWeight.addWeight("e", {0, 1});
  e->set_dims(1, kHuge);
  EXPECT_EQ(importError(emptyWeight),
            "model.onnx: initializer 'e' has shape [0, 9223372036854775807]: dimension "
            "9223372036854775807 is above the limit of 268435456 per tensor");
}

TEST(OnnxImport, ConvAttributesAreBounded) {
  OnnxModel model;
  auto* pads = model.graph().mutable_node(0)->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (std::int64_t p : {std::int64_t{0}, std::int64_t{0}, std::numeric_limits<std::int64_t>::max(),
                         std::int64_t{0}}) {
    pads->add_ints(p);
  }
  EXPECT_EQ(importError(model),
            "model.onnx: node 'conv' (Conv): attribute 'pads' = 9223372036854775807 is above the "
            "limit of 16777216");
}

TEST(OnnxImport, ReshapeTargetsThatOverflowAreRefused) {
  // Found by the onnx fuzz target: the product of the target's dimensions wrapped around.
  OnnxModel model;
  onnx::TensorProto* shape = model.graph().add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(3);
  for (std::int64_t d : {std::int64_t{1} << 48, std::int64_t{1} << 40, std::int64_t{-1}}) {
    shape->add_int64_data(d);
  }
  model.graph().mutable_node(1)->set_op_type("Reshape");
  model.graph().mutable_node(1)->add_input("shape");
  EXPECT_EQ(importError(model),
            "model.onnx: node 'relu' (Reshape): shape [281474976710656, 1099511627776, 1] has "
            "more elements than fit in 64 bits");
}

TEST(OnnxImport, OmittedInputsOfPatternNodesAreNamed) {
  // Found by the onnx fuzz target: an Erf whose input is the empty (omitted) name made the GELU
  // matcher look up an invalid value and throw std::out_of_range past every handler.
  OnnxModel model;
  model.graph().mutable_node(1)->set_op_type("Erf");
  model.graph().mutable_node(1)->set_input(0, "");
  EXPECT_EQ(importError(model), "model.onnx: node 'relu' (Erf): expects 1 inputs, has 0");
}

}  // namespace
}  // namespace npu::compiler
