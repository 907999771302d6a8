// Quantization accuracy on torchvision ResNet-18 and MobileNetV2 (random weights, re-estimated
// BatchNorm statistics): the final-output cosine of our int8 (golden reference) vs fp32 for each
// observer, with and without power-of-two scales, beside PyTorch FX int8 on the same images.
// Prints the Markdown table of docs/performance.md.
//
// quant_accuracy [--dir DIR] [--calib N] [--eval M] [NAME...]
// DIR (default build/bench-models) receives NAME.onnx (scripts/export_torchvision.py) and the
// images and FX figures of scripts/torchvision_fx_int8.py on first use.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "npu/compiler/frontend/onnx_import.h"
#include "npu/compiler/partition/partition_report.h"
#include "npu/compiler/passes/pipeline.h"
#include "npu/compiler/quant/accuracy_report.h"
#include "npu/compiler/quant/calibration_data.h"
#include "npu/compiler/quant/quantize_model.h"
#include "npu/compiler/quant/run_partitioned.h"
#include "npu/support/error.h"

namespace {

namespace fs = std::filesystem;
using namespace npu::compiler;

void runScript(const std::string& script, const fs::path& dir, const std::string& name) {
  std::string command = fmt::format("{} {}/scripts/{} --out {} {}", NPU_PYTHON, NPU_SOURCE_DIR,
                                    script, dir.string(), name);
  fmt::print(stderr, "running {}\n", command);
  if (std::system(command.c_str()) != 0) {
    npu::fail("quant_accuracy: '{}' failed", command);
  }
}

/// The "key: value" lines of NAME.fx.yaml that are not comments.
std::vector<std::pair<std::string, std::string>> fxFigures(const fs::path& file) {
  std::vector<std::pair<std::string, std::string>> figures;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::size_t colon = line.find(": ");
    if (line.empty() || line[0] == '#' || colon == std::string::npos) {
      continue;
    }
    figures.emplace_back(line.substr(0, colon), line.substr(colon + 2));
  }
  return figures;
}

std::size_t argMax(const std::vector<float>& v) {
  return static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

void network(const fs::path& dir, const std::string& name, std::size_t calibCount,
             std::size_t evalCount) {
  fs::path model = dir / (name + ".onnx");
  if (!fs::exists(model)) {
    runScript("export_torchvision.py", dir, name);
  }
  if (!fs::exists(dir / (name + ".fx.yaml"))) {
    runScript("torchvision_fx_int8.py", dir, name);
  }
  Graph graph = importOnnx(model);
  runFrontEndPasses(graph);
  std::vector<TensorMap> calib = loadCalibrationSet(dir / (name + ".calib.npy"), graph, calibCount);
  std::vector<TensorMap> eval = loadCalibrationSet(dir / (name + ".eval.npy"), graph, evalCount);
  std::vector<TensorMap> reference;
  Interpreter interpreter(graph);
  for (const TensorMap& x : eval) {
    reference.push_back(interpreter.run(x));
  }

  fmt::print("\n### {} ({} calibration images, {} evaluation images)\n\n", name, calib.size(),
             eval.size());
  fmt::print("| observer | scales | final-output cosine | SQNR dB | top-1 agrees | time |\n");
  fmt::print("|---|---|---|---|---|---|\n");
  bool partitionShown = false;
  for (bool powerOfTwo : {false, true}) {
    for (ObserverMethod method : {ObserverMethod::MinMax, ObserverMethod::Percentile,
                                  ObserverMethod::Entropy, ObserverMethod::Mse}) {
      auto start = std::chrono::steady_clock::now();
      QuantConfig config;
      config.activations.method = method;
      config.activations.powerOfTwo = powerOfTwo;
      config.weights.powerOfTwo = powerOfTwo;
      QuantizedModel q = quantizeModel(graph, calib, config);
      if (!partitionShown) {
        std::array<DeviceTotals, 2> t = partitionTotals(q.graph, q.partition);
        fmt::print(stderr, "{}: {} of {} ops on the NPU, {} segments\n", name, t[0].ops,
                   t[0].ops + t[1].ops, q.partition.segments.size());
        partitionShown = true;
      }
      AgreementAccumulator output;
      std::size_t top1 = 0;
      for (std::size_t i = 0; i < eval.size(); ++i) {
        TensorMap y = runPartitionedModel(q, eval[i], goldenSegmentRunner());
        for (const auto& [value, tensor] : y) {
          const std::vector<float>& r = reference[i].at(value).data;
          output.add(r, tensor.data);
          top1 += argMax(r) == argMax(tensor.data);
        }
      }
      Agreement a = output.result();
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fmt::print("| {} | {} | {:.5f} | {:.1f} | {}/{} | {:.0f} s |\n", observerName(method),
                 powerOfTwo ? "power of two" : "float", a.cosine, a.sqnrDb, top1, eval.size(),
                 seconds);
      std::fflush(stdout);
    }
  }
  for (const auto& [key, value] : fxFigures(dir / (name + ".fx.yaml"))) {
    if (key != "torch_version") {
      fmt::print("| PyTorch FX ({}) | float | {} | | | |\n", key, value);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir = NPU_BENCH_MODEL_DIR;
  std::size_t calib = 16;
  std::size_t eval = 8;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (arg == "--calib" && i + 1 < argc) {
      calib = std::stoul(argv[++i]);
    } else if (arg == "--eval" && i + 1 < argc) {
      eval = std::stoul(argv[++i]);
    } else if (!arg.empty() && arg[0] != '-') {
      names.push_back(arg);
    } else {
      fmt::print(stderr, "usage: quant_accuracy [--dir DIR] [--calib N] [--eval M] [NAME...]\n");
      return 2;
    }
  }
  if (names.empty()) {
    names = {"resnet18", "mobilenet_v2"};
  }
  try {
    fs::create_directories(dir);
    for (const std::string& name : names) {
      network(dir, name, calib, eval);
    }
  } catch (const npu::Error& e) {
    fmt::print(stderr, "quant_accuracy: {}\n", e.what());
    return 1;
  }
  return 0;
}
