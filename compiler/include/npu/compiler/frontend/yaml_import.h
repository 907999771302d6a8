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

/// The most weight values a graph spec may have generated from its seed: 2^27 (512 MiB of fp32,
/// about VGG-16's 138 M parameters), checked before each weight is made.
inline constexpr std::int64_t kMaxSeededWeights = std::int64_t{1} << 27;

/// importGraphYaml on text; `source` names it in messages, `baseDir` resolves .npy paths.
/// `maxSeededWeights` bounds the generated weight values (the fuzz target lowers it).
Graph parseGraphYaml(const std::string& text, const std::string& source,
                     const std::filesystem::path& baseDir,
                     std::int64_t maxSeededWeights = kMaxSeededWeights);

}  // namespace npu::compiler
