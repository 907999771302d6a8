// The YAML front end: document structure, name scopes, block expansion; layers in yaml_layers.
#include "npu/compiler/frontend/yaml_import.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <limits>
#include <map>

#include "npu/compiler/ir/verify.h"
#include "npu/compiler/passes/infer_shapes.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/yaml_reader.h"
#include "weight_init.h"
#include "yaml_layers.h"

namespace npu::compiler {
namespace {

/// Blocks may use blocks, this deep.
constexpr int kMaxBlockDepth = 16;
/// Layers a spec may expand to, blocks included: blocks that use blocks multiply, so a few lines
/// could otherwise ask for 10^11 layers (docs/reliability.md, "Bounded resources").
constexpr std::size_t kMaxExpandedLayers = 100'000;

/// The names visible to the layers of one list: the list's own layers, then the enclosing ones.
struct Scope {
  std::string prefix;
  const Scope* parent = nullptr;
  std::map<std::string, ValueId> names;
  /// What a layer without `input:` reads: the previous layer, or the list's input.
  ValueId previous;
};

/// A deep copy of `node` with every scalar "$param" replaced by the parameter's value.
YAML::Node substitute(const YAML::Node& node, const std::map<std::string, YAML::Node>& params) {
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    if (text.size() > 1 && text[0] == '$') {
      auto it = params.find(text.substr(1));
      if (it == params.end()) {
        fail("unknown block parameter '{}'", text);
      }
      return YAML::Clone(it->second);
    }
    return YAML::Clone(node);
  }
  if (node.IsSequence()) {
    YAML::Node out(YAML::NodeType::Sequence);
    for (const auto& item : node) {
      out.push_back(substitute(item, params));
    }
    return out;
  }
  if (node.IsMap()) {
    YAML::Node out(YAML::NodeType::Map);
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {
        fail("a key of a block's layer must be a single value");
      }
      out[entry.first.Scalar()] = substitute(entry.second, params);
    }
    return out;
  }
  return YAML::Clone(node);
}

class YamlImporter {
 public:
  YamlImporter(std::string source, std::filesystem::path baseDir, const GraphYamlLimits& limits)
      : m_source(std::move(source)), m_baseDir(std::move(baseDir)), m_limits(limits) {}

  Graph run(const YAML::Node& root) {
    if (!root.IsMap()) {
      fail("{}: a graph spec must be a map with inputs and layers", at(root));
    }
    yaml::Node(root, m_source)
        .expectMap("the graph", {"name", "seed", "inputs", "layers", "outputs", "blocks"});
    std::string name = root["name"] ? scalar(root["name"], "the graph's 'name'")
                                    : std::filesystem::path(m_source).stem().string();
    m_graph = Graph(name, m_source);
    m_seed = root["seed"] ? static_cast<std::uint64_t>(integer(
                                root["seed"], "seed", 0, std::numeric_limits<std::int64_t>::max()))
                          : 0;
    if (root["blocks"]) {
      m_blocks.reset(root["blocks"]);
      if (!m_blocks.IsMap()) {
        fail("{}: 'blocks' must be a map of block name to block", at(m_blocks));
      }
      for (const auto& entry : m_blocks) {  // unused blocks too: a typo should not hide
        if (!entry.second.IsMap()) {
          fail("{}: block '{}' must be a mapping with 'layers' (and 'params')", at(entry.second),
               scalar(entry.first, "a block name"));
        }
      }
    }
    Scope top;
    addInputs(root["inputs"], root, top);
    if (!root["layers"] || !root["layers"].IsSequence() || root["layers"].size() == 0) {
      fail("{}: 'layers' must be a non-empty list", at(root["layers"] ? root["layers"] : root));
    }
    buildList(root["layers"], root["layers"], top, 0);
    addOutputs(root["outputs"], top);
    // Shapes are inferred and bounded before the statistics pass runs the graph on a random input.
    inferShapes(m_graph);
    verifyGraph(m_graph);
    if (!m_estimate.empty()) {
      std::int64_t activations = 0;  // each value at most 2^28 elements: the sum fits
      for (std::uint32_t v = 0; v < m_graph.valueCount(); ++v) {
        const Value& value = m_graph.value(ValueId{v});
        activations += value.isConstant() ? 0 : elementCount(value.shape);
      }
      if (activations > m_limits.statisticsElements) {
        fail(
            "{}: measuring the BatchNorm statistics would run the graph over {} activation "
            "elements, above the limit of {}",
            m_source, activations, m_limits.statisticsElements);
      }
    }
    estimateBatchNormStatistics(m_graph, m_seed, m_estimate);
    return std::move(m_graph);
  }

 private:
  std::string at(const YAML::Node& node) const {
    return fmt::format("{}:{}", m_source, std::max(node.Mark().line, 0) + 1);
  }

  /// A single value as text; yaml-cpp would say only "bad conversion" for a list or a mapping.
  std::string scalar(const YAML::Node& node, std::string_view what) const {
    if (!node.IsScalar()) {
      fail("{}: {} must be a single value, not a {}", at(node), what,
           node.IsSequence() ? "list"
           : node.IsMap()    ? "mapping"
                             : "null");
    }
    return node.Scalar();
  }

  /// An integer in [lowest, highest], `key` naming it in messages.
  std::int64_t integer(const YAML::Node& node, std::string_view key, std::int64_t lowest,
                       std::int64_t highest) const {
    return yaml::Node(node, m_source, std::string(key)).integer(lowest, highest);
  }

  void addInputs(const YAML::Node& inputs, const YAML::Node& root, Scope& scope) {
    if (!inputs || inputs.size() == 0) {
      fail("{}: 'inputs' must list at least one input", at(inputs ? inputs : root));
    }
    auto add = [&](const std::string& name, const YAML::Node& shapeNode) {
      Value v;
      v.name = name;
      try {
        v.shape = shapeNode.as<std::vector<std::int64_t>>();
      } catch (const YAML::Exception&) {
        fail("{}: input '{}': the shape must be a list of integers", at(shapeNode), name);
      }
      if (v.shape.empty() ||
          std::any_of(v.shape.begin(), v.shape.end(), [](std::int64_t d) { return d < 1; })) {
        fail("{}: input '{}': shape {} must have positive dimensions", at(shapeNode), name,
             formatShape(v.shape));
      }
      (void)boundedElementCount(v.shape, fmt::format("{}: input '{}'", at(shapeNode), name));
      v.typed = true;
      if (m_graph.findValue(name)) {
        fail("{}: input '{}' is declared twice", at(shapeNode), name);
      }
      ValueId id = m_graph.addValue(std::move(v));
      m_graph.addInput(id);
      scope.names[name] = id;
      if (!scope.previous.valid()) {
        scope.previous = id;
      }
    };
    if (inputs.IsMap()) {
      for (const auto& entry : inputs) {
        add(scalar(entry.first, "an input name"), entry.second);
      }
    } else if (inputs.IsSequence()) {
      for (const auto& entry : inputs) {
        if (!entry["name"] || !entry["shape"]) {
          fail("{}: an input needs a name and a shape", at(entry));
        }
        add(scalar(entry["name"], "an input's 'name'"), entry["shape"]);
      }
    } else {
      fail("{}: 'inputs' must map names to shapes", at(inputs));
    }
  }

  ValueId resolve(const Scope& scope, const std::string& name) const {
    for (const Scope* s = &scope; s != nullptr; s = s->parent) {
      auto it = s->names.find(name);
      if (it != s->names.end()) {
        return it->second;
      }
    }
    if (std::optional<ValueId> id = m_graph.findValue(name)) {
      return *id;  // A full value name, e.g. a block's $input.
    }
    fail("unknown input '{}' (not an input or an earlier layer)", name);
  }

  std::vector<ValueId> layerInputs(const YAML::Node& layer, const Scope& scope) const {
    if (layer["input"] && layer["inputs"]) {
      fail("give 'input' or 'inputs', not both");
    }
    if (layer["input"]) {
      return {resolve(scope, scalar(layer["input"], "'input'"))};
    }
    if (layer["inputs"]) {
      std::vector<ValueId> ids;
      for (const auto& name : layer["inputs"]) {
        ids.push_back(resolve(scope, scalar(name, "an item of 'inputs'")));
      }
      return ids;
    }
    return {scope.previous};
  }

  /// Builds `layers`; `written` is the same list as written in the file (before block parameters
  /// were substituted), which error messages take their line numbers from.
  void buildList(const YAML::Node& layers, const YAML::Node& written, Scope& scope, int depth) {
    for (std::size_t i = 0; i < layers.size(); ++i) {
      buildLayerNode(layers[i], at(written[i]), scope, depth);
    }
  }

  void buildLayerNode(const YAML::Node& layer, const std::string& where, Scope& scope, int depth) {
    if (!layer.IsMap()) {
      fail("{}: a layer must be a map with an 'op' or a 'block'", where);
    }
    bool isBlock = static_cast<bool>(layer["block"]);
    std::string kind = isBlock ? scalar(layer["block"], "'block'")
                               : (layer["op"] ? scalar(layer["op"], "'op'") : std::string());
    if (kind.empty()) {
      fail("{}: a layer needs an 'op' or a 'block'", where);
    }
    std::string local = layer["name"] ? scalar(layer["name"], "a layer's 'name'")
                                      : fmt::format("{}_{}", kind, m_counter);
    ++m_counter;
    if (m_counter > kMaxExpandedLayers) {
      fail("{}: the spec expands to more than {} layers (blocks inside blocks multiply)", where,
           kMaxExpandedLayers);
    }
    std::string full = scope.prefix + local;
    if (scope.names.contains(local)) {
      fail("{}: layer '{}' is defined twice", where, full);
    }
    ValueId out;
    try {
      std::vector<ValueId> inputs = layerInputs(layer, scope);
      out = isBlock ? expandBlock(layer, kind, full, inputs, scope, depth)
                    : buildOp(layer, kind, full, inputs);
    } catch (const Error& e) {
      std::string message = e.what();
      if (message.starts_with(m_source + ":")) {
        throw;  // Already located (an error inside a block).
      }
      fail("{}: layer '{}' ({}): {}", where, full, kind, message);
    }
    scope.names[local] = out;
    scope.previous = out;
  }

  ValueId buildOp(const YAML::Node& layer, const std::string& op, const std::string& name,
                  std::vector<ValueId> inputs) {
    LayerKeys keys(layer);
    keys.accept("name");
    keys.accept("op");
    keys.accept("input");
    keys.accept("inputs");
    LayerBuild build{m_graph,   name,   op,         std::move(inputs), keys,
                     m_baseDir, m_seed, m_estimate, m_seededWeights,   m_limits.seededWeights};
    return buildLayer(build);
  }

  ValueId expandBlock(const YAML::Node& layer, const std::string& blockName,
                      const std::string& name, std::vector<ValueId> inputs, const Scope& scope,
                      int depth) {
    if (depth >= kMaxBlockDepth) {
      fail("blocks nest deeper than {} (a block using itself?)", kMaxBlockDepth);
    }
    if (!m_blocks || !m_blocks[blockName]) {
      fail("unknown block '{}'", blockName);
    }
    if (inputs.size() != 1) {
      fail("a block reads one input, has {}", inputs.size());
    }
    YAML::Node block = m_blocks[blockName];
    if (!block["layers"] || !block["layers"].IsSequence()) {
      fail("block '{}' has no 'layers' list", blockName);
    }
    std::map<std::string, YAML::Node> defaults;
    if (block["params"]) {
      for (const auto& entry : block["params"]) {
        defaults[scalar(entry.first, "a block parameter name")] = entry.second;
      }
    }
    for (const auto& entry : block) {
      auto key = scalar(entry.first, "a key of a block");
      if (key != "params" && key != "layers") {
        fail("block '{}': unknown key '{}'", blockName, key);
      }
    }
    std::int64_t repeat = layer["repeat"] ? integer(layer["repeat"], "repeat", 1,
                                                    static_cast<std::int64_t>(kMaxExpandedLayers))
                                          : 1;
    if (repeat < 1) {
      fail("'repeat' must be at least 1");
    }
    std::map<std::string, YAML::Node> params = defaults;
    for (const auto& entry : layer) {
      auto key = scalar(entry.first, "a key of a layer");
      if (key == "name" || key == "block" || key == "input" || key == "inputs" || key == "repeat") {
        continue;
      }
      if (!defaults.contains(key)) {
        fail("block '{}' has no parameter '{}'", blockName, key);
      }
      // Not `params[key] = value`: assigning to a YAML::Node rebinds the node it shares with
      // the block's `params`, so one use's value would become the default of every later use.
      params.erase(key);
      params.emplace(key, entry.second);
    }
    ValueId current = inputs[0];
    for (std::int64_t i = 0; i < repeat; ++i) {
      Scope inner;
      inner.prefix = repeat == 1 ? name + "/" : fmt::format("{}.{}/", name, i);
      inner.parent = &scope;
      inner.previous = current;
      params.erase("input");
      params.emplace("input", YAML::Node(m_graph.value(current).name));
      YAML::Node layers = substitute(block["layers"], params);
      buildList(layers, block["layers"], inner, depth + 1);
      current = inner.previous;
    }
    return current;
  }

  void addOutputs(const YAML::Node& outputs, const Scope& top) {
    if (!outputs) {
      m_graph.addOutput(top.previous);
      return;
    }
    std::vector<std::string> names;
    if (outputs.IsScalar()) {
      names.push_back(scalar(outputs, "'outputs'"));
    } else {
      if (!outputs.IsSequence()) {
        fail("{}: 'outputs' must be a name or a list of names", at(outputs));
      }
      for (const auto& item : outputs) {
        names.push_back(scalar(item, "an item of 'outputs'"));
      }
    }
    for (const std::string& name : names) {
      try {
        m_graph.addOutput(resolve(top, name));
      } catch (const Error& e) {
        fail("{}: outputs: {}", at(outputs), e.what());
      }
    }
  }

  std::string m_source;
  std::filesystem::path m_baseDir;
  Graph m_graph;
  std::uint64_t m_seed = 0;
  YAML::Node m_blocks;
  std::unordered_set<std::string> m_estimate;
  std::size_t m_counter = 0;
  std::int64_t m_seededWeights = 0;
  GraphYamlLimits m_limits;
};

}  // namespace

Graph parseGraphYaml(const std::string& text, const std::string& source,
                     const std::filesystem::path& baseDir, const GraphYamlLimits& limits) {
  const YAML::Node root = yaml::parse(text, source).raw();  // syntax errors FILE:LINE:COL
  try {
    return YamlImporter(source, baseDir, limits).run(root);
  } catch (const YAML::Exception& e) {
    yaml::failOnYamlException(e, source);
  }
}

Graph importGraphYaml(const std::filesystem::path& path) {
  return parseGraphYaml(readTextFile(path), path.string(), path.parent_path());
}

}  // namespace npu::compiler
