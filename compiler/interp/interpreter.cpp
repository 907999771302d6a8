// The fp32 interpreter: walks the nodes in order, frees values after their last reader, and
// reports every fp32 value to the hook.
#include "npu/compiler/interp/interpreter.h"

#include <cmath>

#include "npu/compiler/ir/diagnostics.h"
#include "npu/compiler/ir/op_params.h"
#include "npu/support/error.h"

namespace npu::compiler {

Interpreter::Interpreter(const Graph& graph)
    : m_graph(&graph), m_constants(graph.valueCount()), m_lastUse(graph.valueCount(), 0) {
  for (std::size_t i = 0; i < graph.valueCount(); ++i) {
    const Value& v = graph.value(ValueId{static_cast<std::uint32_t>(i)});
    if (v.isConstant()) {
      m_constants[i] = runtimeValueOf(v);
    }
  }
  const std::vector<Node>& nodes = graph.nodes();
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    for (ValueId in : nodes[n].inputs) {
      if (in.valid()) {
        m_lastUse[in.index] = n;
      }
    }
  }
  for (ValueId out : graph.outputs()) {
    m_lastUse[out.index] = nodes.size();
  }
  m_convs.resize(nodes.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const Node& node = nodes[n];
    if (node.op != OpKind::Conv || node.inputs.size() < 2) {
      continue;
    }
    const auto constantFloats = [&](std::size_t i) -> const golden::FloatTensor* {
      if (i >= node.inputs.size() || !node.inputs[i].valid()) {
        return nullptr;
      }
      const std::optional<RuntimeValue>& v = m_constants[node.inputs[i].index];
      return v ? std::get_if<golden::FloatTensor>(&*v) : nullptr;
    };
    const golden::FloatTensor* w = constantFloats(1);
    const golden::FloatTensor* bias = constantFloats(2);
    const bool hasBias = node.inputs.size() > 2 && node.inputs[2].valid();
    if (!node.inputs[0].valid() || w == nullptr || (hasBias && bias == nullptr)) {
      continue;
    }
    try {
      const Shape& x = graph.value(node.inputs[0]).shape;
      m_convs[n].emplace(
          x, *w, bias != nullptr ? std::span<const float>(bias->data) : std::span<const float>(),
          convParams(node, x, w->shape));
    } catch (const Error&) {
      // Left to run(), which reports it with the node's context.
    }
  }
}

TensorMap Interpreter::run(const TensorMap& inputs, const TensorHook& hook) const {
  const Graph& graph = *m_graph;
  std::vector<std::optional<RuntimeValue>> live(graph.valueCount());
  auto lookup = [&](ValueId id) -> const RuntimeValue& {
    const std::optional<RuntimeValue>& v =
        m_constants[id.index] ? m_constants[id.index] : live[id.index];
    if (!v) {
      fail("{}: value '{}' is read before it is computed", graph.source(), graph.value(id).name);
    }
    return *v;
  };

  checkGraphInputs(graph, inputs);
  for (ValueId id : graph.inputs()) {
    const Value& v = graph.value(id);
    auto it = inputs.find(v.name);
    live[id.index] = graphInputValue(graph, v, it->second);
    if (hook) {
      hook(v, it->second);
    }
  }

  const std::vector<Node>& nodes = graph.nodes();
  std::vector<const RuntimeValue*> operands;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const Node& node = nodes[n];
    operands.clear();
    for (ValueId in : node.inputs) {
      operands.push_back(in.valid() ? &lookup(in) : nullptr);
    }
    std::vector<RuntimeValue> results = withNodeContext(graph, node, [&] {
      const golden::FloatTensor* x =
          m_convs[n] ? std::get_if<golden::FloatTensor>(operands[0]) : nullptr;
      if (x != nullptr && x->shape == m_convs[n]->inputShape()) {
        return std::vector<RuntimeValue>{applyActivation(m_convs[n]->run(*x), node)};
      }
      return evaluateNode(node, operands);
    });
    for (std::size_t i = 0; i < node.outputs.size(); ++i) {
      ValueId out = node.outputs[i];
      live[out.index] = std::move(results.at(i));
      if (hook) {
        if (const auto* f = std::get_if<golden::FloatTensor>(&*live[out.index])) {
          hook(graph.value(out), *f);
        }
      }
    }
    for (ValueId in : node.inputs) {
      if (in.valid() && m_lastUse[in.index] == n) {
        live[in.index].reset();
      }
    }
  }

  TensorMap outputs;
  for (ValueId id : graph.outputs()) {
    const RuntimeValue& v = lookup(id);
    const auto* f = std::get_if<golden::FloatTensor>(&v);
    if (f == nullptr) {
      fail("{}: graph output '{}' is not an f32 tensor", graph.source(), graph.value(id).name);
    }
    outputs.emplace(graph.value(id).name, *f);
  }
  return outputs;
}

RuntimeValue graphInputValue(const Graph& graph, const Value& input,
                             const golden::FloatTensor& given) {
  if (input.dtype != DType::Int64 && input.dtype != DType::Int32) {
    return given;
  }
  // Token ids arrive as floats (one sample type for every input): back to integers, which
  // floats hold exactly up to 2^24.
  constexpr float kMaxExact = 16777216.0F;
  std::vector<std::int64_t> ids;
  ids.reserve(given.data.size());
  for (const float f : given.data) {
    if (!std::isfinite(f) || f != std::nearbyint(f) || std::fabs(f) > kMaxExact) {
      fail("{}: input '{}' holds {}, not an integer within +-2^24", graph.source(), input.name, f);
    }
    ids.push_back(static_cast<std::int64_t>(f));
  }
  if (input.dtype == DType::Int32) {
    return Tensor{input.shape, TensorData(std::vector<std::int32_t>(ids.begin(), ids.end()))};
  }
  return Tensor{input.shape, TensorData(std::move(ids))};
}

void checkGraphInputs(const Graph& graph, const TensorMap& inputs) {
  for (const auto& [name, tensor] : inputs) {
    std::optional<ValueId> id = graph.findValue(name);
    if (!id || !graph.isInput(*id)) {
      fail("{}: the graph has no input named '{}'", graph.source(), name);
    }
  }
  for (ValueId id : graph.inputs()) {
    const Value& v = graph.value(id);
    auto it = inputs.find(v.name);
    if (it == inputs.end()) {
      fail("{}: no tensor given for graph input '{}'", graph.source(), v.name);
    }
    if (it->second.shape != v.shape ||
        it->second.data.size() != static_cast<std::size_t>(elementCount(v.shape))) {
      fail("{}: input '{}' has shape {} ({} values), the graph expects {}", graph.source(), v.name,
           formatShape(it->second.shape), it->second.data.size(), formatShape(v.shape));
    }
  }
}

TensorMap interpret(const Graph& graph, const TensorMap& inputs, const TensorHook& hook) {
  return Interpreter(graph).run(inputs, hook);
}

}  // namespace npu::compiler
