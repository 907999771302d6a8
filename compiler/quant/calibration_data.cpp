// Calibration and run inputs: a .npy file, folders of them (one per input), or one .npz archive.
#include "npu/compiler/quant/calibration_data.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "npu/compiler/frontend/npy.h"
#include "npu/compiler/frontend/npz.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

namespace fs = std::filesystem;

/// The samples of each graph input in graph order, and what each came from ("array 'x'",
/// "folder 'D/x'") for the error that finds their counts differ.
struct InputSamples {
  std::vector<std::vector<golden::FloatTensor>> perInput;
  std::vector<std::string> origins;
};

/// Inputs a layout message names before it cuts the list short.
constexpr std::size_t kListedInputs = 8;

/// A sample of an input whose leading dimension is 1 may come in a batch [N, ...].
bool takesBatch(const Shape& shape) {
  return !shape.empty() && shape[0] == 1;
}

/// "[N, 3, 16, 16]" for an input of shape [1, 3, 16, 16].
std::string batchShape(const Shape& shape) {
  std::string text = "[N";
  for (std::size_t i = 1; i < shape.size(); ++i) {
    text += fmt::format(", {}", shape[i]);
  }
  return text + "]";
}

/// The shapes an array for `input` may have: "f32[1, 3, 16, 16] or [N, 3, 16, 16]".
std::string shapeForms(const Value& input) {
  std::string text = formatType(input.dtype, input.shape);
  if (takesBatch(input.shape)) {
    text += " or " + batchShape(input.shape);
  }
  return text;
}

/// The same, named: "x f32[1, 3, 16, 16] or [N, 3, 16, 16]".
std::string arrayForms(const Value& input) {
  return fmt::format("{} {}", input.name, shapeForms(input));
}

/// `describe` of each graph input, `separator` between them, the list cut after kListedInputs.
template <typename Describe>
std::string listInputs(const Graph& graph, std::string_view separator, Describe describe) {
  std::vector<std::string> items;
  for (ValueId id : graph.inputs()) {
    if (items.size() == kListedInputs) {
      items.push_back(fmt::format("... ({} inputs)", graph.inputs().size()));
      break;
    }
    items.push_back(describe(graph.value(id)));
  }
  return fmt::format("{}", fmt::join(items, separator));
}

/// The .npz layout, said by every error about a .npz.
std::string npzLayout(const Graph& graph) {
  return "expected one array per graph input, named by it: " +
         listInputs(graph, "; ", [](const Value& v) { return arrayForms(v); });
}

/// Every layout input data for `graph` at `path` may take, said by the errors about folders.
std::string expectedLayout(const Graph& graph, const fs::path& path) {
  if (graph.inputs().size() == 1) {
    const Value& input = graph.value(graph.inputs()[0]);
    return fmt::format(
        "expected a .npy file, a folder of .npy files (read in name order) or a .npz with an "
        "array named '{}'; each array {}",
        input.name, shapeForms(input));
  }
  return fmt::format(
      "expected one folder of .npy files per graph input ({}) or a .npz with one array per graph "
      "input, named by it ({})",
      listInputs(graph, ", ", [&](const Value& v) { return (path / v.name).string() + "/"; }),
      listInputs(graph, "; ", [](const Value& v) { return arrayForms(v); }));
}

/// "1 sample", "3 samples".
std::string samplesText(std::size_t count) {
  return fmt::format("{} sample{}", count, count == 1 ? "" : "s");
}

bool isNpz(const fs::path& path) {
  return path.extension() == ".npz";
}

/// Integer input data is carried as floats; these are the integers floats hold exactly.
constexpr std::int64_t kMaxExactIndex = std::int64_t{1} << 24;

/// The values of `t` as floats for `input`: token ids for an integer input, else float data.
std::vector<float> valuesFor(const Tensor& t, const std::string& where, const Value& input) {
  if (input.dtype == DType::Int64 || input.dtype == DType::Int32) {
    // Token ids: whole numbers, carried as floats like every sample (exact below 2^24).
    if (t.data.dtype() != DType::Int64 && t.data.dtype() != DType::Int32) {
      fail("{}: dtype {}, input '{}' takes int64 or int32 data", where, dtypeName(t.data.dtype()),
           input.name);
    }
    std::vector<float> converted;
    for (const std::int64_t v : t.data.toInt64()) {
      if (v < -kMaxExactIndex || v > kMaxExactIndex) {
        fail("{}: index {} of input '{}' is outside +-2^24", where, v, input.name);
      }
      converted.push_back(static_cast<float>(v));
    }
    return converted;
  }
  if (t.data.dtype() != DType::Float32) {
    fail("{}: dtype {}, calibration data must be float32 or float64", where,
         dtypeName(t.data.dtype()));
  }
  const std::span<const float> floats = t.data.floats();
  return {floats.begin(), floats.end()};
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

/// The samples one array holds for `input`: one of the input's shape, or a batch [N, ...] of them
/// when the input's leading dimension is 1; each checked finite. `where` names the array.
std::vector<golden::FloatTensor> samplesOf(const Tensor& t, const std::string& where,
                                           const Value& input) {
  std::vector<float> values = valuesFor(t, where, input);
  const Shape& shape = input.shape;
  std::vector<golden::FloatTensor> samples;
  if (t.shape == shape) {
    samples.push_back(golden::FloatTensor{shape, std::move(values)});
  } else {
    const bool batch = takesBatch(shape) && t.shape.size() == shape.size() &&
                       std::equal(shape.begin() + 1, shape.end(), t.shape.begin() + 1);
    if (!batch) {
      fail("{}: shape {} does not fit input '{}' {} (one sample of that shape, or a batch {})",
           where, formatShape(t.shape), input.name, formatType(input.dtype, shape),
           batchShape(shape));
    }
    if (t.shape[0] == 0) {
      fail("{}: a batch of 0 samples (shape {})", where, formatShape(t.shape));
    }
    const auto per = static_cast<std::ptrdiff_t>(elementCount(shape));
    for (std::int64_t i = 0; i < t.shape[0]; ++i) {
      auto begin = values.begin() + static_cast<std::ptrdiff_t>(i) * per;
      samples.push_back(golden::FloatTensor{shape, {begin, begin + per}});
    }
  }
  for (std::size_t k = 0; k < samples.size(); ++k) {
    checkFiniteValues(samples[k].data, where, k, input.name);
  }
  return samples;
}

/// The .npy files of the folder or file `path` in name order; `graph` and `root` (the path the
/// user gave) say the expected layout when there are none.
std::vector<fs::path> npyFiles(const fs::path& path, const Graph& graph, const fs::path& root) {
  if (!fs::is_directory(path)) {
    return {path};
  }
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(path)) {
    if (entry.is_regular_file() && entry.path().extension() == ".npy") {
      files.push_back(entry.path());
    }
  }
  if (files.empty()) {
    fail("no calibration data: '{}' holds no .npy files; {}", path.string(),
         expectedLayout(graph, root));
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// Where `input`'s .npy files are: `path` itself for a single input (or its folder named after
/// the input, when there is one), else the folder `path/<input name>`.
fs::path inputFolder(const fs::path& path, const Graph& graph, const Value& input) {
  if (graph.inputs().size() == 1 && !fs::is_directory(path / input.name)) {
    return path;
  }
  if (!fs::is_directory(path)) {
    fail("calibration data '{}' is a file, but the graph has {} inputs; {}", path.string(),
         graph.inputs().size(), expectedLayout(graph, path));
  }
  fs::path folder = path / input.name;
  if (!fs::exists(folder)) {
    fail("calibration data '{}' has no folder '{}' for input '{}'; {}", path.string(), input.name,
         input.name, expectedLayout(graph, path));
  }
  return folder;
}

/// The per-input folder layout (or a single .npy file), read up to `maxSamples` per input.
InputSamples samplesFromFolders(const fs::path& path, const Graph& graph, std::size_t maxSamples) {
  InputSamples out;
  for (ValueId id : graph.inputs()) {
    const Value& input = graph.value(id);
    const fs::path folder = inputFolder(path, graph, input);
    std::vector<golden::FloatTensor> samples;
    for (const fs::path& file : npyFiles(folder, graph, path)) {
      for (golden::FloatTensor& s : samplesOf(readNpy(file), file.string(), input)) {
        samples.push_back(std::move(s));
      }
      if (maxSamples > 0 && samples.size() >= maxSamples) {
        samples.resize(maxSamples);
        break;
      }
    }
    out.perInput.push_back(std::move(samples));
    out.origins.push_back(fmt::format("input '{}' ({})", input.name, folder.string()));
  }
  return out;
}

/// One .npz archive holding an array per graph input, read up to `maxSamples` per input.
InputSamples samplesFromNpz(const fs::path& path, const Graph& graph, std::size_t maxSamples) {
  std::vector<NpzArray> arrays = readNpz(path);
  for (const NpzArray& array : arrays) {
    const auto& inputs = graph.inputs();
    if (std::none_of(inputs.begin(), inputs.end(),
                     [&](ValueId id) { return graph.value(id).name == array.name; })) {
      fail("calibration data '{}' holds array '{}', which is no graph input; {}", path.string(),
           array.name, npzLayout(graph));
    }
  }
  InputSamples out;
  for (ValueId id : graph.inputs()) {
    const Value& input = graph.value(id);
    auto array = std::find_if(arrays.begin(), arrays.end(),
                              [&](const NpzArray& a) { return a.name == input.name; });
    if (array == arrays.end()) {
      fail("calibration data '{}' has no array '{}'; {}", path.string(), input.name,
           npzLayout(graph));
    }
    const std::string where = fmt::format("{}: array '{}'", path.string(), input.name);
    std::vector<golden::FloatTensor> samples = samplesOf(array->tensor, where, input);
    if (maxSamples > 0 && samples.size() > maxSamples) {
      samples.resize(maxSamples);
    }
    out.perInput.push_back(std::move(samples));
    out.origins.push_back(fmt::format("array '{}'", input.name));
  }
  return out;
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
  if (!fs::exists(path)) {
    fail("calibration data '{}' does not exist; {}", path.string(), expectedLayout(graph, path));
  }
  InputSamples read = isNpz(path) && !fs::is_directory(path)
                          ? samplesFromNpz(path, graph, maxSamples)
                          : samplesFromFolders(path, graph, maxSamples);
  const std::size_t count = read.perInput[0].size();
  for (std::size_t i = 1; i < read.perInput.size(); ++i) {
    if (read.perInput[i].size() != count) {
      fail(
          "calibration data '{}': {} has {}, {} has {}; every graph input needs the same number "
          "of samples (sample k takes the k-th of each)",
          path.string(), read.origins[0], samplesText(count), read.origins[i],
          samplesText(read.perInput[i].size()));
    }
  }
  std::vector<TensorMap> samples(count);
  for (std::size_t i = 0; i < read.perInput.size(); ++i) {
    const std::string& name = graph.value(graph.inputs()[i]).name;
    for (std::size_t k = 0; k < count; ++k) {
      samples[k].emplace(name, std::move(read.perInput[i][k]));
    }
  }
  return samples;
}

}  // namespace npu::compiler
