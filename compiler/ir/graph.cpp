// Graph storage, edits, and the Uses snapshot passes match patterns with.
#include "npu/compiler/ir/graph.h"

#include <algorithm>

#include "npu/compiler/ir/diagnostics.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

ValueId idOf(std::size_t index) {
  return ValueId{static_cast<std::uint32_t>(index)};
}

}  // namespace

Graph::Graph(std::string name, std::string source)
    : m_name(std::move(name)), m_source(std::move(source)) {}

ValueId Graph::addValue(Value value) {
  if (m_valueIndex.contains(value.name)) {
    fail("{}: duplicate value name '{}'", source(), value.name);
  }
  ValueId id = idOf(m_values.size());
  m_valueIndex.emplace(value.name, id);
  m_values.push_back(std::move(value));
  return id;
}

ValueId Graph::addConstant(std::string name, Shape shape, TensorData data) {
  Value value;
  value.name = std::move(name);
  value.dtype = data.dtype();
  value.shape = std::move(shape);
  value.typed = true;
  value.data = std::move(data);
  return addValue(std::move(value));
}

ValueId Graph::addIntermediate(std::string name) {
  Value value;
  value.name = std::move(name);
  return addValue(std::move(value));
}

Value& Graph::value(ValueId id) {
  checkId(id);
  return m_values[id.index];
}

const Value& Graph::value(ValueId id) const {
  checkId(id);
  return m_values[id.index];
}

void Graph::checkId(ValueId id) const {
  if (!id.valid() || id.index >= m_values.size()) {
    fail("{}: value id {} out of range", source(), id.index);
  }
}

std::optional<ValueId> Graph::findValue(std::string_view name) const {
  auto it = m_valueIndex.find(std::string(name));
  if (it == m_valueIndex.end()) {
    return std::nullopt;
  }
  return it->second;
}

bool Graph::namesNode(const Node& node, std::string_view name) const {
  return node.name == name || std::any_of(node.outputs.begin(), node.outputs.end(),
                                          [&](ValueId id) { return value(id).name == name; });
}

std::string Graph::uniqueValueName(std::string_view base) const {
  std::string name(base);
  for (int suffix = 1; m_valueIndex.contains(name); ++suffix) {
    name = fmt::format("{}_{}", base, suffix);
  }
  return name;
}

void Graph::addNode(Node node) {
  if (m_takenNodeNamesCount == m_nodes.size()) {  // in step: keep it so
    m_takenNodeNames.insert(node.name);
    ++m_takenNodeNamesCount;
  }
  m_nodes.push_back(std::move(node));
}

std::string Graph::uniqueNodeName(std::string_view base) const {
  if (m_takenNodeNamesCount != m_nodes.size()) {
    // Passes inserted or removed nodes through nodes(): start again from the nodes themselves.
    m_takenNodeNames.clear();
    for (const Node& node : m_nodes) {
      m_takenNodeNames.insert(node.name);
    }
    m_takenNodeNamesCount = m_nodes.size();
  }
  std::string name(base);
  for (int suffix = 1; m_takenNodeNames.contains(name); ++suffix) {
    name = fmt::format("{}_{}", base, suffix);
  }
  m_takenNodeNames.insert(name);
  return name;
}

bool Graph::isInput(ValueId id) const {
  return std::find(m_inputs.begin(), m_inputs.end(), id) != m_inputs.end();
}

bool Graph::isOutput(ValueId id) const {
  return std::find(m_outputs.begin(), m_outputs.end(), id) != m_outputs.end();
}

void Graph::replaceAllUses(ValueId from, ValueId to) {
  for (Node& node : m_nodes) {
    std::replace(node.inputs.begin(), node.inputs.end(), from, to);
  }
  std::replace(m_outputs.begin(), m_outputs.end(), from, to);
}

void Graph::removeNodes(const std::vector<bool>& remove) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < m_nodes.size(); ++i) {
    if (i >= remove.size() || !remove[i]) {
      if (kept != i) {
        m_nodes[kept] = std::move(m_nodes[i]);
      }
      ++kept;
    }
  }
  m_nodes.resize(kept);
}

void Graph::removeUnusedValues() {
  std::vector<bool> used(m_values.size(), false);
  auto mark = [&](ValueId id) {
    if (id.valid()) {
      used[id.index] = true;
    }
  };
  for (const Node& node : m_nodes) {
    std::for_each(node.inputs.begin(), node.inputs.end(), mark);
    std::for_each(node.outputs.begin(), node.outputs.end(), mark);
  }
  std::for_each(m_inputs.begin(), m_inputs.end(), mark);
  std::for_each(m_outputs.begin(), m_outputs.end(), mark);

  std::vector<ValueId> renumbered(m_values.size());
  std::vector<Value> kept;
  kept.reserve(m_values.size());
  m_valueIndex.clear();
  for (std::size_t i = 0; i < m_values.size(); ++i) {
    if (used[i]) {
      renumbered[i] = idOf(kept.size());
      m_valueIndex.emplace(m_values[i].name, renumbered[i]);
      kept.push_back(std::move(m_values[i]));
    }
  }
  m_values = std::move(kept);
  auto remap = [&](ValueId& id) {
    if (id.valid()) {
      id = renumbered[id.index];
    }
  };
  for (Node& node : m_nodes) {
    std::for_each(node.inputs.begin(), node.inputs.end(), remap);
    std::for_each(node.outputs.begin(), node.outputs.end(), remap);
  }
  std::for_each(m_inputs.begin(), m_inputs.end(), remap);
  std::for_each(m_outputs.begin(), m_outputs.end(), remap);
}

const Value& inputValue(const Graph& graph, const Node& node, std::size_t i) {
  ValueId id = node.input(i);
  if (!id.valid()) {
    failAtNode(graph, node, "input {} is missing", i);
  }
  return graph.value(id);
}

Uses::Uses(const Graph& graph)
    : m_graph(&graph),
      m_producer(graph.valueCount()),
      m_consumers(graph.valueCount()),
      m_readCount(graph.valueCount(), 0) {
  const std::vector<Node>& nodes = graph.nodes();
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    for (ValueId out : nodes[n].outputs) {
      if (out.valid() && out.index < m_producer.size()) {
        m_producer[out.index] = n;
      }
    }
    for (ValueId in : nodes[n].inputs) {
      if (!in.valid() || in.index >= m_consumers.size()) {
        continue;
      }
      ++m_readCount[in.index];
      std::vector<std::size_t>& readers = m_consumers[in.index];
      if (readers.empty() || readers.back() != n) {
        readers.push_back(n);
      }
    }
  }
}

// An omitted optional input (an invalid id) is produced and read by nothing: pattern matchers
// ask about a node's inputs before any pass has checked that they are present.
std::optional<std::size_t> Uses::producer(ValueId id) const {
  return id.valid() ? m_producer.at(id.index) : std::nullopt;
}

std::span<const std::size_t> Uses::consumers(ValueId id) const {
  if (!id.valid()) {
    return {};
  }
  return m_consumers.at(id.index);
}

bool Uses::hasSingleUse(ValueId id) const {
  return id.valid() && m_readCount.at(id.index) == 1 && !m_graph->isOutput(id);
}

}  // namespace npu::compiler
