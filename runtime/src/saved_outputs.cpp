// `npu run --save-outputs`: graph outputs (fp32, NPU, int8) and NPU segment outputs as .npy.
#include "npu/runtime/saved_outputs.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "npu/compiler/frontend/npy.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/provenance.h"

namespace npu::runtime {
namespace {

/// The schema version of outputs.json (its "schema_version").
constexpr int kSavedOutputsSchemaVersion = 1;

std::string fileStem(std::string_view name) {
  std::string stem(name);
  for (char& ch : stem) {
    const bool plain = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                       (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';
    ch = plain ? ch : '_';
  }
  return stem.empty() || stem.front() == '.' ? "_" + stem : stem;
}

std::vector<std::int64_t> stackedShape(std::size_t inputs, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> stacked{static_cast<std::int64_t>(inputs)};
  stacked.insert(stacked.end(), shape.begin(), shape.end());
  return stacked;
}

}  // namespace

std::vector<std::int8_t> int8InValueOrder(const Int8Output& output,
                                          const std::vector<std::int64_t>& shape,
                                          std::string_view name) {
  const golden::Int8Tensor& t = output.tensor;
  if (static_cast<std::int64_t>(t.data.size()) != golden::elementCount(shape)) {
    fail(ErrorKind::Internal, "value '{}': the NPU left {} int8 values for a tensor of {}", name,
         t.data.size(), golden::elementCount(shape));
  }
  if (shape.size() != 4 || t.shape.size() != 4 || t.shape[3] != shape[1] || shape[1] == 1) {
    return t.data;
  }
  const std::int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
  std::vector<std::int8_t> nchw(t.data.size());
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t y = 0; y < h; ++y) {
      for (std::int64_t x = 0; x < w; ++x) {
        for (std::int64_t ch = 0; ch < c; ++ch) {
          nchw[static_cast<std::size_t>(((b * c + ch) * h + y) * w + x)] =
              t.data[static_cast<std::size_t>(((b * h + y) * w + x) * c + ch)];
        }
      }
    }
  }
  return nchw;
}

SavedOutputs::SavedOutputs(const compiler::QuantizedModel& model, std::size_t inputs, bool layers)
    : m_graph(model.graph), m_layers(layers), m_slots(inputs) {
  for (const compiler::NpuSegment& segment : model.npuSegments) {
    for (const auto& [name, tensor] : segment.outputValues) {
      m_segmentOutputs.insert(name);
    }
  }
}

bool SavedOutputs::keepsReference(std::string_view name) const {
  return m_layers || m_segmentOutputs.contains(name);
}

void SavedOutputs::record(std::size_t k, compiler::TensorMap reference, const InferenceRun& run) {
  Slot& slot = m_slots.at(k);
  slot.reference = std::move(reference);
  slot.npu = run.outputs;
  slot.int8 = run.int8Outputs;
  slot.layers = run.int8Layers;
}

void SavedOutputs::write(const std::filesystem::path& dir) const {
  createDirectories(dir);
  const std::size_t count = m_slots.size();
  // The arrays of one value over every input: fp32 from `fp32` (the model's or the NPU run's),
  // int8 from the NPU segment's output when every input has it.
  const auto floats = [&](const std::string& name, compiler::TensorMap Slot::*from) {
    std::vector<float> out;
    for (const Slot& slot : m_slots) {
      const std::vector<float>& data = (slot.*from).at(name).data;
      out.insert(out.end(), data.begin(), data.end());
    }
    return out;
  };
  const auto addInt8 = [&](nlohmann::json& entry, const std::string& name,
                           const std::vector<std::int64_t>& shape,
                           std::map<std::string, Int8Output, std::less<>> Slot::*from = &Slot::int8,
                           const std::filesystem::path& folder = {}) {
    std::vector<std::int8_t> values;
    const Int8Output* quant = nullptr;
    for (const Slot& slot : m_slots) {
      const auto it = (slot.*from).find(name);
      if (it == (slot.*from).end() ||
          static_cast<std::int64_t>(it->second.tensor.data.size()) != golden::elementCount(shape)) {
        return;
      }
      const std::vector<std::int8_t> one = int8InValueOrder(it->second, shape, name);
      values.insert(values.end(), one.begin(), one.end());
      quant = &it->second;
    }
    if (quant == nullptr) {
      return;
    }
    const std::string file = (folder / (fileStem(name) + ".int8.npy")).string();
    compiler::writeNpy(dir / file, {stackedShape(count, shape), compiler::TensorData(values)});
    entry["int8"] = file;
    entry["scale"] = quant->scale;
    entry["zero_point"] = quant->zeroPoint;
  };

  nlohmann::json outputs = nlohmann::json::array();
  std::set<std::string, std::less<>> graphOutputs;
  for (const compiler::ValueId id : m_graph.outputs()) {
    const std::string& name = m_graph.value(id).name;
    const std::vector<std::int64_t>& shape = m_graph.value(id).shape;
    graphOutputs.insert(name);
    const std::string stem = fileStem(name);
    nlohmann::json entry = {{"name", name},
                            {"shape", stackedShape(count, shape)},
                            {"fp32", stem + ".fp32.npy"},
                            {"npu", stem + ".npu.npy"}};
    compiler::writeNpy(
        dir / (stem + ".fp32.npy"),
        {stackedShape(count, shape), compiler::TensorData(floats(name, &Slot::reference))});
    compiler::writeNpy(dir / (stem + ".npu.npy"), {stackedShape(count, shape),
                                                   compiler::TensorData(floats(name, &Slot::npu))});
    addInt8(entry, name, shape);
    outputs.push_back(std::move(entry));
  }
  nlohmann::json segmentOutputs = nlohmann::json::array();
  for (const std::string& name : m_segmentOutputs) {
    if (graphOutputs.contains(name)) {
      continue;
    }
    const std::vector<std::int64_t>& shape = m_graph.value(*m_graph.findValue(name)).shape;
    const std::string stem = fileStem(name);
    nlohmann::json entry = {
        {"name", name}, {"shape", stackedShape(count, shape)}, {"fp32", stem + ".fp32.npy"}};
    compiler::writeNpy(
        dir / (stem + ".fp32.npy"),
        {stackedShape(count, shape), compiler::TensorData(floats(name, &Slot::reference))});
    addInt8(entry, name, shape);
    segmentOutputs.push_back(std::move(entry));
  }
  nlohmann::json layers = nlohmann::json::array();
  if (m_layers) {
    createDirectories(dir / "layers");
    for (const compiler::Node& node : m_graph.nodes()) {
      for (const compiler::ValueId id : node.outputs) {
        const compiler::Value& value = m_graph.value(id);
        if (graphOutputs.contains(value.name) || m_segmentOutputs.contains(value.name) ||
            !m_slots.front().reference.contains(value.name)) {
          continue;  // written above, or an integer index tensor the interpreter does not report
        }
        const std::string file = "layers/" + fileStem(value.name) + ".fp32.npy";
        nlohmann::json entry = {
            {"name", value.name}, {"shape", stackedShape(count, value.shape)}, {"fp32", file}};
        compiler::writeNpy(dir / file,
                           {stackedShape(count, value.shape),
                            compiler::TensorData(floats(value.name, &Slot::reference))});
        addInt8(entry, value.name, value.shape, &Slot::layers, "layers");
        layers.push_back(std::move(entry));
      }
    }
  }
  // Deterministic provenance only (tools and commit): the same files for any --jobs.
  writeTextFile(
      dir / "outputs.json",
      nlohmann::json{{"schema_version", kSavedOutputsSchemaVersion},
                     {"provenance", provenanceJson<nlohmann::json>(deterministicProvenance())},
                     {"outputs", outputs},
                     {"npu_segment_outputs", segmentOutputs},
                     {"layers", layers}}
              .dump(2) +
          "\n");
}

}  // namespace npu::runtime
