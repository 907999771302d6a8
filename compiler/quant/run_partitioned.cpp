// The partitioned run: host segments on the golden fp32 ops, NPU segments through a callback.
#include "npu/compiler/quant/run_partitioned.h"

#include <fmt/format.h>

#include "npu/compiler/interp/evaluate.h"
#include "npu/compiler/ir/diagnostics.h"
#include "npu/compiler/quant/tensor_layout.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

golden::QuantParams paramsOf(const QTensor& t) {
  return golden::QuantParams{static_cast<float>(t.scale), t.zeroPoint};
}

/// How NPU segments run in one partitioned run.
struct NpuPath {
  const NpuSegmentRunner* runner = nullptr;
  /// Golden with every intermediate reported.
  bool goldenIntermediates = false;
  /// The prepared golden reference for goldenIntermediates, if any.
  const GoldenModelRunner* golden = nullptr;
};

TensorMap run(const QuantizedModel& model, const TensorMap& inputs, const NpuPath& path,
              const TensorHook& hook) {
  const Graph& graph = model.graph;
  std::vector<std::optional<RuntimeValue>> live(graph.valueCount());
  auto lookup = [&](ValueId id) -> const RuntimeValue& {
    std::optional<RuntimeValue>& v = live[id.index];
    if (!v) {
      const Value& value = graph.value(id);
      if (!value.isConstant()) {
        fail("{}: value '{}' is read before it is computed", graph.source(), value.name);
      }
      v = runtimeValueOf(value);
    }
    return *v;
  };
  auto report = [&](ValueId id) {
    if (hook) {
      if (const auto* f = std::get_if<golden::FloatTensor>(&*live[id.index])) {
        hook(graph.value(id), *f);
      }
    }
  };

  checkGraphInputs(graph, inputs);
  for (ValueId id : graph.inputs()) {
    const Value& v = graph.value(id);
    auto it = inputs.find(v.name);
    live[id.index] = graphInputValue(graph, v, it->second);
    report(id);
  }

  std::size_t nextNpu = 0;
  std::vector<const RuntimeValue*> operands;
  for (std::size_t s = 0; s < model.partition.segments.size(); ++s) {
    const Segment& segment = model.partition.segments[s];
    if (segment.device == Device::Host) {
      for (std::size_t n : segment.nodes) {
        const Node& node = graph.nodes()[n];
        operands.clear();
        for (ValueId in : node.inputs) {
          operands.push_back(in.valid() ? &lookup(in) : nullptr);
        }
        std::vector<RuntimeValue> results =
            withNodeContext(graph, node, [&] { return evaluateNode(node, operands); });
        for (std::size_t i = 0; i < node.outputs.size(); ++i) {
          live[node.outputs[i].index] = std::move(results.at(i));
          report(node.outputs[i]);
        }
      }
      continue;
    }
    const NpuSegment& npu = model.npuSegments.at(nextNpu++);
    const QuantizedGraph& q = npu.graph;
    std::vector<golden::Int8Tensor> in;
    for (std::size_t i = 0; i < q.inputs.size(); ++i) {
      ValueId id = *graph.findValue(npu.inputValues[i]);
      const auto* f = std::get_if<golden::FloatTensor>(&lookup(id));
      if (f == nullptr) {
        fail("{}: NPU segment {} input '{}' is not an f32 tensor", graph.source(), s,
             npu.inputValues[i]);
      }
      in.push_back(quantizeToNhwc(*f, paramsOf(q.tensors[q.inputs[i]])));
    }
    std::vector<golden::Int8Tensor> tensors(q.tensors.size());
    if (path.goldenIntermediates) {
      tensors = path.golden != nullptr ? path.golden->segment(nextNpu - 1).run(in)
                                       : runQuantizedGraphGolden(q, in);
      for (std::size_t t = 0; t < q.tensors.size(); ++t) {
        const std::string& name = q.tensors[t].name;
        std::optional<ValueId> id = graph.findValue(name);
        bool isInput = std::find(q.inputs.begin(), q.inputs.end(), t) != q.inputs.end();
        if (hook && id && !isInput) {
          hook(graph.value(*id),
               dequantizeToNchw(tensors[t], paramsOf(q.tensors[t]), graph.value(*id).shape));
        } else if (hook && !isInput && name.find('#') != std::string::npos) {
          // A requantizing step's tensor ("<x>#requant", "<y>#pre_requant", realizeSegments):
          // reported under its own name with the layout of the value it holds.
          if (std::optional<ValueId> base = graph.findValue(name.substr(0, name.find('#')))) {
            Value value = graph.value(*base);
            value.name = name;
            hook(value, dequantizeToNchw(tensors[t], paramsOf(q.tensors[t]), value.shape));
          }
        }
      }
    } else {
      std::vector<golden::Int8Tensor> out = (*path.runner)(npu, in);
      if (out.size() != q.outputs.size()) {
        fail("{}: NPU segment {} returned {} tensors, expected {}", graph.source(), s, out.size(),
             q.outputs.size());
      }
      for (std::size_t i = 0; i < q.outputs.size(); ++i) {
        tensors[q.outputs[i]] = std::move(out[i]);
      }
      for (std::size_t i = 0; i < q.inputs.size(); ++i) {
        tensors[q.inputs[i]] = in[i];
      }
    }
    for (const auto& [name, t] : npu.outputValues) {
      ValueId id = *graph.findValue(name);
      live[id.index] = dequantizeToNchw(tensors[t], paramsOf(q.tensors[t]), graph.value(id).shape);
      if (!path.goldenIntermediates || q.tensors[t].name != name) {
        report(id);
      }
    }
  }

  TensorMap outputs;
  for (ValueId id : graph.outputs()) {
    const auto* f = std::get_if<golden::FloatTensor>(&lookup(id));
    if (f == nullptr) {
      fail("{}: graph output '{}' is not an f32 tensor", graph.source(), graph.value(id).name);
    }
    outputs.emplace(graph.value(id).name, *f);
  }
  return outputs;
}

}  // namespace

NpuSegmentRunner goldenSegmentRunner() {
  return [](const NpuSegment& segment, const std::vector<golden::Int8Tensor>& inputs) {
    std::vector<golden::Int8Tensor> all = runQuantizedGraphGolden(segment.graph, inputs);
    std::vector<golden::Int8Tensor> out;
    for (TensorId id : segment.graph.outputs) {
      out.push_back(std::move(all[id]));
    }
    return out;
  };
}

TensorMap runPartitionedModel(const QuantizedModel& model, const TensorMap& inputs,
                              const NpuSegmentRunner& npu, const TensorHook& hook) {
  NpuPath path;
  path.runner = &npu;
  return run(model, inputs, path, hook);
}

GoldenModelRunner::GoldenModelRunner(const QuantizedModel& model) {
  m_segments.reserve(model.npuSegments.size());
  for (const NpuSegment& segment : model.npuSegments) {
    m_segments.emplace_back(segment.graph);
  }
}

TensorMap runPartitionedModelGolden(const QuantizedModel& model, const TensorMap& inputs,
                                    const TensorHook& hook, const GoldenModelRunner* golden) {
  NpuPath path;
  path.goldenIntermediates = true;
  path.golden = golden;
  return run(model, inputs, path, hook);
}

}  // namespace npu::compiler
