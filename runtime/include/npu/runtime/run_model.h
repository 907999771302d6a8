// One inference of a compiled model: host segments in fp32, every NPU segment on the simulator
// with its final DDR verified byte for byte against the golden reference.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/driver/compiled_model.h"
#include "npu/compiler/interp/interpreter.h"
#include "npu/runtime/verify.h"
#include "npu/simulator/simulate.h"

namespace npu::runtime {

/// What one NPU segment did in one inference.
struct SegmentRun {
  /// Index into CompiledModel::programs (and model.npuSegments).
  std::size_t npuSegment = 0;
  sim::SimStats stats;
  /// Per instruction (timed mode; empty in functional mode).
  std::vector<std::uint64_t> endCycles;
  /// Every instruction's span on its unit (timed mode with SimOptions::collectTrace).
  std::vector<sim::TraceSpan> trace;
  /// The first byte where the simulator's final DDR differs from golden's; nullopt when
  /// bit-exact.
  std::optional<Mismatch> mismatch;
};

/// A graph output as an NPU segment left it: int8 in the NPU's layout (NHWC for 4-d tensors),
/// with the quantization that maps it to the fp32 value.
struct Int8Output {
  golden::Int8Tensor tensor;
  double scale = 1.0;
  std::int32_t zeroPoint = 0;
};

struct InferenceRun {
  /// The graph outputs (fp32, after the host segments).
  compiler::TensorMap outputs;
  /// Every value an NPU segment hands on (graph outputs among them), by its fp32 value's name,
  /// as the simulator left it, before dequantization.
  std::map<std::string, Int8Output, std::less<>> int8Outputs;
  /// With runInference's keepLayers (and verification): every tensor of every NPU segment as the
  /// golden reference computed it, the values the run's whole-DDR check holds the NPU to, by the
  /// name of the fp32 value it holds (tensors of no fp32 value, such as im2col inputs, left out).
  std::map<std::string, Int8Output, std::less<>> int8Layers;
  std::vector<SegmentRun> segments;

  [[nodiscard]] bool bitExact() const;
};

/// The golden reference of a compiled model prepared for many inputs: one
/// compiler::GoldenGraphRunner per compiled NPU graph (CompiledModel::graphs). The model must
/// outlive it and stay unchanged.
class ModelGolden {
 public:
  explicit ModelGolden(const compiler::CompiledModel& model);

  const compiler::GoldenGraphRunner& segment(std::size_t npuSegment) const {
    return m_segments.at(npuSegment);
  }

 private:
  std::vector<compiler::GoldenGraphRunner> m_segments;
};

/// Runs one inference on `inputs` (one fp32 tensor per graph input). Each NPU segment's int8
/// inputs are written into its program's DDR image, the program runs on the simulator in
/// `options.mode`, and its outputs are read back from the simulated DDR; the golden reference
/// runs the same segment and the whole final DDR is compared. A simulator fault throws it with
/// the segment named; a mismatch is recorded (the run goes on with the simulator's values).
/// `golden`, when given, is `model`'s prepared reference (otherwise each segment's golden is
/// prepared for this inference alone). With `verify` false the golden reference does not run at
/// all: every segment's mismatch stays unset although nothing was compared (accuracy-only runs,
/// `npu run --no-golden`).
InferenceRun runInference(const compiler::CompiledModel& model, const compiler::TensorMap& inputs,
                          const sim::SimOptions& options, const ModelGolden* golden = nullptr,
                          bool verify = true, bool keepLayers = false);

/// The DDR image and expected final image of one NPU segment for given int8 inputs (what `npu
/// export` writes and what runInference compares against).
struct SegmentImages {
  compiler::CompiledProgram compiled;
  /// Every tensor of the segment's graph on the golden reference.
  std::vector<golden::Int8Tensor> values;
  isa::DdrImage expected{0};
};
SegmentImages segmentImages(const compiler::CompiledModel& model, std::size_t npuSegment,
                            const std::vector<golden::Int8Tensor>& inputs,
                            const ModelGolden* golden = nullptr);

/// The int8 inputs each NPU segment receives when the model runs on `inputs` (golden int8
/// reference for earlier NPU segments, fp32 for host segments).
std::vector<std::vector<golden::Int8Tensor>> segmentInputs(const compiler::CompiledModel& model,
                                                           const compiler::TensorMap& inputs);

}  // namespace npu::runtime
