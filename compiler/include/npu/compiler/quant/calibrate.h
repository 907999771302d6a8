// Calibration: the fp32 interpreter over calibration inputs, observing every tensor an NPU
// segment reads or writes, then per-tensor ranges, scale alignment and int8 parameters.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "npu/compiler/interp/interpreter.h"
#include "npu/compiler/ir/graph.h"
#include "npu/compiler/partition/partition.h"
#include "npu/compiler/quant/quant_config.h"
#include "npu/golden/quantize.h"

namespace npu::compiler {

/// What calibration decided for one tensor.
struct TensorCalibration {
  std::string name;
  ActivationSettings settings;
  /// Observed over all samples.
  float min = 0.0F;
  float max = 0.0F;
  /// The 99th, 99.9th and 99.99th percentiles of |x| (from the histogram), to spot
  /// outlier-dominated ranges.
  float absPercentile99 = 0.0F;
  float absPercentile999 = 0.0F;
  float absPercentile9999 = 0.0F;
  /// The range the method chose for this tensor alone.
  Range range;
  /// The range after alignment: the union over the tensor's alignment group.
  Range alignedRange;
  /// The int8 parameters (shared by the whole alignment group).
  golden::QuantParams params;
  /// Index of the alignment group, or -1 when the tensor shares with nobody.
  std::int64_t group = -1;
  /// The parameters were given (a calibration table, a QDQ model), not chosen by calibration.
  bool given = false;
};

/// Calibration of a partitioned graph.
struct CalibrationResult {
  std::map<std::string, TensorCalibration, std::less<>> tensors;
  std::size_t samples = 0;

  /// The calibration of `name`; throws Error when the tensor was not observed.
  const TensorCalibration& at(std::string_view name) const;
};

/// The name under which calibration observes the pre-activation output of a conv whose fused
/// activation becomes a LUT ("<output>#preact"): the LUT's input quantization.
std::string preActivationName(std::string_view output);

/// The graph calibration runs: a copy of `graph` where every NPU conv with a LUT epilogue is
/// split into the conv writing preActivationName(output) and the activation node.
Graph calibrationGraph(const Graph& graph, const Partition& partition);

/// Runs the fp32 interpreter over `samples` (at most config.maxSamples of them), observing the
/// activations NPU nodes read and write (and the pre-activation of LUT epilogues) with
/// memory-bounded histograms, picks each tensor's range by its configured method, aligns the
/// groups of alignmentGroups and derives int8 parameters. Throws Error naming the graph for no
/// samples, and the tensor and sample for a NaN or infinite value.
CalibrationResult calibrate(const Graph& graph, const Partition& partition,
                            const std::vector<TensorMap>& samples, const QuantConfig& config);

struct CalibrationTable;

/// calibrate() with the parameters of `table` (by tensor name) taking precedence: a tensor the
/// table names gets exactly its parameters (TensorCalibration::given); a tensor it does not name
/// takes those of a given member of its alignment group, else calibration chooses them from
/// `samples` (only then do the samples run). Members of one group may end up with different
/// given parameters: realizeSegments then inserts a requantizing step between them. Appends a
/// line to `notes` saying how many tensors the table covered and which were calibrated instead.
CalibrationResult calibrateWithTable(const Graph& graph, const Partition& partition,
                                     const std::vector<TensorMap>& samples,
                                     const QuantConfig& config, const CalibrationTable& table,
                                     std::vector<std::string>& notes);

}  // namespace npu::compiler
