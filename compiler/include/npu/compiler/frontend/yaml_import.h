// The YAML front end: a graph spec (docs/graph-yaml.md) into an fp32 Graph.
#pragma once

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

/// importGraphYaml on text; `source` names it in messages, `baseDir` resolves .npy paths.
Graph parseGraphYaml(const std::string& text, const std::string& source,
                     const std::filesystem::path& baseDir);

}  // namespace npu::compiler
