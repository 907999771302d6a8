// Model: the compiler driver on a CompileRequest, then runs, references and exports of it.
#include "model.h"

#include <fmt/format.h>

#include "npu/compiler/driver/compile.h"
#include "npu/compiler/frontend/import.h"
#include "npu/compiler/frontend/onnx_import.h"
#include "npu/compiler/quant/calibration_data.h"
#include "npu/compiler/quant/calibration_table.h"
#include "npu/compiler/quant/quant_config.h"
#include "npu/isa/npu_config.h"
#include "npu/runtime/main_job.h"
#include "npu/simulator/simulate.h"
#include "npu/support/error.h"
#include "npu/support/staged_directory.h"

namespace npu::python {
namespace {

compiler::CompiledModel compileRequest(const CompileRequest& request, std::string& source,
                                       std::string& calibrationSource) {
  const std::filesystem::path cwd = std::filesystem::current_path();
  compiler::Graph graph;
  if (request.onnxBytes) {
    source = "<ONNX bytes>";
    graph = compiler::importOnnxBytes(*request.onnxBytes, source, cwd);
  } else {
    source = request.modelPath.string();
    graph = compiler::importModel(request.modelPath);
  }
  compiler::CompileOptions options;
  options.hw = isa::loadNpuConfig(isa::resolveConfigPath(request.hw, cwd));
  if (!request.quantConfigYaml.empty()) {
    options.quant = compiler::parseQuantConfig(request.quantConfigYaml, "quant_config");
  }
  if (!request.calibTable.empty()) {
    options.calibrationTable = compiler::loadCalibrationTable(request.calibTable);
  }
  options.calibrationSamples = [&](const compiler::Graph& optimized) {
    if (request.calibration) {
      calibrationSource = fmt::format("{} arrays", request.calibration->size());
      compiler::checkFinite(*request.calibration, "calibration");
      return *request.calibration;
    }
    if (!request.calibrationPath.empty()) {
      calibrationSource = request.calibrationPath.string();
      return compiler::loadCalibrationSet(request.calibrationPath, optimized);
    }
    calibrationSource = "8 synthetic N(0,1) inputs (seed 1234; give calibration for real data)";
    return runtime::syntheticInputs(optimized, 8);
  };
  return compiler::compileModel(std::move(graph), options);
}

}  // namespace

Model::Model(const CompileRequest& request)
    : m_compiled(compileRequest(request, m_source, m_calibrationSource)),
      m_fp32(m_compiled.model.graph),
      m_golden(m_compiled) {}

ModelRun Model::run(const compiler::TensorMap& inputs, runtime::Engine engine, bool verify) const {
  if (engine == runtime::Engine::Rtl) {
    fail("run: the engine is functional or timed (the RTL co-simulates through npu cosim)");
  }
  runtime::InferenceRun inference = runtime::runInference(
      m_compiled, inputs, runtime::simOptionsFor(engine), verify ? &m_golden : nullptr, verify);
  ModelRun out;
  out.outputs = std::move(inference.outputs);
  out.int8Outputs = std::move(inference.int8Outputs);
  out.verified = verify;
  out.bitExact = verify && inference.bitExact();
  for (const runtime::SegmentRun& segment : inference.segments) {
    out.cycles += segment.stats.totalCycles;
    out.segmentStats.push_back(
        sim::statsToJson(segment.stats, std::nullopt, deterministicProvenance()));
    out.mismatches.push_back(segment.mismatch ? segment.mismatch->message : std::string());
  }
  return out;
}

compiler::TensorMap Model::reference(const compiler::TensorMap& inputs) const {
  return m_fp32.run(inputs);
}

std::vector<runtime::ExportedSegment> Model::exportBundles(
    const std::filesystem::path& dir, const compiler::TensorMap* inputs) const {
  if (inputs == nullptr && m_compiled.calibration.empty()) {
    fail("export: no input given and the model has no calibration input");
  }
  StagedDirectory staged(dir, {"manifest.yaml", "segment0/manifest.yaml"});
  std::vector<runtime::ExportedSegment> written =
      runtime::exportModel(m_compiled, inputs != nullptr ? *inputs : m_compiled.calibration.front(),
                           staged.path(), m_source);
  staged.commit();
  return written;
}

}  // namespace npu::python
