// One inference: NPU segments on the simulator, verified against golden, host segments in fp32.
#include "npu/runtime/run_model.h"

#include <algorithm>

#include "npu/compiler/quant/run_partitioned.h"
#include "npu/support/error.h"

namespace npu::runtime {

bool InferenceRun::bitExact() const {
  return std::none_of(segments.begin(), segments.end(),
                      [](const SegmentRun& s) { return s.mismatch.has_value(); });
}

namespace {

std::size_t segmentIndex(const compiler::CompiledModel& model,
                         const compiler::NpuSegment& segment) {
  const auto& all = model.model.npuSegments;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (&all[i] == &segment) {
      return i;
    }
  }
  fail(ErrorKind::Usage, "runtime: NPU segment {} is not part of the compiled model",
       segment.segment);
}

}  // namespace

ModelGolden::ModelGolden(const compiler::CompiledModel& model) {
  m_segments.reserve(model.graphs.size());
  for (const compiler::QuantizedGraph& graph : model.graphs) {
    m_segments.emplace_back(graph);
  }
}

SegmentImages segmentImages(const compiler::CompiledModel& model, std::size_t npuSegment,
                            const std::vector<golden::Int8Tensor>& inputs,
                            const ModelGolden* golden) {
  const compiler::QuantizedGraph& graph = model.graphs.at(npuSegment);
  const std::vector<golden::Int8Tensor> programInputs = model.programInputs(npuSegment, inputs);
  SegmentImages images{model.programs.at(npuSegment), {}, isa::DdrImage{0}};
  compiler::setProgramInputs(images.compiled, graph, programInputs);
  images.values = golden != nullptr ? golden->segment(npuSegment).run(programInputs)
                                    : compiler::runQuantizedGraphGolden(graph, programInputs);
  images.expected = expectedDdr(images.compiled, graph, images.values);
  return images;
}

InferenceRun runInference(const compiler::CompiledModel& model, const compiler::TensorMap& inputs,
                          const sim::SimOptions& options, const ModelGolden* golden, bool verify,
                          bool keepLayers) {
  InferenceRun run;
  compiler::NpuSegmentRunner onSimulator = [&](const compiler::NpuSegment& segment,
                                               const std::vector<golden::Int8Tensor>& in) {
    const std::size_t index = segmentIndex(model, segment);
    SegmentImages images{model.programs.at(index), {}, isa::DdrImage{0}};
    if (verify) {
      images = segmentImages(model, index, in, golden);
    } else {
      compiler::setProgramInputs(images.compiled, model.graphs.at(index),
                                 model.programInputs(index, in));
    }
    sim::SimResult result = sim::simulate(images.compiled.program, options);
    if (result.fault) {
      fail(ErrorKind::Verification, "{}: NPU segment {}: {}", model.model.graph.source(),
           segment.segment, result.fault->what());
    }
    SegmentRun segmentRun;
    segmentRun.npuSegment = index;
    segmentRun.stats = result.stats;
    segmentRun.endCycles = std::move(result.endCycles);
    segmentRun.trace = std::move(result.trace);
    const compiler::QuantizedGraph& graph = model.graphs[index];
    if (verify) {
      segmentRun.mismatch = verifyDdr(images.compiled, graph, images.expected, result.ddr);
    }
    if (verify && keepLayers) {
      for (std::size_t t = 0; t < graph.tensors.size() && t < images.values.size(); ++t) {
        const compiler::QTensor& q = graph.tensors[t];
        if (model.model.graph.findValue(q.name)) {
          run.int8Layers[q.name] = Int8Output{images.values[t], q.scale, q.zeroPoint};
        }
      }
    }
    run.segments.push_back(std::move(segmentRun));
    std::vector<golden::Int8Tensor> out;
    for (compiler::TensorId id : graph.outputs) {
      const compiler::TensorPlacement& place = images.compiled.tensors[id];
      golden::Int8Tensor t;
      t.shape = graph.tensors[id].shape;
      const std::vector<std::uint8_t> bytes = result.ddr.readRange(place.address, place.bytes);
      t.data.assign(bytes.begin(), bytes.end());
      out.push_back(std::move(t));
    }
    for (const auto& [name, tensor] : segment.outputValues) {
      const auto it = std::find(graph.outputs.begin(), graph.outputs.end(), tensor);
      if (it != graph.outputs.end()) {
        const compiler::QTensor& q = graph.tensors[tensor];
        run.int8Outputs[name] = Int8Output{
            out[static_cast<std::size_t>(it - graph.outputs.begin())], q.scale, q.zeroPoint};
      }
    }
    return out;
  };
  run.outputs = compiler::runPartitionedModel(model.model, inputs, onSimulator);
  return run;
}

std::vector<std::vector<golden::Int8Tensor>> segmentInputs(const compiler::CompiledModel& model,
                                                           const compiler::TensorMap& inputs) {
  std::vector<std::vector<golden::Int8Tensor>> result(model.programs.size());
  const compiler::NpuSegmentRunner golden = compiler::goldenSegmentRunner();
  compiler::NpuSegmentRunner recording = [&](const compiler::NpuSegment& segment,
                                             const std::vector<golden::Int8Tensor>& in) {
    result[segmentIndex(model, segment)] = in;
    return golden(segment, in);
  };
  compiler::runPartitionedModel(model.model, inputs, recording);
  return result;
}

}  // namespace npu::runtime
