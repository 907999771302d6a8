// One entry point for every model format the front end reads.
#pragma once

#include <filesystem>

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Imports `path` by its extension: .onnx (importOnnx) or .yaml/.yml (importGraphYaml).
Graph importModel(const std::filesystem::path& path);

}  // namespace npu::compiler
