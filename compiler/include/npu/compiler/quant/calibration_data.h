// Calibration inputs: .npy files read and checked against the graph's inputs.
#pragma once

#include <cstddef>
#include <filesystem>
#include <vector>

#include "npu/compiler/interp/interpreter.h"
#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Reads calibration samples for `graph` from `path`: a .npy file or a directory of them, read in
/// name order. A file holds one sample of the input's shape or a batch [N, ...] of them when the
/// input's batch is 1. A graph with several inputs reads `path/<input name>/*.npy`, pairing the
/// inputs' samples in order. Returns at most `maxSamples` samples (0: all). Throws Error naming
/// the file for a missing directory, no .npy files, a dtype other than float32/float64, a shape
/// that fits no input, or a NaN or infinite value.
std::vector<TensorMap> loadCalibrationSet(const std::filesystem::path& path, const Graph& graph,
                                          std::size_t maxSamples = 0);

/// Throws Error "<what>: sample <k> holds NaN at element <i> ..." unless every value of every
/// tensor of `samples` is finite; `what` names where they came from.
void checkFinite(const std::vector<TensorMap>& samples, std::string_view what);

}  // namespace npu::compiler
