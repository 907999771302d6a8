// Graph-editing helpers shared by the passes.
#include "rewrite.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "npu/compiler/ir/op_kind.h"
#include "npu/support/error.h"

namespace npu::compiler {

const TensorData* constantData(const Graph& graph, ValueId id) {
  if (!id.valid()) {
    return nullptr;
  }
  const Value& v = graph.value(id);
  return v.data ? &*v.data : nullptr;
}

std::optional<std::vector<float>> perChannelConstant(const Graph& graph, ValueId id,
                                                     std::int64_t channels) {
  const TensorData* data = constantData(graph, id);
  if (data == nullptr || data->dtype() != DType::Float32) {
    return std::nullopt;
  }
  const Shape shape = graph.value(id).shape;
  std::span<const float> values = data->floats();
  if (values.size() == 1 && shape.size() <= 4) {
    return std::vector<float>(static_cast<std::size_t>(channels), values[0]);
  }
  Shape padded(4 - std::min<std::size_t>(shape.size(), 4), 1);
  padded.insert(padded.end(), shape.begin(), shape.end());
  if (padded != Shape{1, channels, 1, 1}) {
    return std::nullopt;
  }
  return std::vector<float>(values.begin(), values.end());
}

std::optional<std::size_t> soleReader(const Graph& graph, const Uses& uses, ValueId value,
                                      OpKind op) {
  const auto readers = uses.consumers(value);
  if (readers.size() != 1 || graph.isOutput(value) || graph.nodes()[readers[0]].op != op) {
    return std::nullopt;
  }
  return readers[0];
}

std::optional<ValueId> otherOperand(const Node& node, ValueId value) {
  if (node.inputs.size() != 2) {
    return std::nullopt;
  }
  if (node.inputs[0] == value) {
    return node.inputs[1];
  }
  if (node.inputs[1] == value) {
    return node.inputs[0];
  }
  return std::nullopt;
}

std::optional<float> scalarConstant(const Graph& graph, ValueId id) {
  const TensorData* data = constantData(graph, id);
  if (data == nullptr || data->dtype() != DType::Float32 || data->size() != 1) {
    return std::nullopt;
  }
  return data->floats()[0];
}

bool bypassNode(Graph& graph, std::size_t index, ValueId in, ValueId out) {
  std::vector<Node>& nodes = graph.nodes();
  // The value that stays keeps a given quantization (a QDQ model's) of the one that goes.
  auto keepQuant = [&](ValueId from, ValueId to) {
    if (!graph.value(to).quant && graph.value(from).quant && !graph.value(to).isConstant()) {
      graph.value(to).quant = graph.value(from).quant;
    }
  };
  if (!graph.isOutput(out)) {
    keepQuant(out, in);
    graph.replaceAllUses(out, in);
  } else {
    if (graph.isInput(in) || graph.isOutput(in) || graph.value(in).isConstant()) {
      return false;
    }
    keepQuant(in, out);
    // `in`'s producer writes `out` directly; every other reader of `in` follows.
    for (std::size_t n = 0; n < index; ++n) {
      for (ValueId& produced : nodes[n].outputs) {
        if (produced == in) {
          produced = out;
        }
      }
    }
    graph.replaceAllUses(in, out);
  }
  nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(index));
  return true;
}

void absorbConsumer(Graph& graph, std::size_t producer, std::size_t consumer,
                    std::vector<bool>& removed) {
  std::vector<Node>& nodes = graph.nodes();
  nodes[producer].outputs.at(0) = nodes[consumer].outputs.at(0);
  removed.at(consumer) = true;
}

std::vector<float> convBias(const Graph& graph, const Node& conv) {
  const std::int64_t outputs = graph.value(conv.input(1)).shape.at(0);
  if (!conv.input(2).valid()) {
    return std::vector<float>(static_cast<std::size_t>(outputs), 0.0F);
  }
  std::span<const float> b = constantData(graph, conv.input(2))->floats();
  return {b.begin(), b.end()};
}

void replaceConvParameters(Graph& graph, std::size_t index, std::string_view suffix,
                           std::vector<float> weights, std::vector<float> bias) {
  const std::string base = graph.nodes()[index].name;
  const Shape weightShape = graph.value(graph.nodes()[index].input(1)).shape;
  const auto outputs = static_cast<std::int64_t>(bias.size());
  // Unchanged weights (a fold that only moved the bias) keep their given quantization.
  const Value& old = graph.value(graph.nodes()[index].input(1));
  std::optional<QuantParams> quant;
  if (old.quant && old.isConstant() && old.data->dtype() == DType::Float32 &&
      std::equal(weights.begin(), weights.end(), old.data->floats().begin(),
                 old.data->floats().end())) {
    quant = old.quant;
  }
  ValueId weightId = addFloatConstant(graph, base + ".weight_" + std::string(suffix), weightShape,
                                      std::move(weights));
  graph.value(weightId).quant = quant;
  ValueId biasId =
      addFloatConstant(graph, base + ".bias_" + std::string(suffix), {outputs}, std::move(bias));
  Node& target = graph.nodes()[index];
  target.inputs.resize(3);
  target.inputs[1] = weightId;
  target.inputs[2] = biasId;
}

ValueId addFloatConstant(Graph& graph, std::string_view base, Shape shape,
                         std::vector<float> values) {
  return graph.addConstant(graph.uniqueValueName(base), std::move(shape),
                           TensorData(std::move(values)));
}

ValueId addIndexConstant(Graph& graph, std::string_view base, std::vector<std::int64_t> values) {
  Shape shape{static_cast<std::int64_t>(values.size())};
  return graph.addConstant(graph.uniqueValueName(base), std::move(shape),
                           TensorData(std::move(values)));
}

bool isTwinElementwise(OpKind op) {
  switch (op) {
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Pow:
    case OpKind::Min:
    case OpKind::Max:
      return true;
    default:
      return op != OpKind::PRelu && (isActivation(op) || isUnaryMath(op));
  }
}

ValueId addTypedIntermediate(Graph& graph, std::string_view name, Shape shape) {
  ValueId id = graph.addIntermediate(graph.uniqueValueName(name));
  Value& v = graph.value(id);
  v.shape = std::move(shape);
  v.typed = true;
  return id;
}

ValueId appendRewriteNode(Graph& graph, std::vector<Node>& nodes, std::string_view base,
                          std::string_view tag, OpKind op, std::vector<ValueId> inputs, ValueId out,
                          Attributes attributes) {
  Node node;
  const std::string number = nodes.empty() ? "" : std::to_string(nodes.size());
  node.name = graph.uniqueNodeName(std::string(base) + std::string(tag) + number);
  node.op = op;
  node.inputs = std::move(inputs);
  node.outputs = {out};
  node.attributes = std::move(attributes);
  nodes.push_back(std::move(node));
  return out;
}

std::optional<std::vector<std::size_t>> nodesBetween(
    const Graph& graph, const Uses& uses, ValueId from, ValueId to,
    const std::function<bool(const Node&)>& allowed, std::size_t maxNodes) {
  std::set<std::size_t> nodes;
  std::vector<ValueId> pending{to};
  while (!pending.empty()) {
    const ValueId v = pending.back();
    pending.pop_back();
    if (v == from || graph.value(v).isConstant()) {
      continue;
    }
    const std::optional<std::size_t> p = uses.producer(v);
    if (!p || !allowed(graph.nodes()[*p]) || nodes.size() >= maxNodes) {
      return std::nullopt;
    }
    if (nodes.insert(*p).second) {
      for (const ValueId in : graph.nodes()[*p].inputs) {
        if (in.valid()) {
          pending.push_back(in);
        }
      }
    }
  }
  return std::vector<std::size_t>(nodes.begin(), nodes.end());
}

namespace {

/// A Neg, or a Mul of `known` data by a constant +1 or -1: the data's numbers, negated or not.
std::optional<Tensor> signedCopy(const Graph& graph, const Node& n,
                                 const std::map<ValueId, Tensor>& known) {
  const bool neg = n.op == OpKind::Neg;
  const ValueId data = neg || known.contains(n.input(0)) ? n.input(0) : n.input(1);
  const std::optional<float> factor =
      neg ? std::optional<float>(-1.0F)
          : scalarConstant(graph, data == n.input(0) ? n.input(1) : n.input(0));
  if (!known.contains(data) || !factor || std::abs(*factor) != 1.0F) {
    return std::nullopt;
  }
  Tensor out = known.at(data);
  if (*factor < 0) {
    for (std::int64_t& v : out.data.mutableInt64s()) {
      v = -v;
    }
  }
  return out;
}

}  // namespace

std::optional<Tensor> numberedElements(const Graph& graph, ValueId from, ValueId to,
                                       const std::vector<std::size_t>& nodes,
                                       std::int64_t maxElements) {
  const Shape shape = graph.value(from).shape;
  const std::int64_t count =
      std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
  if (count > maxElements) {
    return std::nullopt;
  }
  std::map<ValueId, Tensor> known;
  std::vector<std::int64_t> numbers(static_cast<std::size_t>(count));
  std::iota(numbers.begin(), numbers.end(), std::int64_t{1});
  known[from] = Tensor{shape, TensorData(std::move(numbers))};
  try {
    for (const std::size_t index : nodes) {
      const Node& n = graph.nodes()[index];
      if (n.op == OpKind::Neg || n.op == OpKind::Mul) {
        std::optional<Tensor> out = signedCopy(graph, n, known);
        if (!out) {
          return std::nullopt;
        }
        known[n.outputs[0]] = std::move(*out);
        continue;
      }
      std::vector<Tensor> constants;
      constants.reserve(n.inputs.size());
      std::vector<const Tensor*> inputs;
      for (const ValueId in : n.inputs) {
        if (!in.valid()) {
          inputs.push_back(nullptr);
        } else if (known.contains(in)) {
          inputs.push_back(&known.at(in));
        } else if (const TensorData* data = constantData(graph, in)) {
          constants.push_back(Tensor{graph.value(in).shape, *data});
          inputs.push_back(&constants.back());
        } else {
          return std::nullopt;
        }
      }
      std::vector<Tensor> outputs = evaluateIndexOp(n, inputs);
      for (std::size_t i = 0; i < n.outputs.size() && i < outputs.size(); ++i) {
        known[n.outputs[i]] = std::move(outputs[i]);
      }
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  const auto it = known.find(to);
  return it != known.end() ? std::optional<Tensor>(it->second) : std::nullopt;
}

}  // namespace npu::compiler
