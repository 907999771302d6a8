// Pre-quantized models (docs/quantized-models.md): QDQ import with the given scales honoured,
// QDQ export that re-imports to the same program, calibration tables both ways.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "npu/compiler/driver/compile.h"
#include "npu/compiler/frontend/import.h"
#include "npu/compiler/frontend/npy.h"
#include "npu/compiler/quant/calibration_data.h"
#include "npu/compiler/quant/calibration_table.h"
#include "npu/compiler/quant/qdq_export.h"
#include "npu/compiler/quant/run_partitioned.h"
#include "npu/isa/npu_config.h"
#include "npu/isa/program.h"
#include "npu/support/file_io.h"
#include "test_support.h"

namespace npu::compiler {
namespace {

/// A path under the temporary folder that no other process uses (NAME-PID, no extension): test runs
/// of several checkouts on one machine (or ctest -j) must not write into each other's files.
std::filesystem::path privateTemp(const std::string& name) {
  return std::filesystem::temp_directory_path() / fmt::format("{}-{}", name, ::getpid());
}

namespace fs = std::filesystem;
using testing::errorOf;
using testing::sourcePath;

fs::path qdqModel(const std::string& name) {
  return sourcePath("tests/data/qdq") / (name + ".onnx");
}

/// Samples that calibration must not need: a run that uses them would change the program.
std::vector<TensorMap> unusedSamples(const Graph& graph) {
  std::vector<TensorMap> samples(1);
  for (ValueId id : graph.inputs()) {
    golden::FloatTensor t;
    t.shape = graph.value(id).shape;
    t.data.assign(static_cast<std::size_t>(elementCount(t.shape)), 123.0F);
    samples[0].emplace(graph.value(id).name, std::move(t));
  }
  return samples;
}

CompileOptions targetOptions() {
  CompileOptions options;
  options.hw = isa::loadNpuConfig(sourcePath("configs/npu-s.yaml"));
  options.calibrationSamples = unusedSamples;
  return options;
}

CompiledModel compileFile(const fs::path& path, CompileOptions options = targetOptions()) {
  return compileModel(importModel(path), options);
}

/// Every program of a compiled model, serialized: what "the same program" means.
std::vector<std::vector<std::uint8_t>> programBytes(const CompiledModel& compiled) {
  std::vector<std::vector<std::uint8_t>> bytes;
  for (const CompiledProgram& p : compiled.programs) {
    bytes.push_back(isa::serializeProgram(p.program));
  }
  return bytes;
}

/// The samples of NAME.input.npy ([count, 1, C, H, W]) as inputs of `graph`'s single input.
std::vector<TensorMap> samplesOf(const fs::path& npy, const Graph& graph) {
  return loadCalibrationSet(npy, graph);
}

struct Agreement {
  std::size_t elements = 0;
  std::size_t exact = 0;
  std::size_t withinOne = 0;
  double maxLsb = 0.0;

  double exactShare() const { return 100.0 * static_cast<double>(exact) / elements; }
  double withinOneShare() const { return 100.0 * static_cast<double>(withinOne) / elements; }
};

/// Our int8 result (dequantized by the golden partitioned run) against `reference`, in LSBs of
/// `scale`, over every sample.
void accumulate(Agreement& a, std::span<const float> ours, std::span<const float> reference,
                double scale) {
  ASSERT_EQ(ours.size(), reference.size());
  for (std::size_t i = 0; i < ours.size(); ++i) {
    double lsb = std::fabs(static_cast<double>(ours[i]) - reference[i]) / scale;
    a.maxLsb = std::max(a.maxLsb, lsb);
    ++a.elements;
    a.exact += lsb < 0.01 ? 1 : 0;
    a.withinOne += lsb < 1.01 ? 1 : 0;
  }
}

/// The scale the QDQ model gives its graph output (its last DequantizeLinear's).
double outputScale(const fs::path& path) {
  Graph graph = importModel(path);
  const std::string& name = graph.value(graph.outputs().front()).name;
  return givenQuantization(graph).tensors.at(name).scale;
}

/// Runs the model's NAME.input.npy through the golden int8 run and compares the first output with
/// NAME.output.npy in LSBs of the output's scale.
Agreement agreementWithReference(const std::string& name) {
  CompiledModel compiled = compileFile(qdqModel(name));
  const QuantizedModel& model = compiled.model;
  std::vector<TensorMap> inputs =
      samplesOf(sourcePath("tests/data/qdq") / (name + ".input.npy"), model.graph);
  Tensor expected = readNpy(sourcePath("tests/data/qdq") / (name + ".output.npy"));
  std::span<const float> all = expected.data.floats();
  const std::string& output = model.graph.value(model.graph.outputs().front()).name;
  double scale = outputScale(qdqModel(name));
  Agreement a;
  std::size_t per = all.size() / inputs.size();
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    TensorMap outputs = runPartitionedModelGolden(model, inputs[k]);
    accumulate(a, outputs.at(output).data, all.subspan(k * per, per), scale);
  }
  return a;
}

// --- QDQ import -------------------------------------------------------------------------------

TEST(QdqImport, TheProgramUsesTheGivenScalesZeroPointsAndWeights) {
  Graph imported = importModel(qdqModel("handmade_int8"));
  CalibrationTable given = givenQuantization(imported);
  ASSERT_FALSE(given.empty());
  EXPECT_EQ(given.tensors.at("input").scale, 0.02F);
  EXPECT_EQ(given.tensors.at("input").zeroPoint, -3);
  CompiledModel compiled = compileModel(std::move(imported), targetOptions());
  const QuantizedModel& model = compiled.model;
  ASSERT_FALSE(model.npuSegments.empty());
  std::size_t checkedTensors = 0;
  std::size_t checkedConvs = 0;
  for (const NpuSegment& segment : model.npuSegments) {
    for (const QTensor& t : segment.graph.tensors) {
      if (auto it = given.tensors.find(t.name); it != given.tensors.end()) {
        EXPECT_EQ(static_cast<float>(t.scale), it->second.scale) << t.name;
        EXPECT_EQ(t.zeroPoint, it->second.zeroPoint) << t.name;
        ++checkedTensors;
      }
    }
    for (std::size_t i = 0; i < segment.graph.ops.size(); ++i) {
      const auto* conv = std::get_if<QConv>(&segment.graph.ops[i]);
      if (conv == nullptr || segment.origins[i].requant) {
        continue;
      }
      const Node& node = model.graph.nodes()[segment.origins[i].node];
      const Value& w = model.graph.value(node.input(1));
      if (!w.quant) {
        continue;
      }
      // The weight scales are the file's; the multipliers follow from them and the tensors'.
      EXPECT_EQ(segment.origins[i].weightScales.size(), conv->weights.shape[0]) << node.name;
      for (std::size_t c = 0; c < segment.origins[i].weightScales.size(); ++c) {
        EXPECT_EQ(segment.origins[i].weightScales[c],
                  w.quant->scales[w.quant->scales.size() == 1 ? 0 : c])
            << node.name;
      }
      const QTensor& in = segment.graph.tensors[conv->input];
      const QTensor& out = segment.graph.tensors[conv->output];
      if (!conv->params.output.lut) {
        auto expected =
            golden::convMultipliers(static_cast<float>(in.scale), segment.origins[i].weightScales,
                                    static_cast<float>(out.scale));
        ASSERT_EQ(conv->params.multipliers.size(), expected.size());
        for (std::size_t c = 0; c < expected.size(); ++c) {
          EXPECT_EQ(conv->params.multipliers[c].multiplier, expected[c].multiplier);
          EXPECT_EQ(conv->params.multipliers[c].shift, expected[c].shift);
        }
      }
      ++checkedConvs;
    }
  }
  EXPECT_GE(checkedTensors, 10U);
  EXPECT_GE(checkedConvs, 4U);  // conv1, conv2, conv3, the two FCs
  // conv1's int8 weights are the file's (OIHW -> OHWI), its bias the file's int32.
  const auto& ops = model.npuSegments.front().graph.ops;
  const auto* conv1 = std::get_if<QConv>(&ops.front());
  ASSERT_NE(conv1, nullptr);
  EXPECT_EQ(conv1->name, "conv1");
}

TEST(QdqImport, Uint8AndInt8ActivationsGiveTheSameProgram) {
  CompiledModel u8 = compileFile(qdqModel("handmade_uint8"));
  CompiledModel i8 = compileFile(qdqModel("handmade_int8"));
  ASSERT_FALSE(u8.programs.empty());
  EXPECT_EQ(programBytes(u8), programBytes(i8));
}

TEST(QdqImport, HandmadeModelAgreesWithTheQdqReference) {
  for (const char* name : {"handmade_uint8", "handmade_int8"}) {
    Agreement a = agreementWithReference(name);
    fmt::print("{}: {} outputs, {:.2f}% exact, {:.2f}% within 1 LSB, max {:.2f} LSB\n", name,
               a.elements, a.exactShare(), a.withinOneShare(), a.maxLsb);
    // Each op agrees within 1 LSB (ties and the TFLite add/mul scheme); two fully connected
    // layers at the end can add two such differences up (docs/quantized-models.md).
    EXPECT_GE(a.withinOneShare(), 90.0) << name;
    EXPECT_LE(a.maxLsb, 2.01) << name;
  }
}

TEST(QdqImport, PyTorchFakeQuantModelAgreesWithinOneLsb) {
  Agreement a = agreementWithReference("torch_qat");
  fmt::print("torch_qat: {} outputs, {:.2f}% exact, {:.2f}% within 1 LSB, max {:.2f} LSB\n",
             a.elements, a.exactShare(), a.withinOneShare(), a.maxLsb);
  EXPECT_GE(a.withinOneShare(), 99.0);
}

TEST(QdqImport, APassiveOpBetweenDifferentScalesGetsARequantizingStep) {
  CompiledModel compiled = compileFile(qdqModel("passive_mismatch"));
  const auto& notes = compiled.model.notes;
  auto note = std::find_if(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("node 'pool' (MaxPool)") != std::string::npos;
  });
  ASSERT_NE(note, notes.end()) << fmt::format("{}", fmt::join(notes, "\n"));
  EXPECT_EQ(*note, qdqModel("passive_mismatch").string() +
                       ": node 'pool' (MaxPool): its input has scale 0.05 zero point -10 but its "
                       "output 'pool' scale 0.07 zero point 3; the NPU moves these bytes "
                       "unchanged, so the requantizing step 'pool#requant' (a 1x1 depthwise conv "
                       "with unit weights) was inserted after it");
  Agreement a = agreementWithReference("passive_mismatch");
  EXPECT_GE(a.withinOneShare(), 99.0);
}

TEST(QdqImport, AsymmetricWeightZeroPointsAreFoldedOrRequantized) {
  CompiledModel compiled = compileFile(qdqModel("asymmetric_weights"));
  std::string notes = fmt::format("{}", fmt::join(compiled.model.notes, "\n"));
  EXPECT_NE(notes.find("node 'conv' (Conv): the weight zero points are not 0; q - zp fits int8, so "
                       "they were folded into the int8 weights (exact)"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("node 'conv2' (Conv): the given weight quantization cannot be honoured: "
                       "the weight zero point 60 of output channel 0 leaves q - zp = "),
            std::string::npos)
      << notes;
  Agreement a = agreementWithReference("asymmetric_weights");
  fmt::print("asymmetric_weights: {:.2f}% exact, {:.2f}% within 1 LSB, max {:.2f} LSB\n",
             a.exactShare(), a.withinOneShare(), a.maxLsb);
}

TEST(QdqImport, MalformedAndUnsupportedModelsNameTheNode) {
  auto errorFor = [](const std::string& name) {
    return errorOf([&] { importModel(qdqModel(name)); });
  };
  const std::string dir = qdqModel("x").parent_path().string();
  EXPECT_EQ(errorFor("bad_negative_scale"),
            dir +
                "/bad_negative_scale.onnx: node 'conv_w_DQ' (DequantizeLinear): scale "
                "'conv_w_scale' holds -0.02 at element 1; scales must be positive and finite");
  EXPECT_EQ(errorFor("bad_per_axis_activation"),
            dir +
                "/bad_per_axis_activation.onnx: node 'input_Q' (QuantizeLinear): quantizes "
                "activation 'input' per axis (axis 1); the NPU quantizes activations per tensor "
                "(one scale and zero point)");
  EXPECT_EQ(errorFor("bad_pair_mismatch"),
            dir +
                "/bad_pair_mismatch.onnx: node 'input_Q' (QuantizeLinear): the "
                "DequantizeLinear 'input_DQ' reading it has scale 0.05 zero point 0, the "
                "QuantizeLinear scale 0.03 zero point 0; a Q/DQ pair must share its parameters");
  EXPECT_EQ(errorFor("bad_zero_point_type"),
            dir +
                "/bad_zero_point_type.onnx: node 'conv_w_DQ' (DequantizeLinear): input "
                "'conv_w_quantized' and zero point 'conv_w_zp' have different types");
  EXPECT_EQ(errorFor("bad_qoperator"),
            dir +
                "/bad_qoperator.onnx: the model is quantized in the QOperator form, which the "
                "compiler does not import: QLinearConv (1 node, first 'qconv'); export it in "
                "the QDQ form instead (QuantizeLinear/DequantizeLinear around float ops, e.g. "
                "onnxruntime quantize_static with quant_format=QuantFormat.QDQ; "
                "docs/quantized-models.md)");
}

// --- QDQ export -------------------------------------------------------------------------------

/// Compiles `path` (with its own calibration set when given), exports, re-imports the export and
/// compiles that: the programs must be byte-identical.
/// The same with the first compile's options given (its strategy is the second's too).
void expectExportRoundTrip(const fs::path& path, const CompileOptions& options) {
  CompiledModel first = compileFile(path, options);
  fs::path exported =
      privateTemp(fmt::format("npu-qdq-{}", path.stem().string())).replace_extension(".onnx");
  writeQdqOnnx(first.model, exported);
  CompileOptions again = targetOptions();
  again.quant.strategy = options.quant.strategy;
  CompiledModel second = compileFile(exported, again);
  EXPECT_EQ(programBytes(first), programBytes(second)) << path;
  std::string notes = fmt::format("{}", fmt::join(second.model.notes, "\n"));
  EXPECT_EQ(notes.find("calibrated from the samples"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("re-quantized"), std::string::npos) << notes;
  fs::remove(exported);
}

void expectExportRoundTrip(const fs::path& path, const fs::path& calib = {}) {
  CompileOptions options = targetOptions();
  if (!calib.empty()) {
    options.calibrationSamples = [&](const Graph& g) { return loadCalibrationSet(calib, g); };
  }
  expectExportRoundTrip(path, options);
}

TEST(QdqExport, TheDigitsModelReimportsToTheSameProgram) {
  expectExportRoundTrip(sourcePath("examples/digits/model.onnx"),
                        sourcePath("examples/digits/calib"));
}

/// Every NPU tensor of `model` for the first `count` samples of `inputs`, dequantized by the golden
/// int8 run and stacked over the samples, by value name.
std::map<std::string, Tensor> npuTensors(const QuantizedModel& model, const fs::path& inputs,
                                         int count) {
  std::map<std::string, std::vector<float>> values;
  std::map<std::string, Shape> shapes;
  for (const TensorMap& sample : loadCalibrationSet(inputs, model.graph, count)) {
    runPartitionedModelGolden(model, sample, [&](const Value& v, const golden::FloatTensor& t) {
      if (model.calibration.tensors.contains(v.name)) {
        values[v.name].insert(values[v.name].end(), t.data.begin(), t.data.end());
        shapes[v.name] = t.shape;
      }
    });
  }
  std::map<std::string, Tensor> stacks;
  for (auto& [name, data] : values) {
    Shape shape = shapes.at(name);
    shape.insert(shape.begin(), static_cast<std::int64_t>(data.size()) / elementCount(shape));
    stacks.emplace(name, Tensor{shape, TensorData(std::move(data))});
  }
  return stacks;
}

/// scripts/qdq_reference.py on the QDQ file `onnx` layer by layer: every op evaluated with PyTorch
/// ops on our int8 inputs (`ours`), its int8 output against ours; the script prints the agreement
/// and fails beyond 1 LSB.
void expectEveryOpWithinOneLsb(const QuantizedModel& model,
                               const std::map<std::string, Tensor>& ours, const fs::path& onnx,
                               const fs::path& inputs, int count, const fs::path& dir) {
  fs::create_directories(dir / "ours");
  std::string list;
  int file = 0;
  for (const auto& [name, stack] : ours) {
    golden::QuantParams p = model.calibration.at(name).params;
    writeNpy(dir / "ours" / fmt::format("t{}.npy", file), stack);
    list += fmt::format("t{}\t{}\t{}\t{}\n", file++, name, p.scale, p.zeroPoint);
  }
  writeTextFile(dir / "ours" / "tensors.txt", list);
  std::string command =
      fmt::format("{} {} {} --input {} --count {} --layerwise {} --out {}", NPU_PYTHON,
                  sourcePath("scripts/qdq_reference.py").string(), onnx.string(), inputs.string(),
                  count, (dir / "ours").string(), (dir / "layerwise.txt").string());
  fmt::print("{}: ", onnx.filename().string());
  std::fflush(stdout);
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

TEST(QdqImport, EveryOpAgreesWithTheQdqReferenceWithinOneLsb) {
  for (const char* name :
       {"handmade_uint8", "torch_qat", "passive_mismatch", "asymmetric_weights"}) {
    CompiledModel compiled = compileFile(qdqModel(name));
    const fs::path inputs = sourcePath("tests/data/qdq") / (std::string(name) + ".input.npy");
    const fs::path dir = privateTemp(fmt::format("npu-qdq-layerwise-{}", name));
    fs::remove_all(dir);
    expectEveryOpWithinOneLsb(compiled.model, npuTensors(compiled.model, inputs, 8), qdqModel(name),
                              inputs, 8, dir);
    fs::remove_all(dir);
  }
}

TEST(QdqExport, PyTorchOnTheExportedParametersAgreesWithinOneLsb) {
  // The digits model, exported; scripts/qdq_reference.py evaluates the file with PyTorch ops on
  // its own Q/DQ parameters and int8 weights. End to end, the logits (the FC's output: the
  // softmax after it runs on the NPU too, the reshape between them an alias); layer by layer,
  // every op fed our int8 inputs, its int8 output against ours.
  CompileOptions options = targetOptions();
  const fs::path calib = sourcePath("examples/digits/calib");
  options.calibrationSamples = [&](const Graph& g) { return loadCalibrationSet(calib, g); };
  CompiledModel compiled = compileFile(sourcePath("examples/digits/model.onnx"), options);
  const QuantizedModel& model = compiled.model;
  const fs::path dir = privateTemp("npu-qdq-export-reference");
  fs::remove_all(dir);
  fs::create_directories(dir);
  writeQdqOnnx(model, dir / "digits.onnx");
  // The FC's output, which the reshape before the softmax aliases.
  std::string logits;
  for (const Node& node : model.graph.nodes()) {
    if (node.op == OpKind::Reshape && model.graph.value(node.outputs[0]).shape == Shape{1, 10}) {
      logits = model.graph.value(node.input(0)).name;
    }
  }
  const fs::path inputs = sourcePath("examples/digits/test_inputs.npy");
  constexpr int kCount = 100;
  std::map<std::string, Tensor> ours = npuTensors(model, inputs, kCount);
  expectEveryOpWithinOneLsb(model, ours, dir / "digits.onnx", inputs, kCount, dir);

  std::string endToEnd =
      fmt::format("{} {} {} --input {} --count {} --value '{}_dequantized' --out {}", NPU_PYTHON,
                  sourcePath("scripts/qdq_reference.py").string(), (dir / "digits.onnx").string(),
                  inputs.string(), kCount, logits, (dir / "reference.npy").string());
  ASSERT_EQ(std::system(endToEnd.c_str()), 0) << endToEnd;
  Tensor reference = readNpy(dir / "reference.npy");
  Agreement a;
  accumulate(a, ours.at(logits).data.floats(), reference.data.floats(),
             model.calibration.at(logits).params.scale);
  fmt::print(
      "digits export vs PyTorch on its parameters, end to end: {} logits, {:.2f}% exact, "
      "{:.2f}% within 1 LSB, max {:.2f} LSB\n",
      a.elements, a.exactShare(), a.withinOneShare(), a.maxLsb);
  EXPECT_EQ(a.elements, static_cast<std::size_t>(kCount) * 10);
  // The strict check is the per-op one above (every op within 1 LSB of PyTorch on our inputs).
  // End to end, fourteen layers of such differences add up: 98.60% within 1 LSB (max 2) with the
  // plain fp32 loops, 94.70% (max 3) since calibration runs on oneDNN, whose summation order moves
  // the scales by last-place rounding (docs/numerics.md section 14). The bound guards against a
  // systematic error, which would show at every logit, not against that drift.
  EXPECT_GE(a.withinOneShare(), 90.0);
  EXPECT_LE(a.maxLsb, 4.01);
  fs::remove_all(dir);
}

TEST(QdqExport, EveryFrontEndTestModelReimportsToTheSameProgram) {
  // The models of the ONNX front-end tests: every activation (Gelu written as its erf formula,
  // Mish at opset 18), host ops, legacy opsets, external data.
  for (const char* name :
       {"activations", "activations_opset11", "convnet", "external", "handmade", "handmade_opset18",
        "hostops", "hostops_opset17", "legacy", "shapes", "upsampling"}) {
    fs::path dir = sourcePath("tests/compiler/models");
    expectExportRoundTrip(dir / (std::string(name) + ".onnx"),
                          dir / (std::string(name) + ".input.npy"));
  }
}

TEST(QdqExport, ConstantActivationsReimportToTheSameProgram) {
  // A class token concatenated along H, whole-shape constants added and multiplied, a constant
  // channel block (tests/data/tokens/): each constant is exported as int8 values behind a
  // DequantizeLinear and re-imported with its parameters, not calibrated again.
  for (const auto& [name, strategy] :
       {std::pair{"vit_tokens", DispatchStrategy::Aggressive},
        std::pair{"bert_embeddings", DispatchStrategy::Conservative}}) {
    CompileOptions options = targetOptions();
    options.quant.strategy = strategy;
    options.calibrationSamples = [](const Graph& g) {
      std::vector<TensorMap> samples(4);
      std::uint32_t state = 12345;
      for (TensorMap& sample : samples) {
        for (ValueId id : g.inputs()) {
          golden::FloatTensor t;
          t.shape = g.value(id).shape;
          t.data.resize(static_cast<std::size_t>(elementCount(t.shape)));
          for (float& v : t.data) {
            state = state * 1664525U + 1013904223U;
            v = static_cast<float>(state >> 8) / static_cast<float>(1U << 24) * 2.0F - 1.0F;
          }
          sample.emplace(g.value(id).name, std::move(t));
        }
      }
      return samples;
    };
    CompiledModel direct =
        compileFile(sourcePath("tests/data/tokens") / (std::string(name) + ".yaml"), options);
    ASSERT_EQ(direct.programs.size(), 1U) << name;
    expectExportRoundTrip(sourcePath("tests/data/tokens") / (std::string(name) + ".yaml"), options);
  }
}

TEST(QdqExport, ImportedQdqModelsReexportToTheSameProgram) {
  for (const char* name : {"handmade_uint8", "torch_qat", "passive_mismatch"}) {
    expectExportRoundTrip(qdqModel(name));
  }
}

// --- Calibration tables -----------------------------------------------------------------------

TEST(CalibrationTable, DumpedThenReusedGivesTheSameProgram) {
  const fs::path model = sourcePath("examples/digits/model.onnx");
  CompileOptions calibrated = targetOptions();
  calibrated.calibrationSamples = [&](const Graph& g) {
    return loadCalibrationSet(sourcePath("examples/digits/calib"), g);
  };
  CompiledModel first = compileFile(model, calibrated);
  std::string json = calibrationTableJson(first.model.calibration, model.string());
  CompileOptions fromTable = targetOptions();  // samples that would change every scale
  fromTable.calibrationTable = parseCalibrationTable(json, "dump.json");
  CompiledModel second = compileFile(model, fromTable);
  EXPECT_EQ(programBytes(first), programBytes(second));
  for (const auto& [name, t] : second.model.calibration.tensors) {
    EXPECT_TRUE(t.given) << name;
  }
}

TEST(CalibrationTable, APartialTableIsHonouredAndTheRestCalibrated) {
  CompileOptions options = targetOptions();
  options.calibrationSamples = [&](const Graph& g) {
    return loadCalibrationSet(sourcePath("examples/digits/calib"), g);
  };
  options.calibrationTable = parseCalibrationTable(
      R"({"tensors": {"input": {"scale": 0.05, "zero_point": 3}, "nothing": {"min": 0, "max": 1}}})",
      "partial.json");
  CompiledModel compiled = compileFile(sourcePath("examples/digits/model.onnx"), options);
  const QTensor& input = compiled.model.npuSegments.front().graph.tensors.front();
  EXPECT_EQ(input.name, "input");
  EXPECT_EQ(static_cast<float>(input.scale), 0.05F);
  EXPECT_EQ(input.zeroPoint, 3);
  std::string notes = fmt::format("{}", fmt::join(compiled.model.notes, "\n"));
  EXPECT_NE(notes.find("have no parameters in partial.json and were calibrated from the samples"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("1 of 18 tensors quantized as partial.json gives them (1 of its 2 entries "
                       "name no tensor an NPU segment reads or writes)"),
            std::string::npos)
      << notes;
}

TEST(CalibrationTable, ReadsRangesAndTensorRtCaches) {
  CalibrationTable ranges = parseCalibrationTable(
      R"({"tensors": {"a": {"min": -1.0, "max": 3.0}, "b": {"scale": 0.5, "zero_point": 200,
          "dtype": "uint8"}}})",
      "t.json");
  EXPECT_FLOAT_EQ(ranges.tensors.at("a").scale, 4.0F / 255.0F);
  EXPECT_EQ(ranges.tensors.at("a").zeroPoint, -128 + 64);
  EXPECT_EQ(ranges.tensors.at("b").zeroPoint, 72);
  CalibrationTable trt = parseCalibrationTable(
      "TRT-8601-EntropyCalibration2\ninput: 3c010a14\nconv1: 3d000000\n", "cache.txt");
  EXPECT_EQ(trt.tensors.at("conv1").scale, 0.03125F);
  EXPECT_EQ(trt.tensors.at("conv1").zeroPoint, 0);
  EXPECT_EQ(trt.tensors.size(), 2U);
}

TEST(CalibrationTable, MalformedEntriesNameTheTensor) {
  auto error = [](const std::string& text) {
    return errorOf([&] { parseCalibrationTable(text, "t.json"); });
  };
  EXPECT_EQ(error(R"({"tensors": {"x": {"scale": -1, "zero_point": 0}}})"),
            "t.json: tensor 'x': scale -1 must be positive and finite (as a float)");
  EXPECT_EQ(error(R"({"tensors": {"x": {"scale": 0.1, "zero_point": 300}}})"),
            "t.json: tensor 'x': zero_point 300 is outside [-128, 127] (int8)");
  EXPECT_EQ(error(R"({"tensors": {"x": {"scale": 0.1}}})"),
            "t.json: tensor 'x': has a scale but no zero_point");
  EXPECT_EQ(error(R"({"tensors": {"x": {"scael": 0.1}}})").substr(0, 44),
            "t.json: tensor 'x': unknown key 'scael' (key");
  EXPECT_EQ(error(R"({"tensors": {"x": {"min": 2, "max": 1}}})"),
            "t.json: tensor 'x': min 2 and max 1 must be finite with min <= max");
  EXPECT_EQ(error("TRT-8601-EntropyCalibration2\nx: zz\n"),
            "t.json:2: tensor 'x': 'zz' is not a float's bits in hex (8 hex digits)");
  EXPECT_EQ(error("hello"),
            "t.json: not a calibration table (a JSON object, or a TensorRT cache starting with "
            "'TRT-')");
}

}  // namespace
}  // namespace npu::compiler
