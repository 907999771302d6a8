// The YAML front end: a graph spec (docs/graph-yaml.md) into an fp32 Graph.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Reads a YAML graph spec: inputs, layers wired by name (by default each reads the previous
/// one), reusable parameterised blocks, and weights from .npy files or generated from the seed
/// (Kaiming-uniform; BatchNormalization statistics measured on a seeded random input so every
/// normalised activation has mean beta and deviation gamma). Returns a typed graph. Errors name
/// the file, the line and the layer.
Graph importGraphYaml(const std::filesystem::path& path);

/// What a graph spec may make the importer do, checked before it does it.
struct GraphYamlLimits {
  /// Weight values generated from the seed, in all: 2^27 (512 MiB of fp32, about VGG-16's
  /// 138 M parameters), counted before each weight is made.
  std::int64_t seededWeights = std::int64_t{1} << 27;
  /// Activation elements (every value that is not a constant, summed) the BatchNorm statistics
  /// pass may compute when it runs the graph on a random input: 2^30 (4 GiB of fp32).
  std::int64_t statisticsElements = std::int64_t{1} << 30;
};

/// importGraphYaml on text; `source` names it in messages, `baseDir` resolves .npy paths.
/// `limits` bound the work the spec asks for (the fuzz target lowers them).
Graph parseGraphYaml(const std::string& text, const std::string& source,
                     const std::filesystem::path& baseDir, const GraphYamlLimits& limits = {});

}  // namespace npu::compiler
