// A consumer of the installed libraries: compiles the bundled digits model for npu-s, runs a few
// inputs on the functional simulator and verifies each bit-exactly against the golden reference.
// Prints "<inputs> <bit-exact inputs> <cycles> <int8 top-1 %>", the figures `npu run` prints.
#include <cstdio>
#include <exception>
#include <filesystem>

#include "npu/runtime/main_job.h"
#include "npu/support/error.h"

int main() {
  const std::filesystem::path data(NPU_DATA);
  npu::runtime::MainJobOptions options;
  options.model = data / "examples" / "digits" / "model.onnx";
  options.hw = data / "configs" / "npu-s.yaml";
  options.calib = data / "examples" / "digits" / "calib";
  options.data = data / "examples" / "digits" / "test_inputs.npy";
  options.labels = data / "examples" / "digits" / "test_labels.npy";
  options.engine = npu::runtime::Engine::Functional;
  options.maxInputs = 8;
  try {
    const npu::runtime::MainJobReport report = npu::runtime::runMainJob(options);
    std::printf("%zu %zu %llu %.2f\n", report.inputs, report.bitExactInputs,
                static_cast<unsigned long long>(report.totalCycles), report.int8Top1.value_or(-1));
    return report.pass() ? 0 : 1;
  } catch (const npu::Error& e) {
    std::fprintf(stderr, "npu_consumer: %s\n", e.what());
    return 3;
  }
}
