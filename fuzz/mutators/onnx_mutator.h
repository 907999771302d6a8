// The structure-aware mutator of the `onnx` fuzz target: edits a parsed onnx::ModelProto (dims,
// attributes, initializer data, node wiring, op types, opsets, data types) instead of its bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace npu::fuzz {

/// Parses `bytes` as an ONNX ModelProto and applies one to three structural mutations chosen by
/// `seed`, then serializes the model. Returns nullopt when the bytes do not parse, when no
/// mutation applies (a model with nothing to edit) or when the result would exceed `maxSize`;
/// the caller then mutates bytes instead. The same bytes and seed always give the same result.
std::optional<std::vector<std::uint8_t>> mutateOnnx(std::span<const std::uint8_t> bytes,
                                                    std::uint32_t seed, std::size_t maxSize);

}  // namespace npu::fuzz
