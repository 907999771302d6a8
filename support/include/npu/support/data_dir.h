// Where the tools find their data files (hardware presets, the bundled model, benchmark suites)
// without any path of the source tree compiled in.
#pragma once

#include <filesystem>
#include <string>

namespace npu {

/// The folder holding the data the tools read by default: `configs/` (hardware presets),
/// `examples/` (the bundled digits model) and `subnet_bench/` (suites, graphs, baselines).
/// $NPU_DATA_DIR when set and non-empty; otherwise the nearest `share/npu` folder found by walking
/// up from the folder of the running executable (/proc/self/exe), then from the folder of the
/// shared object this code is linked into (the Python module). An installed tree
/// (PREFIX/bin/npu, PREFIX/share/npu) therefore works wherever it is copied, and the build tree
/// finds the `build/share/npu` links the configure step makes. Empty when nothing is found.
std::filesystem::path dataDir();

/// `relative` (e.g. "configs/npu-s.yaml") inside dataDir(), symlinks resolved; throws Error naming
/// the file and where it was looked for when there is no data folder or the file is missing from
/// it.
std::filesystem::path dataFile(const std::filesystem::path& relative);

/// Where dataDir() looked, for error messages when a data file is missing.
std::string dataDirSearchText();

}  // namespace npu
