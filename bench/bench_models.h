// The torchvision networks the benchmarks run, exported once (scripts/export_torchvision.py:
// random weights, re-estimated BatchNorm statistics) into the build folder.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace npu::bench {

/// NAME.onnx (resnet18, resnet50, mobilenet_v2), exported on first use; exits when it cannot be.
inline std::filesystem::path benchModel(const std::string& name) {
  const std::filesystem::path dir(NPU_BENCH_MODEL_DIR);
  const std::filesystem::path model = dir / (name + ".onnx");
  if (!std::filesystem::exists(model)) {
    const std::string command = std::string(NPU_PYTHON) + " " + NPU_SOURCE_DIR +
                                "/scripts/export_torchvision.py --out " + dir.string() + " " + name;
    std::fprintf(stderr, "exporting %s: %s\n", name.c_str(), command.c_str());
    if (std::system(command.c_str()) != 0 || !std::filesystem::exists(model)) {
      std::fprintf(stderr, "could not export %s\n", model.string().c_str());
      std::exit(1);
    }
  }
  return model;
}

}  // namespace npu::bench
