// The ONNX front end: a .onnx model (opsets 9-17) into an fp32 Graph.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Gives a symbolic dimension of a graph input its size: called with the input's name, the axis
/// and the dimension's name (empty when it has none); nullopt leaves the default (batch 1 at axis
/// 0, an error elsewhere). `npu generate` binds a decoder's sequence axes this way.
using DimensionBinder = std::function<std::optional<std::int64_t>(
    const std::string& input, int axis, const std::string& symbol)>;

/// Reads an ONNX model and returns its graph with every value typed (shape inference has run).
/// Initializers may be inline or in external data files next to the model. Ops are normalised to
/// their opset-13+ form (attributes that became inputs are inputs), Constant nodes become
/// constants, and the GELU formula x * 0.5 * (1 + erf(x / sqrt(2))) becomes one Gelu node.
/// Throws Error naming the file, and the node and op type where one is at fault.
Graph importOnnx(const std::filesystem::path& path, const DimensionBinder& bind = {});

/// importOnnx on bytes in memory; `source` names them in messages and `baseDir` is where external
/// data files are looked up.
Graph importOnnxBytes(std::span<const std::uint8_t> bytes, const std::string& source,
                      const std::filesystem::path& baseDir, const DimensionBinder& bind = {});

}  // namespace npu::compiler
