// `npu quant-report MODEL [--calib DIR] [--config FILE] [--out DIR] [--threshold COS]
// [--sqnr-threshold DB] [--samples N] [--jobs N]`: quantizes a model and prints the partition
// report and the per-layer accuracy table; writes quant_report.json and quant_report.md into --out.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.h"
#include "console.h"
#include "npu/compiler/driver/compile.h"
#include "npu/compiler/frontend/import.h"
#include "npu/compiler/partition/partition_report.h"
#include "npu/compiler/passes/pipeline.h"
#include "npu/compiler/quant/accuracy_report.h"
#include "npu/compiler/quant/calibration_data.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/markup.h"
#include "npu/support/provenance.h"

namespace npu::cli {
namespace {

namespace fs = std::filesystem;
using compiler::AccuracyReport;
using compiler::Agreement;
using compiler::LayerAccuracy;
using compiler::QuantizedModel;

struct QuantReportOptions {
  std::string model;
  std::string calib;
  std::string config;
  std::string calibTable;
  std::string out = ".";
  double cosine = 0.99;
  double sqnrDb = 20.0;
  std::size_t samples = 32;
  std::size_t jobs = 1;
  OutputOptions output;
};

/// The schema version of quant_report.json ("schema_version"); quant_report.md states it too.
constexpr int kQuantReportSchemaVersion = 1;

/// The bundled model's calibration set (examples/digits/calib), or "" for any other model.
fs::path bundledCalibration(const fs::path& model) {
  fs::path p = fs::weakly_canonical(model);
  fs::path dir = p.parent_path();
  if (p.filename() == "model.onnx" && dir.filename() == "digits" &&
      dir.parent_path().filename() == "examples" && fs::is_directory(dir / "calib")) {
    return dir / "calib";
  }
  return {};
}

std::string cosineText(double c) {
  return fmt::format("{:.5f}", c);
}

std::string dbText(double db) {
  if (std::isinf(db)) {
    return db > 0 ? "exact" : "-inf";
  }
  return fmt::format("{:.1f}", db);
}

std::string weightText(const LayerAccuracy& l) {
  if (!l.weightSqnrDb) {
    return "-";
  }
  return dbText(*l.weightSqnrDb) + (l.perChannel ? "" : " (per-tensor)");
}

nlohmann::ordered_json dbJson(double db) {
  // JSON has no infinity: an exact result is null.
  return std::isfinite(db) ? nlohmann::ordered_json(db) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json agreementJson(const Agreement& a) {
  return {{"cosine", a.cosine}, {"sqnr_db", dbJson(a.sqnrDb)}};
}

std::string methodText(const compiler::TensorCalibration& t) {
  if (t.given) {
    return "given";  // a calibration table's or a QDQ model's parameters
  }
  std::string text(compiler::observerName(t.settings.method));
  if (t.settings.method == compiler::ObserverMethod::Percentile) {
    text += fmt::format(" {}", t.settings.percentile);
  }
  if (t.settings.symmetric) {
    text += ", symmetric";
  }
  if (t.settings.powerOfTwo) {
    text += ", power of two";
  }
  return text;
}

/// The per-layer table for the terminal.
std::string formatTable(const AccuracyReport& r) {
  std::size_t nameWidth = 5;
  std::size_t opWidth = 2;
  for (const LayerAccuracy& l : r.layers) {
    nameWidth = std::max(nameWidth, l.layer.size());
    opWidth = std::max(opWidth, l.op.size());
  }
  std::string out = fmt::format(
      "Per-layer accuracy, int8 vs fp32 ({} samples; flagged '!': cosine < {} or isolated SQNR "
      "< {} dB)\n",
      r.samples, r.thresholds.cosine, r.thresholds.sqnrDb);
  out += fmt::format("  {:<{}}  {:<{}}  {:>9} {:>8}  {:>9} {:>8}  {:>8}\n", "", nameWidth, "",
                     opWidth, "isolated", "", "accumul.", "", "weights");
  out += fmt::format("  {:<{}}  {:<{}}  {:>9} {:>8}  {:>9} {:>8}  {:>8}\n", "layer", nameWidth,
                     "op", opWidth, "cosine", "SQNR dB", "cosine", "SQNR dB", "SQNR dB");
  for (const LayerAccuracy& l : r.layers) {
    out += fmt::format(
        "{} {:<{}}  {:<{}}  {:>9} {:>8}  {:>9} {:>8}  {:>8}\n", l.flagged ? "!" : " ", l.layer,
        nameWidth, l.op, opWidth, cosineText(l.isolated.cosine), dbText(l.isolated.sqnrDb),
        cosineText(l.accumulated.cosine), dbText(l.accumulated.sqnrDb), weightText(l));
  }
  out += "\nOutputs\n";
  for (const compiler::OutputAccuracy& o : r.outputs) {
    out += fmt::format("  {}: cosine {}, SQNR {} dB", o.name, cosineText(o.agreement.cosine),
                       dbText(o.agreement.sqnrDb));
    if (o.top1Agreement) {
      out +=
          fmt::format(", top-1 agrees with fp32 on {:.1f}% of samples", 100.0 * *o.top1Agreement);
    }
    out += "\n";
  }
  std::size_t flagged = 0;
  for (const LayerAccuracy& l : r.layers) {
    flagged += l.flagged;
  }
  out += fmt::format("\n{} of {} layers flagged\n", flagged, r.layers.size());
  // Layers fine alone but off in the whole model make one line (the Markdown lists each).
  std::vector<const LayerAccuracy*> accumulatedOnly;
  double worstAlone = 1.0;
  for (const LayerAccuracy& l : r.layers) {
    if (l.reasons.size() == 1 && l.reasons[0].starts_with("accumulated error")) {
      accumulatedOnly.push_back(&l);
      worstAlone = std::min(worstAlone, l.isolated.cosine);
      continue;
    }
    for (const std::string& reason : l.reasons) {
      out += fmt::format("  {}: {}\n", l.layer, reason);
    }
  }
  if (accumulatedOnly.size() == 1) {
    out += fmt::format("  {}: {}\n", accumulatedOnly[0]->layer, accumulatedOnly[0]->reasons[0]);
  } else if (!accumulatedOnly.empty()) {
    out += fmt::format(
        "  {} layers ({} .. {}): accumulated error: alone each reaches cosine >= {}, the error "
        "comes from earlier layers\n",
        accumulatedOnly.size(), accumulatedOnly.front()->layer, accumulatedOnly.back()->layer,
        cosineText(worstAlone));
  }
  return out;
}

nlohmann::ordered_json reportJson(const QuantReportOptions& o, const QuantizedModel& m,
                                  const AccuracyReport& r, const Provenance& provenance) {
  nlohmann::ordered_json json;
  json["schema_version"] = kQuantReportSchemaVersion;
  json["provenance"] = provenanceJson<nlohmann::ordered_json>(provenance);
  json["model"] = o.model;
  json["config"] =
      o.config.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.config);
  json["calibration_samples"] = m.calibration.samples;
  json["samples"] = r.samples;
  json["strategy"] = compiler::strategyName(m.partition.strategy);
  json["thresholds"] = {{"cosine", r.thresholds.cosine}, {"sqnr_db", r.thresholds.sqnrDb}};
  std::array<compiler::DeviceTotals, 2> totals = compiler::partitionTotals(m.graph, m.partition);
  json["partition"] = {{"npu", {{"ops", totals[0].ops}, {"macs", totals[0].macs}}},
                       {"host", {{"ops", totals[1].ops}, {"macs", totals[1].macs}}},
                       {"segments", m.partition.segments.size()}};
  nlohmann::ordered_json outputs = nlohmann::ordered_json::array();
  for (const compiler::OutputAccuracy& out : r.outputs) {
    nlohmann::ordered_json j = {{"name", out.name}};
    j.update(agreementJson(out.agreement));
    j["top1_agreement"] = out.top1Agreement ? nlohmann::ordered_json(*out.top1Agreement)
                                            : nlohmann::ordered_json(nullptr);
    outputs.push_back(std::move(j));
  }
  json["outputs"] = std::move(outputs);
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const LayerAccuracy& l : r.layers) {
    const compiler::TensorCalibration& c = m.calibration.at(l.output);
    nlohmann::ordered_json j = {{"layer", l.layer},
                                {"op", l.op},
                                {"output", l.output},
                                {"segment", l.segment},
                                {"isolated", agreementJson(l.isolated)},
                                {"accumulated", agreementJson(l.accumulated)}};
    j["weights"] = l.weightSqnrDb
                       ? nlohmann::ordered_json{{"sqnr_db", dbJson(*l.weightSqnrDb)},
                                                {"per_channel", l.perChannel},
                                                {"channel_range_ratio",
                                                 l.weightChannelRangeRatio.value_or(1.0)}}
                       : nlohmann::ordered_json(nullptr);
    j["lut"] = l.lut;
    j["output_quantization"] = {{"method", methodText(c)},
                                {"observed", {c.min, c.max}},
                                {"range", {c.alignedRange.lo, c.alignedRange.hi}},
                                {"scale", c.params.scale},
                                {"zero_point", c.params.zeroPoint}};
    j["flagged"] = l.flagged;
    j["reasons"] = l.reasons;
    layers.push_back(std::move(j));
  }
  json["layers"] = std::move(layers);
  return json;
}

std::string reportMarkdown(const QuantReportOptions& o, const QuantizedModel& m,
                           const AccuracyReport& r, const Provenance& provenance) {
  std::string md = fmt::format("# Quantization report: {}\n\n", o.model);
  md += fmt::format(
      "Written by `npu quant-report`. Calibration: {} samples; accuracy measured on {} of them. "
      "Config: {}. Isolated: fp32 inputs quantized into the int8 layer alone; accumulated: the "
      "whole int8 model. Flagged: cosine < {} or isolated SQNR < {} dB.\n\n",
      m.calibration.samples, r.samples, o.config.empty() ? "defaults" : "`" + o.config + "`",
      r.thresholds.cosine, r.thresholds.sqnrDb);
  md += "## Outputs\n\n| output | cosine | SQNR dB | top-1 agreement |\n|---|---|---|---|\n";
  for (const compiler::OutputAccuracy& out : r.outputs) {
    md += fmt::format("| {} | {} | {} | {} |\n", out.name, cosineText(out.agreement.cosine),
                      dbText(out.agreement.sqnrDb),
                      out.top1Agreement ? fmt::format("{:.1f}%", 100.0 * *out.top1Agreement) : "-");
  }
  md +=
      "\n## Layers\n\n| | layer | op | isolated cosine | isolated SQNR dB | accumulated cosine | "
      "accumulated SQNR dB | weight SQNR dB | output range | method |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const LayerAccuracy& l : r.layers) {
    const compiler::TensorCalibration& c = m.calibration.at(l.output);
    md += fmt::format("| {} | `{}` | {} | {} | {} | {} | {} | {} | [{:.4g}, {:.4g}] | {} |\n",
                      l.flagged ? "!" : "", l.layer, l.op, cosineText(l.isolated.cosine),
                      dbText(l.isolated.sqnrDb), cosineText(l.accumulated.cosine),
                      dbText(l.accumulated.sqnrDb), weightText(l), c.alignedRange.lo,
                      c.alignedRange.hi, methodText(c));
  }
  md += "\n## Flagged layers\n\n";
  bool any = false;
  for (const LayerAccuracy& l : r.layers) {
    for (const std::string& reason : l.reasons) {
      md += fmt::format("- `{}`: {}\n", l.layer, reason);
      any = true;
    }
  }
  md += any ? "" : "None.\n";
  md += "\n## Partition\n\n```\n" + compiler::formatPartitionReport(m.graph, m.partition) + "```\n";
  md += "\n" + markdownProvenanceLine(provenance, kQuantReportSchemaVersion);
  return md;
}

int run(const QuantReportOptions& o) {
  const Console console(o.output, false);
  const fs::path out(o.out);
  createDirectories(out);
  // The model first: a missing file is named as such, not as a missing calibration set.
  compiler::Graph graph = compiler::importModel(o.model);
  fs::path calib = o.calib.empty() ? bundledCalibration(o.model) : fs::path(o.calib);
  if (calib.empty()) {
    fail(
        "quant-report: {} has no bundled calibration set; pass --calib with a .npy file, a folder "
        "of .npy files (one per input for several inputs) or a .npz with an array per input",
        o.model);
  }
  compiler::CompileOptions compile;  // no target: the driver stops after quantization
  if (!o.config.empty()) {
    compile.quant = compiler::loadQuantConfig(o.config);
  }
  if (!o.calibTable.empty()) {
    compile.calibrationTable = compiler::loadCalibrationTable(o.calibTable);
  }
  compile.calibrationSamples = [&](const compiler::Graph& optimized) {
    return compiler::loadCalibrationSet(calib, optimized, compile.quant.maxSamples);
  };
  compiler::CompiledModel compiled = compiler::compileModel(std::move(graph), compile);
  const QuantizedModel& model = compiled.model;
  std::vector<compiler::TensorMap> samples = std::move(compiled.calibration);
  samples.resize(std::min(samples.size(), o.samples));
  AccuracyReport report = compiler::accuracyReport(
      model, samples, compiler::AccuracyThresholds{o.cosine, o.sqnrDb}, o.jobs);

  fmt::print(console.out(), "{}\n{}", compiler::formatPartitionReport(model.graph, model.partition),
             formatTable(report));
  for (const LayerAccuracy& l : report.layers) {
    for (const std::string& reason : l.reasons) {
      fmt::print(console.detail(), "flagged {}: {}\n", l.layer, reason);
    }
  }
  // Quantization alone: no hardware config, so no hardware hash.
  const Provenance provenance = reportProvenance();
  const std::string json = reportJson(o, model, report, provenance).dump(2) + "\n";
  writeTextFile(out / "quant_report.json", json);
  writeTextFile(out / "quant_report.md", reportMarkdown(o, model, report, provenance));
  fmt::print(console.out(), "\nWrote {} and {}\n", (out / "quant_report.json").string(),
             (out / "quant_report.md").string());
  console.printJson(json);  // the same document as quant_report.json
  return 0;
}

}  // namespace

void addQuantReportCommand(CLI::App& app, Action& action) {
  auto options = std::make_shared<QuantReportOptions>();
  CLI::App* command = app.add_subcommand(
      "quant-report", "Quantize a model and report int8 vs fp32 accuracy per layer");
  command->add_option("MODEL", options->model, "Model (.onnx) or graph spec (.yaml)")->required();
  command->add_option("--calib", options->calib,
                      "Calibration data: a .npy file, a folder of .npy files (one per input for "
                      "several inputs) or a .npz with an array per input (default for "
                      "examples/digits/model.onnx: its calib/ folder)");
  command->add_option("--config", options->config,
                      "Quantization config YAML (docs/quant-config.md)");
  command->add_option("--calib-table", options->calibTable,
                      "Calibration table: quantize the tensors it names as it says "
                      "(docs/quantized-models.md)");
  command->add_option("--out", options->out,
                      "Folder for quant_report.json and quant_report.md (default: .)");
  command->add_option("--threshold", options->cosine, "Flag layers under this cosine (0.99)")
      ->check(CLI::Range(0.0, 1.0));
  command->add_option("--sqnr-threshold", options->sqnrDb,
                      "Flag layers whose isolated SQNR is under this many dB (20)");
  command
      ->add_option("--samples", options->samples,
                   "Measure accuracy on the first N calibration samples (32)")
      ->check(CLI::PositiveNumber);
  command
      ->add_option("--jobs,-j", options->jobs,
                   "Samples measured in parallel (default 1; the report is the same for any N)")
      ->check(CLI::Range(1, 256));
  addOutputOptions(command, options->output);
  command->callback([&action, options] { action = [options] { return run(*options); }; });
}

}  // namespace npu::cli
