// Realize: the NPU segments of a calibrated fp32 graph as int8 QuantizedGraphs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "npu/compiler/quant/quantized_model.h"

namespace npu::compiler {

/// The scalar function of an activation node or fused epilogue (what its LUT tabulates).
std::function<float(float)> activationFunction(const Graph& graph, const Node& node);

/// Builds one QuantizedGraph per NPU segment (NCHW fp32 -> NHWC int8): convs (FC as 1x1 conv on
/// [1, 1, 1, C]) with per-channel int8 weights, int32 bias, requant multipliers and the fused
/// activation as clip bounds or a LUT; add and mul with TFLite multipliers; pools, concat and
/// upsample sharing their input's parameters; standalone activations as LUTs; layout no-ops as
/// the same tensor; ChannelAffine nodes as depthwise 1x1 convs. Weights with given quantization
/// (Value::quant, a QDQ model's) keep their scales exactly where the NPU can honour them; where
/// the input and output of a byte-moving op have different (given) parameters, a requantizing
/// 1x1 depthwise conv is inserted. Each such decision appends a line naming the node to `notes`
/// (when given). Throws Error naming the node when an op does not fit its NPU form.
std::vector<NpuSegment> realizeSegments(const Graph& graph, const Partition& partition,
                                        const CalibrationResult& calibration,
                                        const QuantConfig& config,
                                        std::vector<std::string>* notes = nullptr);

}  // namespace npu::compiler
