// The compiler IR: a graph of nodes over typed values, kept in topological order.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "npu/compiler/ir/attributes.h"
#include "npu/compiler/ir/op_kind.h"
#include "npu/compiler/ir/tensor_data.h"
#include "npu/compiler/ir/types.h"

namespace npu::compiler {

/// Index of a value in its graph. The default-constructed id is "no value" (an omitted optional
/// input, ONNX's empty name).
struct ValueId {
  std::uint32_t index = std::numeric_limits<std::uint32_t>::max();

  bool valid() const { return index != std::numeric_limits<std::uint32_t>::max(); }
  friend auto operator<=>(const ValueId&, const ValueId&) = default;
};

/// Quantization parameters of a value: per-tensor (one scale) or per channel along `axis`.
/// The fp32 front end leaves them empty; the quantizer fills them.
struct QuantParams {
  std::vector<float> scales;
  std::vector<std::int32_t> zeroPoints;
  std::int64_t axis = -1;

  friend bool operator==(const QuantParams&, const QuantParams&) = default;
};

/// A tensor flowing through the graph: a graph input, a node output or a constant.
struct Value {
  std::string name;
  DType dtype = DType::Float32;
  Shape shape;
  /// False until shape inference has run on the producer.
  bool typed = false;
  /// The elements, for constants (initializers, folded values).
  std::optional<TensorData> data;
  std::optional<QuantParams> quant;

  bool isConstant() const { return data.has_value(); }
};

/// One op application. Inputs and outputs refer to values of the same graph.
struct Node {
  std::string name;
  OpKind op = OpKind::Identity;
  /// In ONNX order; an invalid id stands for an omitted optional input.
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  Attributes attributes;

  /// The i-th input, or an invalid id when there are fewer inputs.
  ValueId input(std::size_t i) const { return i < inputs.size() ? inputs[i] : ValueId{}; }
};

/// A computation graph. Nodes are kept in topological order: every input of a node is a graph
/// input, a constant or the output of an earlier node. Value and node names are unique.
class Graph {
 public:
  /// `source` names where the graph came from (a file path) and prefixes every error message.
  explicit Graph(std::string name = "graph", std::string source = "");

  const std::string& name() const { return m_name; }
  /// The file the graph was read from, or the graph's name for a graph built in memory.
  const std::string& source() const { return m_source.empty() ? m_name : m_source; }

  // Values.
  /// Adds a value; throws Error when the name is taken.
  ValueId addValue(Value value);
  /// Adds a typed constant.
  ValueId addConstant(std::string name, Shape shape, TensorData data);
  /// Adds an untyped value to be produced by a node.
  ValueId addIntermediate(std::string name);
  Value& value(ValueId id);
  const Value& value(ValueId id) const;
  std::size_t valueCount() const { return m_values.size(); }
  /// The value named `name`, if any.
  std::optional<ValueId> findValue(std::string_view name) const;
  /// `base` if no value has that name, else `base_1`, `base_2`, ...
  std::string uniqueValueName(std::string_view base) const;
  /// True when `name` is the node's name or the name of one of its outputs: how configs and
  /// options name a layer.
  bool namesNode(const Node& node, std::string_view name) const;

  // Nodes.
  const std::vector<Node>& nodes() const { return m_nodes; }
  /// Mutable access for passes; keep names unique and the order topological.
  std::vector<Node>& nodes() { return m_nodes; }
  /// Appends a node (it must come after its inputs' producers).
  void addNode(Node node);
  /// `base` if no node has that name, else `base_1`, `base_2`, ... The name is reserved: a later
  /// call does not hand it out again, so passes may name several nodes before inserting them.
  std::string uniqueNodeName(std::string_view base) const;

  // Graph inputs and outputs, in declaration order.
  const std::vector<ValueId>& inputs() const { return m_inputs; }
  const std::vector<ValueId>& outputs() const { return m_outputs; }
  void addInput(ValueId id) { m_inputs.push_back(id); }
  void addOutput(ValueId id) { m_outputs.push_back(id); }
  bool isInput(ValueId id) const;
  bool isOutput(ValueId id) const;

  // Edits.
  /// Makes every node input and graph output that reads `from` read `to` instead.
  void replaceAllUses(ValueId from, ValueId to);
  /// Removes the nodes whose flag is set (`remove` has one flag per node).
  void removeNodes(const std::vector<bool>& remove);
  /// Drops values that no node, graph input or graph output refers to, renumbering the rest.
  void removeUnusedValues();

 private:
  void checkId(ValueId id) const;

  std::string m_name;
  std::string m_source;
  std::vector<Value> m_values;
  std::vector<Node> m_nodes;
  std::vector<ValueId> m_inputs;
  std::vector<ValueId> m_outputs;
  std::unordered_map<std::string, ValueId> m_valueIndex;
  /// The node names taken, for uniqueNodeName in constant time (a linear scan made importing a
  /// graph quadratic): every name addNode added or uniqueNodeName handed out, a superset of the
  /// current names. Rebuilt from the nodes when passes changed their count through nodes().
  mutable std::unordered_set<std::string> m_takenNodeNames;
  mutable std::size_t m_takenNodeNamesCount = 0;
};

/// The i-th input of `node` as a value; throws Error naming the node when it is omitted.
const Value& inputValue(const Graph& graph, const Node& node, std::size_t i);

/// Where each value is produced and read, for passes that match patterns. A snapshot: rebuild it
/// after editing the graph.
class Uses {
 public:
  explicit Uses(const Graph& graph);

  /// Index of the node producing `id`, or nullopt for inputs and constants.
  std::optional<std::size_t> producer(ValueId id) const;
  /// Indices of the nodes reading `id`, in node order, once per node.
  std::span<const std::size_t> consumers(ValueId id) const;
  /// True when exactly one node reads `id`, through one input, and it is not a graph output.
  bool hasSingleUse(ValueId id) const;

 private:
  const Graph* m_graph;
  std::vector<std::optional<std::size_t>> m_producer;
  std::vector<std::vector<std::size_t>> m_consumers;
  std::vector<std::uint32_t> m_readCount;
};

}  // namespace npu::compiler
