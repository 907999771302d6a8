// Running a partitioned model: host segments in fp32, NPU segments through a callback (golden
// int8 or the simulator), quantize/dequantize at the borders.
#pragma once

#include <functional>
#include <vector>

#include "npu/compiler/interp/interpreter.h"
#include "npu/compiler/quant/quantized_model.h"

namespace npu::compiler {

/// Runs one NPU segment: given the int8 tensors of segment.graph.inputs (in order), returns the
/// int8 tensors of segment.graph.outputs (in order). The runtime plugs in the golden reference
/// or the simulator here.
using NpuSegmentRunner = std::function<std::vector<golden::Int8Tensor>(
    const NpuSegment& segment, const std::vector<golden::Int8Tensor>& inputs)>;

/// The golden int8 reference as an NpuSegmentRunner (runQuantizedGraphGolden).
NpuSegmentRunner goldenSegmentRunner();

/// Runs the whole model on fp32 `inputs` (one per graph input, by name and declared shape):
/// segments in order, host nodes through the golden fp32 ops, each NPU segment through `npu`
/// with its inputs quantized (NCHW fp32 -> NHWC int8) and its outputs dequantized back. `hook`
/// sees the graph inputs, every host node output and every NPU segment output (dequantized).
/// Returns the graph outputs. Errors name the file, node and op, or the segment.
TensorMap runPartitionedModel(const QuantizedModel& model, const TensorMap& inputs,
                              const NpuSegmentRunner& npu, const TensorHook& hook = {});

/// The golden int8 reference of every NPU segment of a model, prepared for many inputs (one
/// GoldenGraphRunner per segment). The model must outlive it and stay unchanged.
class GoldenModelRunner {
 public:
  explicit GoldenModelRunner(const QuantizedModel& model);

  /// The runner of model.npuSegments[i].
  const GoldenGraphRunner& segment(std::size_t i) const { return m_segments.at(i); }

 private:
  std::vector<GoldenGraphRunner> m_segments;
};

/// runPartitionedModel with the golden int8 reference, where `hook` also sees every tensor inside
/// the NPU segments, dequantized to its fp32 value's layout (what the accuracy report compares);
/// a requantizing step's tensor ("<x>#requant", "<y>#pre_requant") comes under its own name with
/// the shape of the value it holds. `golden`, when given, is `model`'s prepared reference
/// (otherwise each segment is prepared for this run alone).
TensorMap runPartitionedModelGolden(const QuantizedModel& model, const TensorMap& inputs,
                                    const TensorHook& hook = {},
                                    const GoldenModelRunner* golden = nullptr);

}  // namespace npu::compiler
