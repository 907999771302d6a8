// The IR verifier: references, single definition before use, names, types, constant sizes and
// the op rules' shapes.
#include "npu/compiler/ir/verify.h"

#include <unordered_set>

#include "npu/compiler/ir/diagnostics.h"
#include "npu/compiler/ir/shape_inference.h"

namespace npu::compiler {
namespace {

enum class State : std::uint8_t { Undefined, Defined };

void checkValue(const Graph& graph, ValueId id) {
  const Value& v = graph.value(id);
  if (!v.typed) {
    fail("{}: value '{}' has no type", graph.source(), v.name);
  }
  (void)boundedElementCount(v.shape, fmt::format("{}: value '{}'", graph.source(), v.name));
  if (v.data) {
    if (v.data->dtype() != v.dtype) {
      fail("{}: constant '{}' is declared {} but holds {} data", graph.source(), v.name,
           dtypeName(v.dtype), dtypeName(v.data->dtype()));
    }
    if (v.data->size() != elementCount(v.shape)) {
      fail("{}: constant '{}' has {} elements, its shape {} needs {}", graph.source(), v.name,
           v.data->size(), formatShape(v.shape), elementCount(v.shape));
    }
  }
}

void checkReference(const Graph& graph, ValueId id, std::string_view where) {
  if (!id.valid() || id.index >= graph.valueCount()) {
    fail("{}: {} refers to a value that does not exist", graph.source(), where);
  }
}

}  // namespace

void verifyGraph(const Graph& graph) {
  std::vector<State> state(graph.valueCount(), State::Undefined);
  std::vector<const Node*> producer(graph.valueCount(), nullptr);
  for (ValueId id : graph.inputs()) {
    checkReference(graph, id, "a graph input");
    state[id.index] = State::Defined;
  }
  for (std::size_t i = 0; i < graph.valueCount(); ++i) {
    if (graph.value(ValueId{static_cast<std::uint32_t>(i)}).isConstant()) {
      state[i] = State::Defined;
    }
  }
  for (const Node& node : graph.nodes()) {
    for (ValueId out : node.outputs) {
      checkReference(graph, out, nodeContext(graph, node) + " output");
      if (producer[out.index] != nullptr) {
        failAtNode(graph, node, "output '{}' is also produced by node '{}'", graph.value(out).name,
                   producer[out.index]->name);
      }
      producer[out.index] = &node;
    }
  }

  std::unordered_set<std::string_view> nodeNames;
  for (const Node& node : graph.nodes()) {
    if (!nodeNames.insert(node.name).second) {
      failAtNode(graph, node, "duplicate node name");
    }
    for (ValueId in : node.inputs) {
      if (!in.valid()) {
        continue;
      }
      checkReference(graph, in, nodeContext(graph, node) + " input");
      if (state[in.index] == State::Defined) {
        continue;
      }
      if (producer[in.index] != nullptr) {
        failAtNode(graph, node,
                   "reads '{}' before node '{}' produces it (a cycle or nodes out of order)",
                   graph.value(in).name, producer[in.index]->name);
      }
      failAtNode(graph, node, "reads '{}', which is not an input, a constant or a node output",
                 graph.value(in).name);
    }
    for (ValueId out : node.outputs) {
      if (graph.value(out).isConstant() || graph.isInput(out)) {
        failAtNode(graph, node, "output '{}' is also a graph input or a constant",
                   graph.value(out).name);
      }
      state[out.index] = State::Defined;
    }
  }
  for (ValueId id : graph.outputs()) {
    checkReference(graph, id, "a graph output");
    if (state[id.index] != State::Defined) {
      fail("{}: graph output '{}' is never produced", graph.source(), graph.value(id).name);
    }
  }
  for (std::size_t i = 0; i < graph.valueCount(); ++i) {
    if (state[i] == State::Defined) {
      checkValue(graph, ValueId{static_cast<std::uint32_t>(i)});
    }
  }

  InferredTypes types = inferGraph(graph);
  for (const Node& node : graph.nodes()) {
    for (ValueId out : node.outputs) {
      const Value& v = graph.value(out);
      const KnownValue& inferred = types[out];
      if (v.dtype != inferred.dtype || v.shape != inferred.shape) {
        failAtNode(graph, node, "output '{}' is {}, but the op rule infers {}", v.name,
                   formatType(v.dtype, v.shape), formatType(inferred.dtype, inferred.shape));
      }
    }
  }
}

}  // namespace npu::compiler
