// YAML graph specs: wiring, blocks, seeded and .npy weights, BN statistics that keep activations
// in range, and an exact message for each kind of bad spec.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "npu/compiler/frontend/yaml_import.h"
#include "npu/compiler/ir/op_params.h"
#include "npu/compiler/passes/pipeline.h"
#include "npu/support/file_io.h"
#include "test_support.h"

namespace npu::compiler {
namespace {

using testing::errorOf;
using testing::opSequence;
using testing::relativeError;
using testing::runSingle;

const char* kResNetStage = R"(
name: stage
seed: 3
inputs:
  x: [1, 8, 16, 16]
blocks:
  basic:
    params: {channels: 8, stride: 1}
    layers:
      - {name: conv1, op: Conv, out_channels: $channels, kernel: 3, stride: $stride, pad: 1, bias: false}
      - {name: bn1, op: BatchNormalization}
      - {name: relu1, op: Relu}
      - {name: conv2, op: Conv, out_channels: $channels, kernel: 3, pad: 1, bias: false}
      - {name: bn2, op: BatchNormalization}
      - {name: add, op: Add, inputs: [bn2, $input]}
      - {name: out, op: Relu}
layers:
  - {name: stem, op: Conv, out_channels: 8, kernel: 3, pad: 1, activation: relu}
  - {name: layer1, block: basic, repeat: 2}
  - {name: pool, op: GlobalAveragePool}
  - {name: flat, op: Flatten}
  - {name: fc, op: Linear, out_features: 10}
)";

std::filesystem::path tempDir() {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                              ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(dir);
  return dir;
}

Graph parse(const std::string& text, const std::filesystem::path& dir = ".") {
  return parseGraphYaml(text, "net.yaml", dir);
}

std::string yamlError(const std::string& text, const std::filesystem::path& dir = ".") {
  return errorOf([&] { parse(text, dir); });
}

TEST(YamlImport, MatMulOfTwoInputsAndOfTokens) {
  // Tokens [1, T, K] by generated weights, then the MatMul of two activations (attention).
  const Graph g = parse(
      "inputs: {x: [1, 4, 8]}\n"
      "layers:\n"
      "  - {name: a, op: MatMul, out_features: 6}\n"
      "  - {name: t, op: Transpose, perm: [0, 2, 1]}\n"
      "  - {name: b, op: MatMul, inputs: [a, t]}\n");
  EXPECT_EQ(g.value(*g.findValue("a")).shape, (Shape{1, 4, 6}));
  EXPECT_EQ(g.value(*g.findValue("b")).shape, (Shape{1, 4, 4}));
  EXPECT_EQ(yamlError("inputs: {x: [1, 4, 8]}\n"
                      "layers:\n"
                      "  - {name: b, op: MatMul, inputs: [x, x], out_features: 3}\n"),
            "net.yaml:3: layer 'b' (MatMul): a MatMul of two inputs takes no 'out_features' or "
            "'weights'");
  EXPECT_EQ(yamlError("inputs: {x: [1, 4, 8]}\n"
                      "layers:\n"
                      "  - {name: a, op: MatMul, out_features: 6}\n"
                      "  - {name: b, op: MatMul, inputs: [a, x]}\n"),
            "net.yaml:4: layer 'b' (MatMul): shapes [1, 4, 6] and [1, 4, 8] do not multiply");
}

TEST(YamlImport, BlocksRepeatAndDefaultWiring) {
  Graph g = parse(kResNetStage);
  EXPECT_EQ(opSequence(g),
            "Conv Relu "
            "Conv BatchNormalization Relu Conv BatchNormalization Add Relu "
            "Conv BatchNormalization Relu Conv BatchNormalization Add Relu "
            "GlobalAveragePool Flatten Gemm");
  ASSERT_TRUE(g.findValue("layer1.1/out").has_value());
  EXPECT_EQ(g.value(g.outputs()[0]).name, "fc");
  EXPECT_EQ(g.value(g.outputs()[0]).shape, (Shape{1, 10}));
  // The second block's residual reads the first block's output.
  const Node& add = g.nodes()[14];
  EXPECT_EQ(add.name, "layer1.1/add");
  EXPECT_EQ(g.value(add.inputs[1]).name, "layer1.0/out");
}

TEST(YamlImport, ChannelSlicesFeedTheLayersAfterThem) {
  // The conv after a slice sizes its weights from the slice's output (its bounds are constants
  // the shape rule reads while the builder keeps adding values).
  Graph g = parse(R"(
inputs:
  x: [1, 8, 4, 4]
layers:
  - {name: half, op: Slice, input: x, starts: [2], ends: [6], axes: [1]}
  - {name: c, op: Conv, out_channels: 3, kernel: 1}
  - {name: odd, op: Slice, input: x, starts: [1, 0], ends: [8, 4], axes: [1, 2], steps: [2, 2]}
)");
  EXPECT_EQ(opSequence(g), "Slice Conv Slice");
  EXPECT_EQ(g.value(*g.findValue("half")).shape, (Shape{1, 4, 4, 4}));
  EXPECT_EQ(g.value(g.nodes()[1].input(1)).shape, (Shape{3, 4, 1, 1}));
  EXPECT_EQ(g.value(*g.findValue("odd")).shape, (Shape{1, 4, 2, 4}));
}

TEST(YamlImport, BlockParametersDoNotLeakIntoLaterUses) {
  // A use that sets a parameter must not change the default another use relies on.
  Graph g = parse(R"(
inputs:
  x: [1, 4, 8, 8]
blocks:
  conv:
    params: {out: 4, kernel: 1, pad: 0}
    layers:
      - {name: c, op: Conv, out_channels: $out, kernel: $kernel, pad: $pad}
layers:
  - {name: a, block: conv, kernel: 3, pad: 1}
  - {name: b, block: conv, out: 6}
)");
  ASSERT_TRUE(g.findValue("b/c.weight").has_value());
  EXPECT_EQ(g.value(*g.findValue("a/c.weight")).shape, (Shape{4, 4, 3, 3}));
  EXPECT_EQ(g.value(*g.findValue("b/c.weight")).shape, (Shape{6, 4, 1, 1}));
}

TEST(YamlImport, SeededWeightsAreStablePerLayer) {
  Graph a = parse(kResNetStage);
  Graph b = parse(kResNetStage);
  auto weights = [](const Graph& g, const std::string& name) {
    std::span<const float> v = g.value(*g.findValue(name)).data->floats();
    return std::vector<float>(v.begin(), v.end());
  };
  EXPECT_EQ(weights(a, "layer1.0/conv1.weight"), weights(b, "layer1.0/conv1.weight"));
  EXPECT_NE(weights(a, "layer1.0/conv1.weight"), weights(a, "layer1.1/conv1.weight"));
  // Kaiming-uniform with the ReLU gain: |w| < sqrt(6 / fan_in), fan_in = 8 * 3 * 3.
  for (float w : weights(a, "layer1.0/conv1.weight")) {
    EXPECT_LT(std::fabs(w), std::sqrt(6.0F / 72.0F));
  }
  std::string reseeded = kResNetStage;
  reseeded.replace(reseeded.find("seed: 3"), 7, "seed: 4");
  EXPECT_NE(weights(parse(reseeded), "stem.weight"), weights(a, "stem.weight"));
}

TEST(YamlImport, GeneratedWeightsAreBoundedBeforeTheyAreMade) {
  const std::string text = R"(
inputs: {x: [1, 8, 4, 4]}
layers:
  - {name: a, op: Conv, out_channels: 8, kernel: 3, pad: 1}
  - {name: b, op: Conv, out_channels: 8, kernel: 3, pad: 1}
)";
  // Each conv has 8 * 8 * 9 = 576 weights and 8 biases: 1,168 in all.
  GraphYamlLimits limits;
  limits.seededWeights = 1168;
  EXPECT_NO_THROW(parseGraphYaml(text, "net.yaml", ".", limits));
  limits.seededWeights = 1167;
  EXPECT_EQ(errorOf([&] { parseGraphYaml(text, "net.yaml", ".", limits); }),
            "net.yaml:5: layer 'b' (Conv): weight 'b.bias' of 8 values takes the weights generated "
            "from the seed past the limit of 1167 (give large weights as .npy files)");
}

TEST(YamlImport, ChannelLayerNormNeedsANonNegativeEpsilon) {
  EXPECT_EQ(errorOf([] {
              parseGraphYaml(
                  "inputs: {x: [1, 8, 4, 4]}\nlayers:\n"
                  "  - {name: n, op: ChannelLayerNorm, epsilon: -1}\n",
                  "net.yaml", ".");
            }),
            "net.yaml:3: layer 'n' (ChannelLayerNorm): 'epsilon' must be at least 0, got -1");
}

TEST(YamlImport, StatisticsPassIsBoundedBeforeItRuns) {
  // Found by the graph_yaml fuzz campaign: a [2, 1, 3282, 32] input and a 906-channel 1x1 conv
  // made the statistics pass compute a 190 M-element activation (2.4 GB) before any BatchNorm.
  const std::string text = R"(
inputs: {x: [1, 4, 8, 8]}
layers:
  - {name: c, op: Conv, out_channels: 8, kernel: 1}
  - {name: bn, op: BatchNormalization}
)";
  // x 256, c 512 and bn 512 elements: 1,280 in all.
  GraphYamlLimits limits;
  limits.statisticsElements = 1280;
  EXPECT_NO_THROW(parseGraphYaml(text, "net.yaml", ".", limits));
  limits.statisticsElements = 1279;
  EXPECT_EQ(errorOf([&] { parseGraphYaml(text, "net.yaml", ".", limits); }),
            "net.yaml: measuring the BatchNorm statistics would run the graph over 1280 "
            "activation elements, above the limit of 1279");
}

TEST(YamlImport, KernelSizesCannotOverflowTheFanIn) {
  // Found by the graph_yaml fuzz campaign: a kernel of 0x7fffffff7 made the fan-in product
  // overflow before the weight's shape was bounded.
  EXPECT_EQ(errorOf([] {
              parseGraphYaml(
                  "inputs: {x: [1, 3, 8, 8]}\nlayers:\n"
                  "  - {name: c, op: Conv, out_channels: 4, kernel: 0x7fffffff7}\n",
                  "net.yaml", ".");
            }),
            "net.yaml:3: layer 'c' (Conv): the weight's fan-in has shape [3, 34359738359, "
            "34359738359]: more elements than fit in 64 bits");
}

TEST(YamlImport, BatchNormStatisticsKeepActivationsInRange) {
  // Twelve conv + BN + ReLU layers: without measured statistics the scale drifts.
  std::string text = "inputs: {x: [1, 4, 12, 12]}\nlayers:\n";
  for (int i = 0; i < 12; ++i) {
    text +=
        "  - {op: Conv, out_channels: 16, kernel: 3, pad: 1, bias: false}\n"
        "  - {op: BatchNormalization}\n"
        "  - {op: Relu}\n";
  }
  Graph g = parse(text);
  std::vector<double> rms;
  interpret(g, {{"x", testing::pattern({1, 4, 12, 12})}},
            [&](const Value& v, const golden::FloatTensor& t) {
              if (v.name.starts_with("BatchNormalization")) {
                double sum = 0.0;
                for (float e : t.data) {
                  sum += static_cast<double>(e) * e;
                }
                rms.push_back(std::sqrt(sum / static_cast<double>(t.data.size())));
              }
            });
  ASSERT_EQ(rms.size(), 12U);
  for (double r : rms) {
    EXPECT_GT(r, 0.2);
    EXPECT_LT(r, 5.0);
  }
}

TEST(YamlImport, WeightsFromNpyFiles) {
  std::filesystem::path dir = tempDir();
  Tensor w{{2, 3, 1, 1}, TensorData(std::vector<float>{1, 2, 3, 4, 5, 6})};
  writeNpy(dir / "w.npy", w);
  Graph g = parse(
      "inputs: {x: [1, 3, 2, 2]}\n"
      "layers:\n"
      "  - {name: c, op: Conv, out_channels: 2, bias: false, weights: {weight: w.npy}}\n",
      dir);
  std::span<const float> loaded = g.value(*g.findValue("c.weight")).data->floats();
  EXPECT_EQ(std::vector<float>(loaded.begin(), loaded.end()),
            (std::vector<float>{1, 2, 3, 4, 5, 6}));

  EXPECT_EQ(yamlError("inputs: {x: [1, 4, 2, 2]}\n"
                      "layers:\n"
                      "  - {name: c, op: Conv, out_channels: 2, weights: {weight: w.npy}}\n",
                      dir),
            "net.yaml:3: layer 'c' (Conv): weight 'weight' in " + (dir / "w.npy").string() +
                " has shape [2, 3, 1, 1], expected [2, 4, 1, 1]");
  writeTextFile(dir / "bad.npy", "not numpy");
  EXPECT_EQ(yamlError("inputs: {x: [1, 3, 2, 2]}\n"
                      "layers:\n"
                      "  - {name: c, op: Conv, weights: {weight: bad.npy}}\n",
                      dir),
            "net.yaml:3: layer 'c' (Conv): " + (dir / "bad.npy").string() +
                ": not a .npy file (bad magic)");
}

TEST(YamlImport, EveryConvenienceOpBuilds) {
  Graph g = parse(R"(
inputs: {x: [1, 4, 8, 8]}
layers:
  - {name: dw, op: Conv, depthwise: true, kernel: 3, pad: same, activation: relu6}
  - {name: up, op: ConvTranspose, out_channels: 4, kernel: 2, stride: 2}
  - {name: down, op: MaxPool, kernel: 2}
  - {name: avg, op: AveragePool, kernel: 3, stride: 1, pad: 1, count_include_pad: true}
  - {name: big, op: Upsample, scale: 2}
  - {name: small, op: Resize, sizes: [8, 8]}
  - {name: padded, op: Pad, pads: [1, 1, 1, 1]}
  - {name: act, op: HardSwish}
  - {name: leak, op: LeakyRelu, alpha: 0.2}
  - {name: clip, op: Clip, min: -1, max: 1}
  - {name: cat, op: Concat, inputs: [clip, leak]}
  - {name: half, op: Mul, scalar: 0.5}
  - {name: silu, op: Silu}
  - {name: gelu, op: Gelu}
  - {name: gap, op: GlobalAveragePool}
  - {name: flat, op: Reshape, shape: [1, -1]}
  - {name: fc, op: MatMul, out_features: 3}
  - {name: prob, op: Softmax}
)");
  EXPECT_EQ(g.value(g.outputs()[0]).shape, (Shape{1, 3}));
  golden::FloatTensor before = runSingle(g, testing::pattern({1, 4, 8, 8}));
  runFrontEndPasses(g);
  EXPECT_LT(relativeError(runSingle(g, testing::pattern({1, 4, 8, 8})), before), 1e-5);
}

TEST(YamlImport, PassesFoldTheGeneratedBatchNorms) {
  Graph g = parse(kResNetStage);
  golden::FloatTensor x = testing::pattern({1, 8, 16, 16});
  golden::FloatTensor before = runSingle(g, x);
  runFrontEndPasses(g);
  EXPECT_EQ(opSequence(g), "Conv Conv Conv Add Conv Conv Add GlobalAveragePool Conv Reshape");
  EXPECT_LT(relativeError(runSingle(g, x), before), 1e-5);
}

TEST(YamlImport, TheDocumentedExampleImports) {
  std::string doc = readTextFile(testing::sourcePath("docs/graph-yaml.md"));
  std::size_t start = doc.find("```yaml\nname:");
  ASSERT_NE(start, std::string::npos);
  start += 8;
  std::string example = doc.substr(start, doc.find("```", start) - start);
  Graph g = parse(example);
  EXPECT_EQ(g.value(g.outputs()[0]).shape, (Shape{1, 1000}));
  runFrontEndPasses(g);
}

// Sizes read from a spec are bounded before anything is allocated (docs/reliability.md): a
// huge input, weight or intermediate is refused by name, never a bad_alloc.
TEST(YamlImport, TensorSizesAreBoundedBeforeAllocation) {
  EXPECT_EQ(yamlError("inputs: {x: [1, 2147483647, 56, 56]}\nlayers:\n  - {name: r, op: Relu}\n"),
            "net.yaml:1: input 'x' has shape [1, 2147483647, 56, 56]: 6734508716992 elements, "
            "above the limit of 268435456 per tensor");
  const std::string head = "inputs: {x: [1, 64, 8, 8]}\nlayers:\n";
  EXPECT_EQ(yamlError(head + "  - {name: c, op: Conv, out_channels: 2147483647, kernel: 3}\n"),
            "net.yaml:3: layer 'c' (Conv): weight 'c.weight' has shape [2147483647, 64, 3, 3]: "
            "1236950580672 elements, above the limit of 268435456 per tensor");
  // An intermediate that only shape inference knows: refused before the BatchNorm statistics
  // pass would run the graph on a random input of that size.
  EXPECT_EQ(yamlError(head + "  - {name: up, op: Upsample, scale: 8192}\n"
                             "  - {name: bn, op: BatchNormalization}\n"),
            "net.yaml:3: layer 'up' (Upsample): output 0 has shape [1, 64, 65536, 65536]: "
            "274877906944 elements, above the limit of 268435456 per tensor");
}

// Blocks that use blocks multiply: eleven lines asking for 10^11 layers are refused once the
// expansion passes its bound, in well under a second.
TEST(YamlImport, BlockExpansionIsBounded) {
  std::string spec = "inputs: {x: [1, 8, 8, 8]}\nblocks:\n  b0: {layers: [{name: r, op: Relu}]}\n";
  for (int i = 1; i < 12; ++i) {
    spec += fmt::format("  b{}: {{layers: [", i);
    for (int j = 0; j < 10; ++j) {
      spec += fmt::format("{}{{name: s{}, block: b{}}}", j == 0 ? "" : ", ", j, i - 1);
    }
    spec += "]}\n";
  }
  spec += "layers:\n  - {name: top, block: b11}\n";
  const std::string error = yamlError(spec);
  EXPECT_NE(error.find("the spec expands to more than 100000 layers"), std::string::npos) << error;
}

TEST(YamlImport, BadSpecs) {
  const std::string head = "inputs: {x: [1, 3, 8, 8]}\nlayers:\n";
  EXPECT_EQ(yamlError(head + "  - {name: c, op: Conv, kernal: 3}\n"),
            "net.yaml:3: layer 'c' (Conv): unknown key 'kernal'");
  EXPECT_EQ(yamlError(head + "  - {name: c, op: Convolution}\n"),
            "net.yaml:3: layer 'c' (Convolution): unknown op 'Convolution'");
  EXPECT_EQ(yamlError(head + "  - {name: c, op: Relu, input: y}\n"),
            "net.yaml:3: layer 'c' (Relu): unknown input 'y' (not an input or an earlier layer)");
  EXPECT_EQ(yamlError(head + "  - {name: c, op: Relu}\n  - {name: c, op: Relu}\n"),
            "net.yaml:4: layer 'c' is defined twice");
  EXPECT_EQ(yamlError(head + "  - {name: b, block: missing}\n"),
            "net.yaml:3: layer 'b' (missing): unknown block 'missing'");
  EXPECT_EQ(yamlError(head + "  - {name: s, op: Add, inputs: [x]}\n"),
            "net.yaml:3: layer 's' (Add): expects 2 inputs, has 1");
  EXPECT_EQ(yamlError(head + "  - {name: c, op: Conv, groups: 2}\n"),
            "net.yaml:3: layer 'c' (Conv): groups 2 must divide the 3 input and 3 output channels");
  EXPECT_EQ(yamlError(head + "  - {name: f, op: Linear, out_features: 4}\n"),
            "net.yaml:3: layer 'f' (Linear): input 'x' must be [batch, features] (add a Flatten), "
            "has shape [1, 3, 8, 8]");
  EXPECT_EQ(yamlError(head + "  - {name: c, op: Conv, kernel: 9}\n"),
            "net.yaml:3: layer 'c' (Conv): kernel 9x9 does not fit the padded input [1, 3, 8, 8]");
  EXPECT_EQ(yamlError(head + "  - {name: c, op: Conv, stride: fast}\n"),
            "net.yaml:3: layer 'c' (Conv): 'stride' must be an integer or a list of integers");
  EXPECT_EQ(yamlError("inputs: {x: [1, 3]}\nlayers: [\n"),
            "net.yaml:3:1: YAML syntax error: end of sequence flow not found");
  EXPECT_EQ(yamlError("layers:\n  - {op: Relu}\n"),
            "net.yaml:1: 'inputs' must list at least one input");
  EXPECT_EQ(yamlError(head + "  - {op: Relu}\ncolour: red\n"),
            "net.yaml:4: unknown key 'colour' in the graph (keys: name, seed, inputs, layers, "
            "outputs, blocks)");
  EXPECT_EQ(yamlError("inputs: {x: [1, 3, 8, 8]}\n"
                      "blocks:\n"
                      "  b: {params: {c: 3}, layers: [{name: r, op: Conv, out_channels: $c, "
                      "kernel: 0}]}\n"
                      "layers:\n"
                      "  - {name: blk, block: b, c: 4}\n"),
            "net.yaml:3: layer 'blk/r' (Conv): attribute 'kernel_shape' = 0 must be at least 1");
  EXPECT_EQ(yamlError("inputs: {x: [1, 3, 8, 8]}\n"
                      "blocks:\n"
                      "  b: {params: {c: 3}, layers: [{name: r, op: Relu}]}\n"
                      "layers:\n"
                      "  - {name: blk, block: b, width: 4}\n"),
            "net.yaml:5: layer 'blk' (b): block 'b' has no parameter 'width'");
  EXPECT_EQ(yamlError(head + "  - {op: Relu}\noutputs: [nothing]\n"),
            "net.yaml:4: outputs: unknown input 'nothing' (not an input or an earlier layer)");
}

// Values of the wrong form are named in our words, never yaml-cpp's "bad conversion".
TEST(YamlImport, WrongFormsAreNamed) {
  const std::string head = "inputs: {x: [1, 3, 8, 8]}\nlayers:\n";
  EXPECT_EQ(yamlError("name: [a]\n" + head + "  - {op: Relu}\n"),
            "net.yaml:1: the graph's 'name' must be a single value, not a list");
  EXPECT_EQ(yamlError("seed: {a: 1}\n" + head + "  - {op: Relu}\n"),
            "net.yaml:1: 'seed' must be a single value");
  EXPECT_EQ(yamlError(head + "  - {op: Relu, input: [x]}\n"),
            "net.yaml:3: 'input' must be a single value, not a list");
  EXPECT_EQ(yamlError(head + "  - {op: [Relu]}\n"),
            "net.yaml:3: 'op' must be a single value, not a list");
  EXPECT_EQ(yamlError(head + "  - {op: Relu}\noutputs: {a: b}\n"),
            "net.yaml:4: 'outputs' must be a name or a list of names");
  EXPECT_EQ(
      yamlError(head + "  - {op: Upsample, scale: [a, b]}\n"),
      "net.yaml:3: layer 'Upsample_0' (Upsample): 'scale' must be a number or a list of numbers");
  EXPECT_EQ(yamlError("inputs: {x: [1, 3, 8, 8]}\nblocks: {b: 3}\nlayers:\n  - {op: Relu}\n"),
            "net.yaml:2: block 'b' must be a mapping with 'layers' (and 'params')");
  EXPECT_EQ(yamlError("inputs: {x: [1, 3, 8, 8]}\n"
                      "blocks: {b: {layers: [{op: Relu}]}}\n"
                      "layers:\n  - {block: b, repeat: many}\n"),
            "net.yaml:4: 'repeat': expected an integer, got 'many'");
}

}  // namespace
}  // namespace npu::compiler
