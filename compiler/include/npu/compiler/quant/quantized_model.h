// A quantized model: the fp32 graph, its partition and calibration, and one QuantizedGraph per
// NPU segment with the fp32 values at its borders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.h"
#include "npu/compiler/partition/partition.h"
#include "npu/compiler/quant/calibrate.h"
#include "npu/compiler/quant/quant_config.h"
#include "npu/compiler/quant/quantized_graph.h"

namespace npu::compiler {

/// Where a quantized op came from, and what quantization cost its weights.
struct QOpOrigin {
  /// Index of the fp32 node in the graph.
  std::size_t node = 0;
  /// SQNR of the weights in dB (conv-like ops only; +infinity when exact).
  std::optional<double> weightSqnrDb;
  /// Largest over smallest per-channel weight range (conv-like ops only).
  std::optional<double> weightChannelRangeRatio;
  /// The weights were quantized per output channel.
  bool perChannel = true;
  /// The op's output goes through a LUT (fused epilogue or standalone).
  bool lut = false;
  /// Conv-like ops: the weight scale s_w[c] of each output channel (what a QDQ export writes).
  std::vector<float> weightScales;
  /// A requantizing step the quantizer inserted (realizeSegments), not the node's own op.
  bool requant = false;
};

/// One NPU segment in int8. Every QTensor is named after the fp32 value it holds.
struct NpuSegment {
  /// Index into Partition::segments.
  std::size_t segment = 0;
  QuantizedGraph graph;
  /// The fp32 value quantized into each of graph.inputs, in order.
  std::vector<std::string> inputValues;
  /// The fp32 values the segment hands on (Segment::outputs) and the tensor holding each; one
  /// tensor may hold several values (a layout no-op between them).
  std::vector<std::pair<std::string, TensorId>> outputValues;
  /// Per graph.ops entry.
  std::vector<QOpOrigin> origins;
};

/// The partitioned, calibrated and quantized model.
struct QuantizedModel {
  Graph graph;
  Partition partition;
  QuantConfig config;
  CalibrationResult calibration;
  /// In segment order.
  std::vector<NpuSegment> npuSegments;
  /// What quantization decided that a user should know, one line each, naming the node or
  /// tensor: given parameters (a calibration table, a QDQ model) it could not honour and what it
  /// did instead, requantizing steps it inserted, tensors it calibrated for lack of a table entry.
  std::vector<std::string> notes;
};

}  // namespace npu::compiler
