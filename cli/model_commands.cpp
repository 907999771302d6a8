// The model-level commands, all on the same flow (import, passes, partition, calibration,
// quantization, codegen):
//   npu run     [MODEL] [--hw] [--calib] [--data] [--labels] [--config] [--mode] [--out] [--rtl]
//               [--jobs] [--no-golden] [--save-outputs]
//   (all three: [--quiet|--verbose] [--json]: cli/console.h)
//   npu compile [MODEL] -o PROGRAM.npub [--dump-after STAGES] [--verify-each]
//   (both, and export: [--calib-table FILE] [--dump-calib FILE] [--export-qdq FILE.onnx])
//   npu export  [MODEL] --out DIR      (the bring-up bundle: docs/main-job.md, "The export bundle")
// No MODEL means the bundled digits model with its calibration and test data.
#include <fmt/format.h>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "commands.h"
#include "console.h"
#include "npu/compiler/partition/partition_report.h"
#include "npu/isa/npu_config.h"
#include "npu/isa/program.h"
#include "npu/runtime/cosim.h"
#include "npu/runtime/engine.h"
#include "npu/runtime/export_bundle.h"
#include "npu/runtime/export_model.h"
#include "npu/runtime/main_job.h"
#include "npu/runtime/run_model.h"
#include "npu/runtime/run_report.h"
#include "npu/runtime/run_trace.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/interrupt.h"
#include "npu/support/staged_directory.h"

namespace npu::cli {

namespace {

namespace fs = std::filesystem;

struct ModelOptions {
  std::string model;
  std::string hw = "npu-s";
  std::string calib;
  std::string data;
  std::string labels;
  std::string config;
  std::string calibTable;
  std::string dumpCalib;
  std::string exportQdq;
  std::string mode = "timed";
  std::string out;
  std::size_t count = 0;
  std::size_t jobs = 1;
  bool rtl = false;
  bool noGolden = false;
  OutputOptions output;
  std::string saveOutputs;
  bool saveLayers = false;
  std::string trace;
  double cosineWarn = 0.99;
};

void addModelOptions(CLI::App* command, ModelOptions& o) {
  command->add_option("MODEL", o.model,
                      "ONNX model or YAML graph (default: the bundled digits model)");
  command->add_option("--hw", o.hw, "Hardware config: a name (npu-s, npu-l) or a YAML file");
  command->add_option("--calib", o.calib,
                      "Calibration data: a .npy file, a folder of .npy files (one per input for "
                      "several inputs) or a .npz with an array per input");
  command->add_option("--config", o.config, "Quantization config YAML (docs/quant-config.md)");
  command->add_option("--calib-table", o.calibTable,
                      "Calibration table (JSON, or a TensorRT cache): quantize the tensors it "
                      "names as it says, without calibration (docs/quantized-models.md)");
  command->add_option("--dump-calib", o.dumpCalib,
                      "Write each tensor's observed range and chosen scale/zero point (JSON)");
  command->add_option("--export-qdq", o.exportQdq,
                      "Write the quantized model as a QDQ ONNX model (docs/quantized-models.md)");
  addOutputOptions(command, o.output);
}

/// The quantizer's notes (given parameters it could not honour, requantizing steps), on stderr
/// (none with --quiet).
void printNotes(const Console& console, const std::vector<std::string>& notes) {
  for (const std::string& note : notes) {
    fmt::print(console.progress(), "npu: note: {}\n", note);
  }
}

/// With --verbose: the partition report (which op runs where) of a prepared model.
void printPartition(const Console& console, const runtime::PreparedModel& prepared) {
  const compiler::QuantizedModel& model = prepared.compiled.model;
  fmt::print(console.detail(), "{}", compiler::formatPartitionReport(model.graph, model.partition));
}

runtime::MainJobOptions jobOptions(const ModelOptions& o) {
  runtime::MainJobOptions job;
  job.model = o.model.empty() ? runtime::bundledModelPath() : fs::path(o.model);
  job.hw = isa::resolveConfigPath(o.hw, fs::current_path());
  job.calib = o.calib;
  job.data = o.data;
  job.labels = o.labels;
  job.quantConfig = o.config;
  job.calibTable = o.calibTable;
  job.dumpCalib = o.dumpCalib;
  job.exportQdq = o.exportQdq;
  job.maxInputs = o.count;
  job.engine = *runtime::parseEngine(o.mode);  // CLI11 admits functional and timed only
  return job;
}

/// Prints the RTL co-simulation of the job's first input; returns false on any difference from
/// the SystemC model or from golden.
bool printRtl(std::FILE* out, const runtime::MainJobReport& report) {
  bool ok = true;
  for (const runtime::SegmentCosim& s : report.rtl) {
    fmt::print(out, "RTL co-simulation, NPU segment {}: {}", s.segment,
               s.report.summary(s.program));
    fmt::print(out, "  RTL final DDR vs golden expected DDR: {}\n",
               s.goldenEqual ? "identical" : "DIFFERENT");
    ok = ok && s.matches();
  }
  return ok;
}

/// npu run: the main job, with its reports.
void addRunCommand(CLI::App& app, Action& action) {
  auto o = std::make_shared<ModelOptions>();
  CLI::App* command = app.add_subcommand(
      "run", "Compile a model, run it on the simulator, verify against golden, report");
  addModelOptions(command, *o);
  command->add_option("--data", o->data,
                      "Inputs to run, laid out as --calib's: .npy file or folders, or a .npz");
  command->add_option("--labels", o->labels, "Integer labels (.npy) for top-1 accuracy");
  command->add_option("--mode", o->mode, "Simulator engine: timed (default) or functional")
      ->check(CLI::IsMember({"timed", "functional"}));
  command->add_option("--out", o->out, "Report directory (default: out/run)");
  command->add_option("--count", o->count, "Run at most this many inputs (default: all)")
      ->check(CLI::Range(1, 1'000'000'000));
  command->add_flag("--rtl", o->rtl, "Also co-simulate the first input on the RTL");
  command
      ->add_option("--jobs,-j", o->jobs,
                   "Inputs run in parallel (default 1; the reports are the same for any N)")
      ->check(CLI::Range(1, 256));
  command->add_flag("--no-golden", o->noGolden,
                    "Accuracy only: run the simulator without golden verification (the report "
                    "says NOT VERIFIED)");
  command->add_option("--save-outputs", o->saveOutputs,
                      "Write every graph output of every input as .npy into this folder: fp32 "
                      "model, NPU run and int8 (docs/main-job.md)");
  command
      ->add_flag("--save-layers", o->saveLayers,
                 "With --save-outputs: also every layer (fp32, and golden int8 for NPU layers)")
      ->needs("--save-outputs");
  command->add_option("--trace", o->trace,
                      "Write the first input's run as a Chrome/Perfetto trace (JSON) whose "
                      "slices are named by layer (docs/main-job.md)");
  command
      ->add_option("--cosine-warn", o->cosineWarn,
                   "Flag layers whose accumulated cosine vs fp32 is below this (default 0.99)")
      ->check(CLI::Range(-1.0, 1.0));
  command->callback([&action, o] {
    action = [o] {
      // With --dump-calib -, --export-qdq - or --trace - the data owns standard output: the
      // console lines go to stderr.
      const Console console(o->output, isStandardOutput(o->dumpCalib) ||
                                           isStandardOutput(o->exportQdq) ||
                                           isStandardOutput(o->trace));
      runtime::MainJobOptions job = jobOptions(*o);
      job.progress = [stream = console.progress()](std::size_t done, std::size_t total) {
        printProgress(stream, done, total, "inputs");
      };
      job.jobs = o->jobs;
      job.verify = !o->noGolden;
      job.rtl = o->rtl;
      job.saveOutputs = o->saveOutputs;
      job.saveLayers = o->saveLayers;
      job.cosineWarn = o->cosineWarn;
      const fs::path out = o->out.empty() ? fs::path("out/run") : fs::path(o->out);
      createDirectories(out);
      fmt::print(console.out(), "npu run: {} on {} ({} mode)\n", job.model.string(),
                 job.hw.string(), o->mode);
      std::fflush(console.out());
      const runtime::MainJobReport report = runtime::runMainJob(job);
      printNotes(console, report.quantizationNotes);
      fmt::print(console.out(), "\n{}\n{}", report.partitionReport,
                 runtime::formatRunSummary(report));
      for (const runtime::OutputAccuracy& output : report.outputs) {
        fmt::print(console.detail(), "output '{}': int8 vs fp32 cosine {:.6f}, SQNR {:.2f} dB\n",
                   output.name, output.cosine, output.sqnrDb);
      }
      fmt::print(console.detail(), "{}\n",
                 report.provenance.line(runtime::kRunReportSchemaVersion));
      if (report.inputs > 0 && report.inputSeconds > 0.0) {
        fmt::print(
            console.out(),
            "inputs: {} in {:.2f} s, {:.2f} images/s ({} job{}; simulation, {}fp32 reference "
            "included)\n",
            report.inputs, report.inputSeconds,
            static_cast<double>(report.inputs) / report.inputSeconds, job.jobs,
            job.jobs == 1 ? "" : "s", job.verify ? "golden verification and " : "");
      }
      const std::string json = runtime::runReportJson(report);
      writeTextFile(out / "report.md", runtime::runReportMarkdown(report));
      writeTextFile(out / "report.json", json);
      writeTextFile(out / "report.html", runtime::runReportHtml(report));
      fmt::print(console.out(), "reports: {0}/report.md, {0}/report.json, {0}/report.html\n",
                 out.string());
      if (!o->trace.empty()) {
        writeTextFile(o->trace, runtime::runTraceJson(report));
        fmt::print(console.out(), "trace: {}\n", o->trace);
      }
      bool ok = report.pass();
      if (o->rtl) {
        ok = printRtl(console.out(), report) && ok;
      }
      console.printJson(json);  // the same document as report.json
      return ok ? 0 : 1;
    };
  });
}

/// npu compile: the programs of the NPU segments, with stage dumps.
void addCompileCommand(CLI::App& app, Action& action) {
  auto o = std::make_shared<ModelOptions>();
  auto output = std::make_shared<std::string>();
  auto stages = std::make_shared<compiler::PipelineOptions>();
  CLI::App* command =
      app.add_subcommand("compile", "Compile a model to an NPU program file (.npub)");
  addModelOptions(command, *o);
  command->add_option("-o,--output", *output, "Program file to write")->required();
  command
      ->add_option("--dump-after", stages->dumpAfter,
                   "Print the IR after these stages: front-end pass names, partition, "
                   "quantize, codegen, or all")
      ->delimiter(',');
  command->add_flag("--verify-each", stages->verifyEach, "Verify the result of every stage");
  command->callback([&action, o, output, stages] {
    action = [o, output, stages] {
      // Data on standard output (-o -, --dump-calib -, --export-qdq -, the --dump-after IR): the
      // summary lines go to stderr.
      const Console console(o->output,
                            isStandardOutput(*output) || isStandardOutput(o->dumpCalib) ||
                                isStandardOutput(o->exportQdq) || !stages->dumpAfter.empty());
      const runtime::MainJobOptions job = jobOptions(*o);
      const runtime::PreparedModel prepared = runtime::prepareModel(job, *stages);
      printNotes(console, prepared.compiled.model.notes);
      printPartition(console, prepared);
      const auto& programs = prepared.compiled.programs;
      if (programs.empty()) {
        fail(ErrorKind::Unsupported, "{}: no layer runs on the NPU (nothing to compile)",
             job.model.string());
      }
      if (programs.size() > 1 && isStandardOutput(*output)) {
        fail(ErrorKind::Usage,
             "-o {}: the model has {} NPU segments, one program file each; give "
             "a file name (NAME.segment<i>.npub are written)",
             *output, programs.size());
      }
      nlohmann::ordered_json written = nlohmann::ordered_json::array();
      for (std::size_t i = 0; i < programs.size(); ++i) {
        fs::path path = *output;
        if (programs.size() > 1) {
          path.replace_filename(
              fmt::format("{}.segment{}{}", path.stem().string(), i, path.extension().string()));
        }
        isa::writeProgramFile(path, programs[i].program);
        fmt::print(console.out(), "{}: {} instructions, {} DDR init segments (NPU segment {})\n",
                   path.string(), programs[i].program.instructions.size(),
                   programs[i].program.segments.size(), i);
        written.push_back({{"path", path.string()},
                           {"npu_segment", i},
                           {"instructions", programs[i].program.instructions.size()},
                           {"ddr_segments", programs[i].program.segments.size()}});
      }
      nlohmann::ordered_json summary =
          summaryJson("compile", reportProvenance(isa::toYaml(prepared.compiled.hw)));
      summary["model"] = job.model.string();
      summary["hardware"] = prepared.compiled.hw.name;
      summary["programs"] = written;
      console.printJson(summary.dump(2) + "\n");
      return 0;
    };
  });
}

/// npu export: one bring-up bundle per NPU segment.
void addExportCommand(CLI::App& app, Action& action) {
  auto o = std::make_shared<ModelOptions>();
  CLI::App* command = app.add_subcommand(
      "export", "Write the bring-up bundle (DDR images, program, expected results, dumps)");
  addModelOptions(command, *o);
  command->add_option("--out", o->out, "Bundle directory")->required();
  command->callback([&action, o] {
    action = [o] {
      // The whole --out folder appears only once every segment's bundle is complete; staging it
      // first also makes a bad --out fail before the compile.
      const Console console(o->output,
                            isStandardOutput(o->dumpCalib) || isStandardOutput(o->exportQdq));
      StagedDirectory staged(o->out, {"manifest.yaml", "segment0/manifest.yaml"});
      const runtime::MainJobOptions job = jobOptions(*o);
      const runtime::PreparedModel prepared = runtime::prepareModel(job);
      printPartition(console, prepared);
      const std::vector<runtime::ExportedSegment> written =
          runtime::exportModel(prepared.compiled, prepared.compiled.calibration.front(),
                               staged.path(), job.model.string());
      staged.commit();
      nlohmann::ordered_json bundles = nlohmann::ordered_json::array();
      for (const runtime::ExportedSegment& segment : written) {
        const fs::path folder = staged.target() / segment.folder;
        fmt::print(console.out(),
                   "{}: bundle of NPU segment {} ({} instructions, {} expected cycles)\n",
                   folder.string(), segment.npuSegment, segment.instructions, segment.cycles);
        fmt::print(console.detail(), "  manifest: {}\n", (folder / "manifest.yaml").string());
        bundles.push_back({{"path", folder.string()},
                           {"npu_segment", segment.npuSegment},
                           {"instructions", segment.instructions},
                           {"expected_cycles", segment.cycles}});
      }
      nlohmann::ordered_json summary =
          summaryJson("export", reportProvenance(isa::toYaml(prepared.compiled.hw)));
      summary["model"] = job.model.string();
      summary["hardware"] = prepared.compiled.hw.name;
      summary["out"] = staged.target().string();
      summary["bundles"] = bundles;
      console.printJson(summary.dump(2) + "\n");
      return 0;
    };
  });
}

}  // namespace

void addModelCommands(CLI::App& app, Action& action) {
  addRunCommand(app, action);
  addCompileCommand(app, action);
  addExportCommand(app, action);
}

}  // namespace npu::cli
