// The quantization config: YAML parsing with line-numbered errors, and override resolution.
#include "npu/compiler/quant/quant_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>

#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/yaml_reader.h"

namespace npu::compiler {
namespace {

constexpr std::array kTopKeys = {"strategy",     "rounding",    "histogram_bins",
                                 "max_samples",  "activations", "weights",
                                 "power_of_two", "host_layers", "overrides"};
constexpr std::array kActivationKeys = {"method", "percentile", "symmetric", "power_of_two"};
constexpr std::array kWeightKeys = {"method", "granularity", "power_of_two"};
constexpr std::array kOverrideKeys = {"layers", "op_types", "activations", "weights"};

void applyActivations(const QuantOverride& o, ActivationSettings& s) {
  s.method = o.method.value_or(s.method);
  s.percentile = o.percentile.value_or(s.percentile);
  s.symmetric = o.symmetric.value_or(s.symmetric);
  s.powerOfTwo = o.activationPowerOfTwo.value_or(s.powerOfTwo);
}

void applyWeights(const QuantOverride& o, WeightSettings& s) {
  s.method = o.weightMethod.value_or(s.method);
  s.perChannel = o.perChannel.value_or(s.perChannel);
  s.powerOfTwo = o.weightPowerOfTwo.value_or(s.powerOfTwo);
}

class ConfigParser {
 public:
  explicit ConfigParser(std::string source) : m_source(std::move(source)) {}

  QuantConfig run(const YAML::Node& root) {
    QuantConfig config;
    config.source = m_source;
    if (!root || root.IsNull()) {
      return config;
    }
    if (!root.IsMap()) {
      fail("{}: the config must be a mapping", at(root));
    }
    checkKeys(root, kTopKeys, "the config");
    if (root["strategy"]) {
      std::string name = scalar(root["strategy"]);
      std::optional<DispatchStrategy> s = parseDispatchStrategy(name);
      if (!s) {
        fail("{}: unknown strategy '{}' (strategies: conservative, aggressive, allin)",
             at(root["strategy"]), name);
      }
      config.strategy = *s;
    }
    if (root["rounding"]) {
      std::string name = scalar(root["rounding"]);
      if (name != "single" && name != "double") {
        fail("{}: unknown rounding '{}' (single or double)", at(root["rounding"]), name);
      }
      config.rounding = name == "single" ? golden::Rounding::Single : golden::Rounding::Double;
    }
    if (root["histogram_bins"]) {
      auto bins = integer(root["histogram_bins"]);
      if (bins < 128 || bins > 65536 || bins % 2 != 0) {
        fail("{}: histogram_bins must be an even number in [128, 65536], got {}",
             at(root["histogram_bins"]), bins);
      }
      config.histogramBins = static_cast<std::size_t>(bins);
    }
    if (root["max_samples"]) {
      auto n = integer(root["max_samples"]);
      if (n < 0) {
        fail("{}: max_samples must be at least 0, got {}", at(root["max_samples"]), n);
      }
      config.maxSamples = static_cast<std::size_t>(n);
    }
    if (root["power_of_two"]) {
      bool p2 = boolean(root["power_of_two"]);
      config.activations.powerOfTwo = p2;
      config.weights.powerOfTwo = p2;
    }
    if (root["activations"]) {
      QuantOverride o = activationsSection(root["activations"]);
      applyActivations(o, config.activations);
    }
    if (root["weights"]) {
      QuantOverride o = weightsSection(root["weights"]);
      applyWeights(o, config.weights);
    }
    if (const YAML::Node& host = root["host_layers"]) {
      for (const YAML::Node& item : sequence(host, "host_layers")) {
        config.hostLayers.push_back(scalar(item));
        config.hostLayerLocations.push_back(at(item));
      }
    }
    if (const YAML::Node& overrides = root["overrides"]) {
      for (const YAML::Node& item : sequence(overrides, "overrides")) {
        config.overrides.push_back(overrideEntry(item));
      }
    }
    return config;
  }

 private:
  std::string at(const YAML::Node& node) const {
    return fmt::format("{}:{}", m_source, node.Mark().line + 1);
  }

  /// Rejects keys outside `keys` with the shared reader's message.
  template <std::size_t N>
  void checkKeys(const YAML::Node& map, const std::array<const char*, N>& keys,
                 std::string_view where) const {
    const std::vector<std::string_view> allowed(keys.begin(), keys.end());
    yaml::Node(map, m_source).expectMap(where, allowed);
  }

  std::string scalar(const YAML::Node& node) const {
    if (!node.IsScalar()) {
      fail("{}: expected a single value", at(node));
    }
    return node.as<std::string>();
  }

  std::int64_t integer(const YAML::Node& node) const {
    try {
      return node.as<std::int64_t>();
    } catch (const YAML::Exception&) {
      fail("{}: expected an integer, got '{}'", at(node), scalar(node));
    }
  }

  double real(const YAML::Node& node) const {
    try {
      return node.as<double>();
    } catch (const YAML::Exception&) {
      fail("{}: expected a number, got '{}'", at(node), scalar(node));
    }
  }

  bool boolean(const YAML::Node& node) const {
    try {
      return node.as<bool>();
    } catch (const YAML::Exception&) {
      fail("{}: expected true or false, got '{}'", at(node), scalar(node));
    }
  }

  std::vector<YAML::Node> sequence(const YAML::Node& node, std::string_view what) const {
    if (node.IsScalar()) {
      return {node};
    }
    if (!node.IsSequence()) {
      fail("{}: {} must be a list", at(node), what);
    }
    return {node.begin(), node.end()};
  }

  QuantOverride activationsSection(const YAML::Node& node) const {
    if (!node.IsMap()) {
      fail("{}: activations must be a mapping", at(node));
    }
    checkKeys(node, kActivationKeys, "activations");
    QuantOverride o;
    if (node["method"]) {
      std::string name = scalar(node["method"]);
      o.method = parseObserverMethod(name);
      if (!o.method) {
        fail("{}: unknown method '{}' (methods: minmax, percentile, kl, mse)", at(node["method"]),
             name);
      }
    }
    if (node["percentile"]) {
      double p = real(node["percentile"]);
      if (!(p >= 50.0 && p <= 100.0)) {
        fail("{}: percentile must be in [50, 100], got {}", at(node["percentile"]), p);
      }
      o.percentile = p;
    }
    if (node["symmetric"]) {
      o.symmetric = boolean(node["symmetric"]);
    }
    if (node["power_of_two"]) {
      o.activationPowerOfTwo = boolean(node["power_of_two"]);
    }
    return o;
  }

  QuantOverride weightsSection(const YAML::Node& node) const {
    if (!node.IsMap()) {
      fail("{}: weights must be a mapping", at(node));
    }
    checkKeys(node, kWeightKeys, "weights");
    QuantOverride o;
    if (node["method"]) {
      std::string name = scalar(node["method"]);
      if (name != "minmax" && name != "mse") {
        fail("{}: unknown weight method '{}' (methods: minmax, mse)", at(node["method"]), name);
      }
      o.weightMethod = name == "minmax" ? WeightMethod::MinMax : WeightMethod::Mse;
    }
    if (node["granularity"]) {
      std::string name = scalar(node["granularity"]);
      if (name != "per_channel" && name != "per_tensor") {
        fail("{}: unknown granularity '{}' (per_channel or per_tensor)", at(node["granularity"]),
             name);
      }
      o.perChannel = name == "per_channel";
    }
    if (node["power_of_two"]) {
      o.weightPowerOfTwo = boolean(node["power_of_two"]);
    }
    return o;
  }

  QuantOverride overrideEntry(const YAML::Node& node) const {
    if (!node.IsMap()) {
      fail("{}: an override must be a mapping", at(node));
    }
    checkKeys(node, kOverrideKeys, "an override");
    QuantOverride o;
    if (node["activations"]) {
      QuantOverride a = activationsSection(node["activations"]);
      o.method = a.method;
      o.percentile = a.percentile;
      o.symmetric = a.symmetric;
      o.activationPowerOfTwo = a.activationPowerOfTwo;
    }
    if (node["weights"]) {
      QuantOverride w = weightsSection(node["weights"]);
      o.weightMethod = w.weightMethod;
      o.perChannel = w.perChannel;
      o.weightPowerOfTwo = w.weightPowerOfTwo;
    }
    if (node["layers"]) {
      for (const YAML::Node& item : sequence(node["layers"], "layers")) {
        o.layers.push_back(scalar(item));
      }
    }
    if (node["op_types"]) {
      for (const YAML::Node& item : sequence(node["op_types"], "op_types")) {
        std::string name = scalar(item);
        std::optional<OpKind> op = parseOpKind(name);
        if (!op) {
          fail("{}: unknown op type '{}' (ONNX spelling, e.g. Conv)", at(item), name);
        }
        o.opTypes.push_back(*op);
      }
    }
    if (o.layers.empty() && o.opTypes.empty()) {
      fail("{}: an override needs layers or op_types", at(node));
    }
    o.location = at(node);
    return o;
  }

  std::string m_source;
};

/// True when `name` names `node` (its name or an output's) or is `valueName`.
bool matches(const Graph& graph, const Node* node, std::string_view valueName,
             const std::string& name) {
  return name == valueName || (node != nullptr && graph.namesNode(*node, name));
}

bool applies(const QuantOverride& o, const Graph& graph, const Node* node,
             std::string_view valueName) {
  if (node != nullptr &&
      std::find(o.opTypes.begin(), o.opTypes.end(), node->op) != o.opTypes.end()) {
    return true;
  }
  return std::any_of(o.layers.begin(), o.layers.end(), [&](const std::string& name) {
    return matches(graph, node, valueName, name);
  });
}

}  // namespace

std::string_view weightMethodName(WeightMethod method) {
  return method == WeightMethod::MinMax ? "minmax" : "mse";
}

QuantConfig parseQuantConfig(const std::string& text, const std::string& source) {
  const YAML::Node root = yaml::parse(text, source).raw();  // syntax errors FILE:LINE:COL
  try {
    return ConfigParser(source).run(root);
  } catch (const YAML::Exception& e) {
    yaml::failOnYamlException(e, source);
  }
}

QuantConfig loadQuantConfig(const std::filesystem::path& path) {
  return parseQuantConfig(readTextFile(path), path.string());
}

void checkQuantConfig(const QuantConfig& config, const Graph& graph) {
  auto known = [&](const std::string& name) {
    if (graph.findValue(name)) {
      return true;
    }
    return std::any_of(graph.nodes().begin(), graph.nodes().end(),
                       [&](const Node& node) { return node.name == name; });
  };
  // A host layer is a node (by its name or an output's), not a graph input or a weight.
  for (std::size_t i = 0; i < config.hostLayers.size(); ++i) {
    if (std::none_of(graph.nodes().begin(), graph.nodes().end(), [&](const Node& node) {
          return graph.namesNode(node, config.hostLayers[i]);
        })) {
      std::string where =
          i < config.hostLayerLocations.size() ? config.hostLayerLocations[i] : config.source;
      fail("{}: host layer '{}' names no node of {} (a node's name or one of its outputs')", where,
           config.hostLayers[i], graph.source());
    }
  }
  for (const QuantOverride& o : config.overrides) {
    for (const std::string& name : o.layers) {
      if (!known(name)) {
        fail("{}: layer '{}' is not in {}", o.location, name, graph.source());
      }
    }
  }
}

ActivationSettings activationSettingsFor(const QuantConfig& config, const Graph& graph,
                                         const Node* producer, std::string_view valueName) {
  ActivationSettings s = config.activations;
  for (const QuantOverride& o : config.overrides) {
    if (applies(o, graph, producer, valueName)) {
      applyActivations(o, s);
    }
  }
  return s;
}

WeightSettings weightSettingsFor(const QuantConfig& config, const Graph& graph, const Node& node) {
  WeightSettings s = config.weights;
  for (const QuantOverride& o : config.overrides) {
    if (applies(o, graph, &node, "")) {
      applyWeights(o, s);
    }
  }
  return s;
}

}  // namespace npu::compiler
