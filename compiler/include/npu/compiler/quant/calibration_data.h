// Calibration inputs: .npy files, per-input folders or a .npz, checked against the graph's inputs.
#pragma once

#include <cstddef>
#include <filesystem>
#include <vector>

#include "npu/compiler/interp/interpreter.h"
#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Reads calibration (or run) samples for `graph` from `path`, in one of two layouts
/// (docs/main-job.md, "Input data"):
/// - .npy files: for a single input, a .npy file or a folder of them (or its folder
///   `path/<input name>/`); for several inputs, `path/<input name>/*.npy` per input. Files are
///   read in name order and the inputs' samples paired in that order.
/// - a `.npz` archive (numpy.savez or savez_compressed) holding one array per graph input, named
///   by the input, and no other array.
/// Either way an array holds one sample of the input's shape or, when the input's leading
/// dimension is 1, a batch [N, ...] of N samples. Returns at most `maxSamples` samples (0: all).
/// Throws one Error line naming the file (and array or input) and the layout it expects for a
/// missing path, folder, array or .npy file, an array that is no graph input, a dtype other than
/// float32/float64 (int64/int32 for an integer input), a shape that fits no sample or batch,
/// inputs with different sample counts, or a NaN or infinite value.
std::vector<TensorMap> loadCalibrationSet(const std::filesystem::path& path, const Graph& graph,
                                          std::size_t maxSamples = 0);

/// Throws Error "<what>: sample <k> holds NaN at element <i> ..." unless every value of every
/// tensor of `samples` is finite; `what` names where they came from.
void checkFinite(const std::vector<TensorMap>& samples, std::string_view what);

}  // namespace npu::compiler
