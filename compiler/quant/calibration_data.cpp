// Calibration inputs from .npy files.
#include "npu/compiler/quant/calibration_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "npu/compiler/frontend/npy.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> npyFiles(const fs::path& path) {
  if (!fs::exists(path)) {
    fail("calibration data '{}' does not exist", path.string());
  }
  if (!fs::is_directory(path)) {
    return {path};
  }
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(path)) {
    if (entry.is_regular_file() && entry.path().extension() == ".npy") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// Integer input data is carried as floats; these are the integers floats hold exactly.
constexpr std::int64_t kMaxExactIndex = std::int64_t{1} << 24;

/// The samples one file holds for input `input`.
std::vector<golden::FloatTensor> samplesOf(const fs::path& file, const Value& input) {
  Tensor t = readNpy(file);
  std::vector<float> converted;
  std::span<const float> values;
  if (input.dtype == DType::Int64 || input.dtype == DType::Int32) {
    // Token ids: whole numbers, carried as floats like every sample (exact below 2^24).
    if (t.data.dtype() != DType::Int64 && t.data.dtype() != DType::Int32) {
      fail("{}: dtype {}, input '{}' takes int64 or int32 data", file.string(),
           dtypeName(t.data.dtype()), input.name);
    }
    for (const std::int64_t v : t.data.toInt64()) {
      if (v < -kMaxExactIndex || v > kMaxExactIndex) {
        fail("{}: index {} of input '{}' is outside +-2^24", file.string(), v, input.name);
      }
      converted.push_back(static_cast<float>(v));
    }
    values = converted;
  } else {
    if (t.data.dtype() != DType::Float32) {
      fail("{}: dtype {}, calibration data must be float32 or float64", file.string(),
           dtypeName(t.data.dtype()));
    }
    values = t.data.floats();
  }
  const Shape& shape = input.shape;
  if (t.shape == shape) {
    return {golden::FloatTensor{shape, {values.begin(), values.end()}}};
  }
  bool batch = !shape.empty() && shape[0] == 1 && t.shape.size() == shape.size() &&
               std::equal(shape.begin() + 1, shape.end(), t.shape.begin() + 1);
  if (!batch) {
    std::string batchText = "[N";
    for (std::size_t i = 1; i < shape.size(); ++i) {
      batchText += fmt::format(", {}", shape[i]);
    }
    batchText += "]";
    fail("{}: shape {} does not fit input '{}' {} (one sample of that shape, or a batch {})",
         file.string(), formatShape(t.shape), input.name, formatType(input.dtype, shape),
         batchText);
  }
  if (t.shape[0] == 0) {
    fail("{}: a batch of 0 samples (shape {})", file.string(), formatShape(t.shape));
  }
  std::vector<golden::FloatTensor> samples;
  auto per = static_cast<std::size_t>(elementCount(shape));
  for (std::int64_t i = 0; i < t.shape[0]; ++i) {
    auto begin = values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * per);
    samples.push_back(
        golden::FloatTensor{shape, {begin, begin + static_cast<std::ptrdiff_t>(per)}});
  }
  return samples;
}

void checkFiniteValues(std::span<const float> values, std::string_view what, std::size_t sample,
                       std::string_view input) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      fail("{}: sample {} of input '{}' holds {} at element {} (calibration data must be finite)",
           what, sample, input, std::isnan(values[i]) ? "NaN" : "Inf", i);
    }
  }
}

}  // namespace

void checkFinite(const std::vector<TensorMap>& samples, std::string_view what) {
  for (std::size_t k = 0; k < samples.size(); ++k) {
    for (const auto& [name, tensor] : samples[k]) {
      checkFiniteValues(tensor.data, what, k, name);
    }
  }
}

std::vector<TensorMap> loadCalibrationSet(const fs::path& path, const Graph& graph,
                                          std::size_t maxSamples) {
  if (graph.inputs().empty()) {
    fail("{}: the graph has no inputs to calibrate", graph.source());
  }
  std::vector<std::vector<golden::FloatTensor>> perInput;
  std::vector<std::string> names;
  for (ValueId id : graph.inputs()) {
    const Value& input = graph.value(id);
    fs::path dir = path;
    if (graph.inputs().size() > 1 || (fs::is_directory(path / input.name))) {
      dir = path / input.name;
    }
    std::vector<fs::path> files = npyFiles(dir);
    if (files.empty()) {
      fail("no calibration data: '{}' holds no .npy files", dir.string());
    }
    std::vector<golden::FloatTensor> samples;
    for (const fs::path& file : files) {
      std::vector<golden::FloatTensor> more = samplesOf(file, input);
      for (std::size_t k = 0; k < more.size(); ++k) {
        checkFiniteValues(more[k].data, file.string(), k, input.name);
      }
      for (golden::FloatTensor& s : more) {
        samples.push_back(std::move(s));
      }
      if (maxSamples > 0 && samples.size() >= maxSamples) {
        samples.resize(maxSamples);
        break;
      }
    }
    perInput.push_back(std::move(samples));
    names.push_back(input.name);
  }
  std::size_t count = perInput[0].size();
  for (std::size_t i = 1; i < perInput.size(); ++i) {
    if (perInput[i].size() != count) {
      fail("calibration data '{}': input '{}' has {} samples, input '{}' has {}", path.string(),
           names[0], count, names[i], perInput[i].size());
    }
  }
  std::vector<TensorMap> samples(count);
  for (std::size_t i = 0; i < perInput.size(); ++i) {
    for (std::size_t k = 0; k < count; ++k) {
      samples[k].emplace(names[i], std::move(perInput[i][k]));
    }
  }
  return samples;
}

}  // namespace npu::compiler
