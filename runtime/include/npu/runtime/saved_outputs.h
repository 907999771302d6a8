// The outputs of every input `npu run` ran, kept for `--save-outputs DIR` as .npy files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "npu/compiler/interp/interpreter.h"
#include "npu/compiler/quant/quantized_model.h"
#include "npu/runtime/run_model.h"

namespace npu::runtime {

/// An NPU segment's int8 output in the element order of its fp32 value of shape `shape`: an NHWC
/// tensor [1, H, W, C] of a [1, C, H, W] value is transposed back, any other already has the
/// value's order. Throws an internal Error naming `name` when the element counts differ.
std::vector<std::int8_t> int8InValueOrder(const Int8Output& output,
                                          const std::vector<std::int64_t>& shape,
                                          std::string_view name);

/// Collects, per input, the graph outputs (fp32 model and NPU run) and the values the NPU
/// segments hand on (int8 as the simulator left them, and their fp32 model values). Inputs may
/// be recorded from several threads, each slot once; write() stacks them in input order, so the
/// files do not depend on the number of jobs.
class SavedOutputs {
 public:
  /// `layers`: also every value of the model (runInference with keepLayers gives the int8 ones).
  SavedOutputs(const compiler::QuantizedModel& model, std::size_t inputs, bool layers = false);

  /// Whether the fp32 value `name` is one to keep from the fp32 run (an NPU segment's output).
  [[nodiscard]] bool keepsReference(std::string_view name) const;

  /// Input `k`: `reference` holds the fp32 model's graph outputs and every value
  /// keepsReference() asked for; `run` is the NPU run.
  void record(std::size_t k, compiler::TensorMap reference, const InferenceRun& run);

  /// Writes into `dir` (created if missing), each array [inputs, *value shape], per graph output
  /// <stem>.fp32.npy (fp32 model), <stem>.npu.npy (NPU run, host segments in fp32) and, when an
  /// NPU segment produces it, <stem>.int8.npy; per other value an NPU segment hands on
  /// <stem>.fp32.npy and <stem>.int8.npy. <stem> is the value's name with every character outside
  /// [A-Za-z0-9_.-] replaced by '_'. outputs.json lists both groups ("outputs",
  /// "npu_segment_outputs") with names, shapes, files, scales and zero points. With layers, the
  /// folder layers/ holds every other value of the model the same way: <stem>.fp32.npy, and for
  /// a tensor of an NPU segment <stem>.int8.npy with golden's values (group "layers").
  void write(const std::filesystem::path& dir) const;

 private:
  struct Slot {
    compiler::TensorMap reference;
    compiler::TensorMap npu;
    std::map<std::string, Int8Output, std::less<>> int8;
    std::map<std::string, Int8Output, std::less<>> layers;
  };
  const compiler::Graph& m_graph;
  std::set<std::string, std::less<>> m_segmentOutputs;
  bool m_layers = false;
  std::vector<Slot> m_slots;
};

}  // namespace npu::runtime
