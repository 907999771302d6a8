// The compiled model the Python module hands out: compiled once, run, verified and exported as
// often as the caller likes, with its fp32 interpreter and golden reference prepared once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "npu/compiler/driver/compiled_model.h"
#include "npu/compiler/interp/interpreter.h"
#include "npu/runtime/engine.h"
#include "npu/runtime/export_model.h"
#include "npu/runtime/run_model.h"

namespace npu::python {

/// Where the model comes from and how to quantize it (the arguments of npu.compile).
struct CompileRequest {
  /// A model file (.onnx or graph .yaml), or ONNX bytes when `onnxBytes` is set.
  std::filesystem::path modelPath;
  std::optional<std::vector<std::uint8_t>> onnxBytes;
  /// Hardware preset name or YAML path (isa::resolveConfigPath).
  std::string hw = "npu-s";
  /// Quantization config as YAML text (docs/quant-config.md); empty: defaults.
  std::string quantConfigYaml;
  /// A calibration table file (docs/quantized-models.md); empty: none.
  std::filesystem::path calibTable;
  /// Calibration inputs given as arrays, or a .npy file/folder; neither: 8 synthetic inputs.
  std::optional<std::vector<compiler::TensorMap>> calibration;
  std::filesystem::path calibrationPath;
};

/// One run of one input: the graph outputs and what each NPU segment did.
struct ModelRun {
  compiler::TensorMap outputs;
  std::map<std::string, runtime::Int8Output, std::less<>> int8Outputs;
  /// Sum over the NPU segments (0 on the functional engine).
  std::uint64_t cycles = 0;
  /// Per NPU segment: its stats as JSON (docs/timing.md keys) and the first mismatch, if any.
  std::vector<std::string> segmentStats;
  std::vector<std::string> mismatches;
  bool verified = false;
  bool bitExact = false;
};

class Model {
 public:
  explicit Model(const CompileRequest& request);
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const compiler::CompiledModel& compiled() const { return m_compiled; }
  const std::string& source() const { return m_source; }
  const std::string& calibrationSource() const { return m_calibrationSource; }

  /// One inference on `engine` (functional or timed), verified against golden when `verify`.
  ModelRun run(const compiler::TensorMap& inputs, runtime::Engine engine, bool verify) const;
  /// The fp32 model's outputs (the reference the NPU run is compared with).
  compiler::TensorMap reference(const compiler::TensorMap& inputs) const;
  /// The bring-up bundles for one input (the first calibration input when none is given),
  /// written whole or not at all into `dir`.
  std::vector<runtime::ExportedSegment> exportBundles(const std::filesystem::path& dir,
                                                      const compiler::TensorMap* inputs) const;

 private:
  std::string m_source;
  std::string m_calibrationSource;
  compiler::CompiledModel m_compiled;
  compiler::Interpreter m_fp32;
  runtime::ModelGolden m_golden;
};

}  // namespace npu::python
