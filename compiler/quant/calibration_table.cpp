// Calibration tables: our JSON form both ways, TensorRT caches in, a QDQ model's parameters.
#include "npu/compiler/quant/calibration_table.h"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "npu/compiler/quant/quant_params.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/json_error.h"
#include "npu/support/provenance.h"

namespace npu::compiler {
namespace {

using nlohmann::json;

constexpr std::string_view kFormat = "npu-calibration-table";

std::string trim(std::string_view s) {
  std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) {
    return {};
  }
  std::size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

/// A TensorRT calibration cache: "TRT-<version>-<calibrator>", then "name: hexbits" lines.
CalibrationTable parseTensorRt(std::string_view text, const std::string& source) {
  CalibrationTable table;
  table.source = source;
  std::size_t lineNo = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    std::string line =
        trim(text.substr(pos, end == std::string_view::npos ? text.npos : end - pos));
    pos = end == std::string_view::npos ? text.size() + 1 : end + 1;
    ++lineNo;
    if (lineNo == 1 || line.empty()) {
      continue;
    }
    std::size_t colon = line.rfind(':');
    if (colon == std::string::npos) {
      fail("{}:{}: expected 'tensor: <hex float bits>', got '{}'", source, lineNo, line);
    }
    std::string name = trim(line.substr(0, colon));
    std::string hex = trim(line.substr(colon + 1));
    std::uint32_t bits = 0;
    auto [ptr, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), bits, 16);
    if (name.empty() || hex.empty() || hex.size() > 8 || ec != std::errc() ||
        ptr != hex.data() + hex.size()) {
      fail("{}:{}: tensor '{}': '{}' is not a float's bits in hex (8 hex digits)", source, lineNo,
           name, hex);
    }
    auto scale = std::bit_cast<float>(bits);
    if (!std::isfinite(scale) || scale <= 0.0F) {
      fail("{}:{}: tensor '{}': scale {} must be positive and finite", source, lineNo, name, scale);
    }
    table.tensors[name] = golden::QuantParams{scale, 0};
  }
  if (table.tensors.empty()) {
    fail("{}: the TensorRT calibration cache lists no tensor", source);
  }
  return table;
}

double number(const json& entry, const char* key, const std::string& where) {
  const json& v = entry.at(key);
  if (!v.is_number()) {
    fail("{}: '{}' must be a number, got {}", where, key, v.dump());
  }
  return v.get<double>();
}

golden::QuantParams entryParams(const std::string& name, const json& entry,
                                const std::string& source) {
  std::string where = fmt::format("{}: tensor '{}'", source, name);
  if (!entry.is_object()) {
    fail("{}: expected an object with scale and zero_point (or min and max)", where);
  }
  static const char* const kKeys[] = {"scale",      "zero_point",   "dtype",   "min",
                                      "max",        "symmetric",    "range",   "aligned_range",
                                      "method",     "power_of_two", "abs_p99", "abs_p99_9",
                                      "abs_p99_99", "group",        "given"};
  for (const auto& item : entry.items()) {
    // A named copy, not a structured binding: clang 14 cannot capture one in the lambda.
    const std::string key = item.key();
    if (std::find_if(std::begin(kKeys), std::end(kKeys), [&](const char* k) { return key == k; }) ==
        std::end(kKeys)) {
      fail(
          "{}: unknown key '{}' (keys: scale, zero_point, dtype, min, max, symmetric, and the "
          "informational range, aligned_range, method, power_of_two, abs_p99, abs_p99_9, "
          "abs_p99_99, group, given)",
          where, key);
    }
  }
  bool uint8 = false;
  if (entry.contains("dtype")) {
    const json& d = entry.at("dtype");
    if (!d.is_string() || (d != "int8" && d != "uint8")) {
      fail("{}: dtype must be \"int8\" or \"uint8\", got {}", where, d.dump());
    }
    uint8 = d == "uint8";
  }
  if (entry.contains("scale")) {
    double scale = number(entry, "scale", where);
    if (!std::isfinite(scale) || scale <= 0.0 || static_cast<float>(scale) <= 0.0F ||
        !std::isfinite(static_cast<float>(scale))) {
      fail("{}: scale {} must be positive and finite (as a float)", where, scale);
    }
    if (!entry.contains("zero_point")) {
      fail("{}: has a scale but no zero_point", where);
    }
    const json& zp = entry.at("zero_point");
    if (!zp.is_number_integer()) {
      fail("{}: zero_point must be an integer, got {}", where, zp.dump());
    }
    std::int64_t z = zp.get<std::int64_t>();
    std::int64_t lo = uint8 ? 0 : -128;
    std::int64_t hi = uint8 ? 255 : 127;
    if (z < lo || z > hi) {
      fail("{}: zero_point {} is outside [{}, {}] ({})", where, z, lo, hi,
           uint8 ? "uint8" : "int8");
    }
    return golden::QuantParams{static_cast<float>(scale),
                               static_cast<std::int32_t>(uint8 ? z - 128 : z)};
  }
  if (entry.contains("min") && entry.contains("max")) {
    double lo = number(entry, "min", where);
    double hi = number(entry, "max", where);
    if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi) {
      fail("{}: min {} and max {} must be finite with min <= max", where, lo, hi);
    }
    bool symmetric = false;
    if (entry.contains("symmetric")) {
      if (!entry.at("symmetric").is_boolean()) {
        fail("{}: symmetric must be true or false", where);
      }
      symmetric = entry.at("symmetric").get<bool>();
    }
    return quantParamsForRange(Range{static_cast<float>(lo), static_cast<float>(hi)}, symmetric,
                               false);
  }
  fail("{}: needs scale and zero_point, or min and max", where);
}

CalibrationTable parseJson(std::string_view text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    fail("{}: not a valid JSON calibration table: {}", source, jsonErrorText(e.what()));
  }
  if (!doc.is_object() || !doc.contains("tensors") || !doc.at("tensors").is_object()) {
    fail(
        "{}: a calibration table is a JSON object with a \"tensors\" object (name -> "
        "{{scale, zero_point}})",
        source);
  }
  if (doc.contains("format") && doc.at("format") != kFormat) {
    fail("{}: format {} is not \"{}\"", source, doc.at("format").dump(), kFormat);
  }
  if (doc.contains("version") && doc.at("version") != 1) {
    fail("{}: version {} is not supported (1)", source, doc.at("version").dump());
  }
  CalibrationTable table;
  table.source = source;
  for (const auto& [name, entry] : doc.at("tensors").items()) {
    table.tensors[name] = entryParams(name, entry, source);
  }
  return table;
}

json rangeJson(const Range& r) {
  return json::array({static_cast<double>(r.lo), static_cast<double>(r.hi)});
}

bool isLutActivation(OpKind op) {
  return isActivation(op) && op != OpKind::Relu && op != OpKind::Clip && op != OpKind::PRelu;
}

}  // namespace

CalibrationTable parseCalibrationTable(std::string_view text, const std::string& source) {
  std::string head = trim(text.substr(0, std::min<std::size_t>(text.size(), 64)));
  if (head.starts_with("{")) {
    return parseJson(text, source);
  }
  if (head.starts_with("TRT-")) {
    return parseTensorRt(text, source);
  }
  fail("{}: not a calibration table (a JSON object, or a TensorRT cache starting with 'TRT-')",
       source);
}

CalibrationTable loadCalibrationTable(const std::filesystem::path& path) {
  return parseCalibrationTable(readTextFile(path), path.string());
}

std::string calibrationTableJson(const CalibrationResult& result, std::string_view model) {
  json tensors = json::object();
  for (const auto& [name, t] : result.tensors) {
    if (name.find("requant") != std::string::npos && name.find('#') != std::string::npos) {
      continue;  // a requantizing step's output (realizeSegments), not a tensor of the model
    }
    json entry;
    entry["scale"] = static_cast<double>(t.params.scale);
    entry["zero_point"] = t.params.zeroPoint;
    entry["min"] = static_cast<double>(t.min);
    entry["max"] = static_cast<double>(t.max);
    entry["abs_p99"] = static_cast<double>(t.absPercentile99);
    entry["abs_p99_9"] = static_cast<double>(t.absPercentile999);
    entry["abs_p99_99"] = static_cast<double>(t.absPercentile9999);
    entry["range"] = rangeJson(t.range);
    entry["aligned_range"] = rangeJson(t.alignedRange);
    entry["method"] = std::string(observerName(t.settings.method));
    entry["symmetric"] = t.settings.symmetric;
    entry["power_of_two"] = t.settings.powerOfTwo;
    entry["group"] = t.group;
    entry["given"] = t.given;
    tensors[name] = std::move(entry);
  }
  json doc;
  doc["format"] = kFormat;
  doc["version"] = 1;
  // Where the table came from; a reader ignores it. Calibration depends on no hardware config.
  doc["provenance"] = provenanceJson<json>(reportProvenance());
  doc["model"] = std::string(model);
  doc["samples"] = result.samples;
  doc["tensors"] = std::move(tensors);
  return doc.dump(2) + "\n";
}

CalibrationTable givenQuantization(const Graph& graph) {
  CalibrationTable table;
  table.source = fmt::format("the QDQ model {}", graph.source());
  table.fromModel = true;
  auto paramsOf = [&](ValueId id) -> std::optional<golden::QuantParams> {
    if (!id.valid()) {
      return std::nullopt;
    }
    const Value& v = graph.value(id);
    if (v.isConstant() || !v.quant || v.quant->scales.size() != 1) {
      return std::nullopt;
    }
    return golden::QuantParams{v.quant->scales[0],
                               v.quant->zeroPoints.empty() ? 0 : v.quant->zeroPoints[0]};
  };
  for (std::size_t i = 0; i < graph.valueCount(); ++i) {
    ValueId id{static_cast<std::uint32_t>(i)};
    if (std::optional<golden::QuantParams> p = paramsOf(id)) {
      table.tensors[graph.value(id).name] = *p;
    }
  }
  if (table.empty()) {
    return table;
  }
  Uses uses(graph);
  for (const Node& node : graph.nodes()) {
    if (node.outputs.empty()) {
      continue;
    }
    std::string preact = preActivationName(graph.value(node.outputs[0]).name);
    if (isLutActivation(node.op)) {
      if (std::optional<golden::QuantParams> p = paramsOf(node.input(0))) {
        table.tensors[preact] = *p;
      }
    } else if (node.op == OpKind::Mul && node.inputs.size() == 2) {
      // y * Sigmoid(y) (SiLU) or y * HardSigmoid(y) (hard-swish), fused later.
      for (int k = 0; k < 2; ++k) {
        ValueId y = node.inputs[k];
        ValueId g = node.inputs[1 - k];
        std::optional<std::size_t> gate = g.valid() ? uses.producer(g) : std::nullopt;
        if (gate && graph.nodes()[*gate].input(0) == y &&
            (graph.nodes()[*gate].op == OpKind::Sigmoid ||
             graph.nodes()[*gate].op == OpKind::HardSigmoid)) {
          if (std::optional<golden::QuantParams> p = paramsOf(y)) {
            table.tensors[preact] = *p;
          }
        }
      }
    }
  }
  return table;
}

}  // namespace npu::compiler
