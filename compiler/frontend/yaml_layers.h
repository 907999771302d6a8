// Private to the YAML front end: one layer's keys and the builders that turn it into nodes.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Typed access to a layer's keys; remembers which were read so unknown ones can be reported.
class LayerKeys {
 public:
  explicit LayerKeys(const YAML::Node& layer) : m_layer(layer) {}

  bool has(const std::string& key) const;
  std::int64_t integer(const std::string& key, std::int64_t fallback);
  float real(const std::string& key, float fallback);
  bool flag(const std::string& key, bool fallback);
  std::string text(const std::string& key, const std::string& fallback);
  std::vector<std::int64_t> integers(const std::string& key, std::vector<std::int64_t> fallback);
  /// An int n (meaning [n, n]) or a list of two ints: kernel sizes, strides, dilations.
  std::array<std::int64_t, 2> pair(const std::string& key, std::int64_t fallback);
  /// The sub-map `key` (e.g. weights), or an undefined node.
  YAML::Node map(const std::string& key);
  /// Marks `key` as understood without reading it.
  void accept(const std::string& key) { m_read.insert(key); }
  /// Throws for the first key nothing read.
  void checkAllRead() const;

 private:
  YAML::Node get(const std::string& key);
  const YAML::Node& m_layer;
  std::set<std::string> m_read;
};

/// Everything a layer builder needs.
struct LayerBuild {
  Graph& graph;
  /// Full layer name (block prefixes included); the node and its output value take it.
  std::string name;
  /// The `op:` key: an IR op name, or a convenience (Linear, Relu6, Upsample).
  std::string op;
  std::vector<ValueId> inputs;
  LayerKeys& keys;
  std::filesystem::path baseDir;
  std::uint64_t seed;
  /// BatchNormalization nodes whose statistics are to be measured.
  std::unordered_set<std::string>& estimateBatchNorm;
  /// Weight values generated from the seed so far, and their limit (parseGraphYaml).
  std::int64_t& seededWeights;
  std::int64_t seededWeightLimit;
};

/// Builds the nodes of one layer and returns the value the layer's name refers to. Errors are
/// plain messages; the caller adds the file, line and layer.
ValueId buildLayer(LayerBuild& build);

}  // namespace npu::compiler
