// The main job: model in, verified NPU run out (see main_job.h).
#include "npu/runtime/main_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <random>

#include "npu/compiler/frontend/import.h"
#include "npu/compiler/frontend/npy.h"
#include "npu/compiler/partition/partition_report.h"
#include "npu/compiler/quant/accuracy_report.h"
#include "npu/compiler/quant/calibration_data.h"
#include "npu/compiler/quant/calibration_table.h"
#include "npu/compiler/quant/qdq_export.h"
#include "npu/compiler/quant/run_partitioned.h"
#include "npu/isa/encoding.h"
#include "npu/isa/npu_config.h"
#include "npu/runtime/host_cost.h"
#include "npu/runtime/run_model.h"
#include "npu/runtime/saved_outputs.h"
#include "npu/support/data_dir.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/interrupt.h"
#include "npu/support/parallel_for.h"

namespace npu::runtime {

namespace fs = std::filesystem;

fs::path bundledModelPath() {
  if (const char* dir = std::getenv("NPU_EXAMPLES_DIR"); dir != nullptr && *dir != '\0') {
    return fs::path(dir) / "digits" / "model.onnx";
  }
  return dataFile(fs::path("examples") / "digits" / "model.onnx");
}

std::vector<compiler::TensorMap> syntheticInputs(const compiler::Graph& graph, std::size_t count) {
  std::vector<compiler::TensorMap> samples(count);
  std::mt19937 rng(1234);
  std::normal_distribution<float> normal(0.0F, 1.0F);
  for (std::size_t k = 0; k < count; ++k) {
    for (compiler::ValueId id : graph.inputs()) {
      const compiler::Value& v = graph.value(id);
      if (v.isConstant()) {
        continue;
      }
      golden::FloatTensor t;
      t.shape = v.shape;
      std::int64_t n = 1;
      for (std::int64_t d : v.shape) {
        n *= d;
      }
      t.data.resize(static_cast<std::size_t>(n));
      // Token ids take 0, an index every table has; features a standard normal draw.
      const bool ids = v.dtype == compiler::DType::Int64 || v.dtype == compiler::DType::Int32;
      for (float& x : t.data) {
        x = ids ? 0.0F : normal(rng);
      }
      samples[k].emplace(v.name, std::move(t));
    }
  }
  return samples;
}

namespace {

bool isBundled(const fs::path& model) {
  std::error_code ec;
  const char* examples = std::getenv("NPU_EXAMPLES_DIR");
  const fs::path bundled = examples != nullptr && *examples != '\0'
                               ? fs::path(examples) / "digits" / "model.onnx"
                               : dataDir() / "examples" / "digits" / "model.onnx";
  return fs::equivalent(model, bundled, ec);
}

std::size_t argmax(const golden::FloatTensor& t) {
  return static_cast<std::size_t>(std::max_element(t.data.begin(), t.data.end()) - t.data.begin());
}

/// Whether `label` is among the 5 highest scores: fewer than 5 classes score strictly higher.
bool inTop5(const golden::FloatTensor& scores, std::int64_t label) {
  if (label < 0 || label >= static_cast<std::int64_t>(scores.data.size())) {
    return false;
  }
  const float own = scores.data[static_cast<std::size_t>(label)];
  return std::count_if(scores.data.begin(), scores.data.end(), [own](float v) { return v > own; }) <
         5;
}

struct Inputs {
  std::vector<compiler::TensorMap> samples;
  std::vector<std::int64_t> labels;
  std::string source;
};

Inputs loadData(const MainJobOptions& options, const compiler::Graph& graph,
                const std::vector<compiler::TensorMap>& calibration,
                const std::string& calibrationSource) {
  Inputs data;
  fs::path dataPath = options.data;
  fs::path labelPath = options.labels;
  if (dataPath.empty() && isBundled(options.model)) {
    dataPath = options.model.parent_path() / "test_inputs.npy";
    if (labelPath.empty()) {
      labelPath = options.model.parent_path() / "test_labels.npy";
    }
  }
  if (dataPath.empty()) {
    data.samples = calibration;
    data.source = calibrationSource;
  } else {
    data.samples = compiler::loadCalibrationSet(dataPath, graph);
    data.source = dataPath.string();
  }
  if (options.maxInputs > 0 && data.samples.size() > options.maxInputs) {
    data.samples.resize(options.maxInputs);
  }
  if (!labelPath.empty()) {
    const compiler::Tensor labels = compiler::readNpy(labelPath);
    if (labels.data.dtype() == compiler::DType::Float32) {
      fail("{}: labels must be integers, the file holds floats", labelPath.string());
    }
    std::vector<std::int64_t> all = labels.data.toInt64();
    if (all.size() < data.samples.size()) {
      fail("{}: {} labels for {} inputs", labelPath.string(), all.size(), data.samples.size());
    }
    all.resize(data.samples.size());
    data.labels = std::move(all);
  }
  return data;
}

}  // namespace

PreparedModel prepareModel(const MainJobOptions& options, const compiler::PipelineOptions& stages) {
  compiler::Graph graph = compiler::importModel(options.model);
  PreparedModel prepared;
  compiler::CompileOptions compile;
  if (!options.quantConfig.empty()) {
    compile.quant = compiler::loadQuantConfig(options.quantConfig);
  }
  if (!options.calibTable.empty()) {
    compile.calibrationTable = compiler::loadCalibrationTable(options.calibTable);
  }
  compile.hw = isa::loadNpuConfig(options.hw);
  compile.stages = stages;
  fs::path calib = options.calib;
  if (calib.empty() && isBundled(options.model)) {
    calib = options.model.parent_path() / "calib";
  }
  compile.calibrationSamples = [&](const compiler::Graph& optimized) {
    if (calib.empty()) {
      prepared.calibrationSource =
          "8 synthetic N(0,1) inputs (seed 1234; give --calib for real data)";
      return syntheticInputs(optimized, 8);
    }
    prepared.calibrationSource = calib.string();
    return compiler::loadCalibrationSet(calib, optimized);
  };
  prepared.compiled = compiler::compileModel(std::move(graph), compile);
  const compiler::QuantizedModel& model = prepared.compiled.model;
  if (!options.dumpCalib.empty()) {
    writeTextFile(options.dumpCalib,
                  compiler::calibrationTableJson(model.calibration, options.model.string()));
  }
  if (!options.exportQdq.empty()) {
    compiler::writeQdqOnnx(model, options.exportQdq);
  }
  return prepared;
}

namespace {

/// What the compile decided: hardware, partition, quantization.
void describeCompilation(MainJobReport& report, const MainJobOptions& options,
                         const PreparedModel& prepared) {
  const compiler::CompiledModel& compiled = prepared.compiled;
  const compiler::QuantizedModel& model = compiled.model;
  const compiler::Graph& graph = model.graph;
  report.model = options.model.string();
  report.cosineWarn = options.cosineWarn;
  report.hardware = compiled.hw.name;
  report.provenance = reportProvenance(isa::toYaml(compiled.hw));
  report.mode = std::string(engineName(options.engine));
  report.strategy = std::string(compiler::strategyName(model.partition.strategy));
  report.calibrationSource = prepared.calibrationSource;
  report.calibrationSamples = compiled.calibration.size();
  report.partitionReport = compiler::formatPartitionReport(graph, model.partition);
  const auto totals = compiler::partitionTotals(graph, model.partition);
  report.npuOps = totals[0].ops;
  report.npuMacs = totals[0].macs;
  report.hostOps = totals[1].ops;
  report.hostMacs = totals[1].macs;
  for (const compiler::Segment& segment : model.partition.segments) {
    ++(segment.device == compiler::Device::Npu ? report.npuSegments : report.hostSegments);
  }
  report.quantizedTensors = model.calibration.tensors.size();
  report.quantizationNotes = model.notes;
  const auto given = static_cast<std::size_t>(
      std::count_if(model.calibration.tensors.begin(), model.calibration.tensors.end(),
                    [](const auto& entry) { return entry.second.given; }));
  if (given == report.quantizedTensors && given > 0) {
    report.calibrationSource =
        "no samples: every tensor's scale and zero point was given (a QDQ "
        "model or --calib-table)";
    report.calibrationSamples = 0;
  } else if (given > 0) {
    report.calibrationSource = fmt::format(
        "{}, for the {} of {} tensors whose parameters were not given (a QDQ model or "
        "--calib-table)",
        prepared.calibrationSource, report.quantizedTensors - given, report.quantizedTensors);
  }
  report.activationMethod = std::string(compiler::observerName(model.config.activations.method)) +
                            (model.config.activations.symmetric ? ", symmetric" : ", asymmetric");
  report.weightQuantization =
      model.config.weights.perChannel ? "int8 symmetric per channel" : "int8 symmetric per tensor";
  report.clockMhz = compiled.hw.clockMhz;
  report.peakMacsPerCycle = compiled.hw.macRows * compiled.hw.macCols;
  report.ddrBytesPerCycle = compiled.hw.ddrBytesPerCycle;
}

/// Sets whether the first output holds class scores (one row of values), which labels need.
void checkClassScores(MainJobReport& report, const compiler::Graph& graph, const Inputs& data) {
  const compiler::Shape& firstShape = graph.value(graph.outputs().front()).shape;
  report.classScores =
      !firstShape.empty() && firstShape.back() > 1 &&
      std::all_of(firstShape.begin(), firstShape.end() - 1, [](std::int64_t d) { return d == 1; });
  if (!data.labels.empty() && !report.classScores) {
    fail("labels given, but the first output '{}' {} holds no class scores (one row of values)",
         graph.value(graph.outputs().front()).name, compiler::formatShape(firstShape));
  }
}

/// What one input contributes; inputs run on options.jobs threads and are combined in input
/// order, so the report does not depend on the number of jobs.
struct InputOutcome {
  bool bitExact = false;
  std::string mismatch;
  compiler::AgreementAccumulator all;
  std::vector<compiler::AgreementAccumulator> perOutput;
  std::size_t predicted = 0;
  std::size_t expected = 0;
  bool fp32Top5 = false;
  bool int8Top5 = false;
  std::vector<SegmentRun> segments;
};

/// Runs every input on the engine and in fp32, one outcome per input, and keeps what
/// --save-outputs asks for.
class InputRunner {
 public:
  /// Creates the --save-outputs folder and store, when asked for.
  InputRunner(const MainJobOptions& options, const compiler::CompiledModel& compiled,
              const Inputs& data, const compiler::Interpreter& fp32, const ModelGolden* golden)
      : m_options(options),
        m_compiled(compiled),
        m_data(data),
        m_fp32(fp32),
        m_golden(golden),
        m_outcomes(data.samples.size()) {
    if (!options.saveOutputs.empty()) {
      createDirectories(options.saveOutputs);  // a bad folder fails before the run
      m_saved.emplace(compiled.model, data.samples.size(), options.saveLayers);
    }
  }

  /// Runs the inputs on options.jobs threads.
  void runAll() {
    parallelFor(m_data.samples.size(), m_options.jobs, [&](std::size_t k) { runInput(k); });
  }

  /// Every input's outcome, in input order.
  [[nodiscard]] const std::vector<InputOutcome>& outcomes() const { return m_outcomes; }

  /// Writes the --save-outputs files (when asked for).
  void writeSaved() {
    if (m_saved) {
      m_saved->write(m_options.saveOutputs);
    }
  }

  /// The first input's segment runs, moved out.
  std::vector<SegmentRun> takeFirstRun() {
    return m_outcomes.empty() ? std::vector<SegmentRun>{} : std::move(m_outcomes.front().segments);
  }

 private:
  /// Runs input k on the engine and in fp32 and records what it contributes.
  void runInput(std::size_t k) {
    throwIfInterrupted();  // nothing is written yet: an interrupted run leaves no reports
    const compiler::TensorMap& input = m_data.samples[k];
    sim::SimOptions simOptions = simOptionsFor(m_options.engine);
    // The first input's spans give each layer its own busy time (the per-layer table).
    simOptions.collectTrace = k == 0 && m_options.engine == Engine::Timed;
    InferenceRun run = runInference(m_compiled, input, simOptions, m_golden, m_options.verify,
                                    m_saved && m_options.saveLayers);
    compiler::TensorMap kept;  // the NPU segments' outputs in fp32, for --save-outputs
    const compiler::TensorMap reference =
        m_saved ? m_fp32.run(input,
                             [&](const compiler::Value& value, const golden::FloatTensor& tensor) {
                               if (m_saved->keepsReference(value.name)) {
                                 kept.emplace(value.name, tensor);
                               }
                             })
                : m_fp32.run(input);
    if (m_saved) {
      kept.insert(reference.begin(), reference.end());
      m_saved->record(k, std::move(kept), run);
    }
    scoreInput(k, run, reference, m_outcomes[k]);
    if (m_options.progress) {
      const std::lock_guard<std::mutex> lock(m_progressMutex);
      m_options.progress(++m_done, m_data.samples.size());
    }
  }

  /// Fills input k's outcome from its NPU run and its fp32 reference outputs.
  void scoreInput(std::size_t k, InferenceRun& run, const compiler::TensorMap& reference,
                  InputOutcome& outcome) const {
    const compiler::QuantizedModel& model = m_compiled.model;
    const compiler::Graph& graph = model.graph;
    outcome.bitExact = m_options.verify && run.bitExact();
    for (const SegmentRun& s : run.segments) {
      if (s.mismatch) {
        outcome.mismatch =
            fmt::format("input {}: NPU segment {}: {}", k, model.npuSegments[s.npuSegment].segment,
                        s.mismatch->message);
        break;
      }
    }
    outcome.perOutput.resize(graph.outputs().size());
    for (std::size_t o = 0; o < graph.outputs().size(); ++o) {
      const std::string& name = graph.value(graph.outputs()[o]).name;
      outcome.all.add(reference.at(name).data, run.outputs.at(name).data);
      outcome.perOutput[o].add(reference.at(name).data, run.outputs.at(name).data);
    }
    const std::string& outName = graph.value(graph.outputs().front()).name;
    outcome.predicted = argmax(run.outputs.at(outName));
    outcome.expected = argmax(reference.at(outName));
    if (!m_data.labels.empty()) {
      outcome.fp32Top5 = inTop5(reference.at(outName), m_data.labels[k]);
      outcome.int8Top5 = inTop5(run.outputs.at(outName), m_data.labels[k]);
    }
    if (k == 0) {
      outcome.segments = std::move(run.segments);
    }
  }

  const MainJobOptions& m_options;
  const compiler::CompiledModel& m_compiled;
  const Inputs& m_data;
  const compiler::Interpreter& m_fp32;
  const ModelGolden* m_golden;
  std::vector<InputOutcome> m_outcomes;
  std::optional<SavedOutputs> m_saved;
  std::mutex m_progressMutex;
  std::size_t m_done = 0;
};

/// The inputs' outcomes summed in input order.
struct InputTally {
  std::size_t fp32Correct = 0;
  std::size_t int8Correct = 0;
  std::size_t fp32Top5 = 0;
  std::size_t int8Top5 = 0;
  std::size_t agree = 0;
  compiler::AgreementAccumulator outputAgreement;
  std::vector<compiler::AgreementAccumulator> perOutput;
};

/// Counts the inputs and bit-exact ones (and the first mismatch) into the report and sums the
/// outcomes' agreement and accuracy counts.
InputTally tallyOutcomes(MainJobReport& report, const MainJobOptions& options, const Inputs& data,
                         const std::vector<InputOutcome>& outcomes, std::size_t outputCount) {
  InputTally tally;
  tally.perOutput.resize(outputCount);
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    const InputOutcome& outcome = outcomes[k];
    ++report.inputs;
    if (outcome.bitExact) {
      ++report.bitExactInputs;
    } else if (options.verify && report.firstMismatch.empty()) {
      report.firstMismatch = outcome.mismatch;
    }
    tally.outputAgreement.merge(outcome.all);
    for (std::size_t o = 0; o < tally.perOutput.size(); ++o) {
      tally.perOutput[o].merge(outcome.perOutput[o]);
    }
    tally.agree += outcome.predicted == outcome.expected ? 1 : 0;
    if (!data.labels.empty()) {
      tally.fp32Correct += static_cast<std::int64_t>(outcome.expected) == data.labels[k] ? 1 : 0;
      tally.int8Correct += static_cast<std::int64_t>(outcome.predicted) == data.labels[k] ? 1 : 0;
      tally.fp32Top5 += outcome.fp32Top5 ? 1 : 0;
      tally.int8Top5 += outcome.int8Top5 ? 1 : 0;
    }
  }
  return tally;
}

/// The report's agreement and accuracy percentages over the inputs run.
void reportAccuracy(MainJobReport& report, const compiler::Graph& graph, const Inputs& data,
                    const InputTally& tally) {
  const compiler::Shape& firstShape = graph.value(graph.outputs().front()).shape;
  if (report.inputs > 0) {
    const double n = static_cast<double>(report.inputs);
    report.top1Agreement = 100.0 * static_cast<double>(tally.agree) / n;
    report.outputCosine = tally.outputAgreement.result().cosine;
    for (std::size_t o = 0; o < graph.outputs().size(); ++o) {
      const compiler::Agreement a = tally.perOutput[o].result();
      report.outputs.push_back({graph.value(graph.outputs()[o]).name, a.cosine, a.sqnrDb});
    }
    if (!data.labels.empty()) {
      report.fp32Top1 = 100.0 * static_cast<double>(tally.fp32Correct) / n;
      if (firstShape.back() > 5) {
        report.fp32Top5 = 100.0 * static_cast<double>(tally.fp32Top5) / n;
        report.int8Top5 = 100.0 * static_cast<double>(tally.int8Top5) / n;
      }
      report.int8Top1 = 100.0 * static_cast<double>(tally.int8Correct) / n;
    }
  }
}

/// Every input on the engine, verified; accuracy against fp32 and the labels. Returns the first
/// input's segment runs (their cycles serve the per-layer table).
std::vector<SegmentRun> runInputs(MainJobReport& report, const MainJobOptions& options,
                                  const compiler::CompiledModel& compiled, const Inputs& data) {
  const compiler::QuantizedModel& model = compiled.model;
  const compiler::Graph& graph = model.graph;
  const compiler::Interpreter fp32(graph);
  const std::optional<ModelGolden> prepared =
      options.verify ? std::optional<ModelGolden>(std::in_place, compiled) : std::nullopt;
  const ModelGolden* golden = prepared ? &*prepared : nullptr;
  checkClassScores(report, graph, data);
  InputRunner runner(options, compiled, data, fp32, golden);
  const auto start = std::chrono::steady_clock::now();
  const InterruptibleScope interruptible;
  runner.runAll();
  report.inputSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const InputTally tally =
      tallyOutcomes(report, options, data, runner.outcomes(), graph.outputs().size());
  runner.writeSaved();
  std::vector<SegmentRun> firstRun = runner.takeFirstRun();
  reportAccuracy(report, graph, data, tally);
  return firstRun;
}

/// Per NPU segment: every instruction's end cycle and span, and the total.
struct SegmentTiming {
  std::vector<std::vector<std::uint64_t>> endCycles;
  std::vector<std::vector<sim::TraceSpan>> traces;
  std::vector<std::uint64_t> totalCycles;
  std::vector<std::map<std::string, sim::UnitStats>> units;
};

/// The first input's cycles: from its timed run, or on the functional engine from a timing-only
/// timed run (timing does not depend on the data).
SegmentTiming timeSegments(const MainJobOptions& options, const compiler::CompiledModel& compiled,
                           const Inputs& data, const std::vector<SegmentRun>& firstRun) {
  SegmentTiming timing{
      std::vector<std::vector<std::uint64_t>>(compiled.programs.size()),
      std::vector<std::vector<sim::TraceSpan>>(compiled.programs.size()),
      std::vector<std::uint64_t>(compiled.programs.size(), 0),
      std::vector<std::map<std::string, sim::UnitStats>>(compiled.programs.size())};
  if (data.samples.empty()) {
    return timing;
  }
  if (options.engine == Engine::Timed) {
    for (const SegmentRun& s : firstRun) {
      timing.endCycles[s.npuSegment] = s.endCycles;
      timing.traces[s.npuSegment] = s.trace;
      timing.totalCycles[s.npuSegment] = s.stats.totalCycles;
      timing.units[s.npuSegment] = s.stats.units;
    }
    return timing;
  }
  const auto inputs = segmentInputs(compiled, data.samples.front());
  for (std::size_t i = 0; i < compiled.programs.size(); ++i) {
    compiler::CompiledProgram program = compiled.programs[i];
    compiler::setProgramInputs(program, compiled.graphs[i], compiled.programInputs(i, inputs[i]));
    EngineOptions countOnly;
    countOnly.sim.countOnly = true;
    countOnly.sim.collectTrace = true;
    EngineRun run = runOnEngine(program.program, Engine::Timed, countOnly);
    if (run.fault) {
      fail(ErrorKind::Verification, "{}: NPU segment {}: {}", compiled.model.graph.source(),
           compiled.model.npuSegments[i].segment, *run.fault);
    }
    timing.endCycles[i] = std::move(run.endCycles);
    timing.traces[i] = std::move(run.trace);
    timing.totalCycles[i] = run.totalCycles;
    timing.units[i] = std::move(run.stats.units);
  }
  return timing;
}

/// Per-layer cosine of int8 (golden, which the DDR check proves equal to the simulator) vs fp32,
/// through the whole int8 model (the quant-report's accumulated figure), over up to 32 inputs.
std::map<std::string, double, std::less<>> layerCosines(const compiler::QuantizedModel& model,
                                                        const Inputs& data, std::size_t jobs) {
  std::map<std::string, double, std::less<>> cosine;
  if (!data.samples.empty()) {
    const std::vector<compiler::TensorMap> first(
        data.samples.begin(),
        data.samples.begin() +
            static_cast<std::ptrdiff_t>(std::min<std::size_t>(data.samples.size(), 32)));
    for (const compiler::LayerAccuracy& layer :
         compiler::accuracyReport(model, first, {}, jobs).layers) {
      cosine[layer.layer] = layer.accumulated.cosine;
    }
  }
  return cosine;
}

/// The per-layer table in execution order (host nodes and NPU ops) and the NPU totals.
void addLayers(MainJobReport& report, const compiler::CompiledModel& compiled,
               const SegmentTiming& timing,
               const std::map<std::string, double, std::less<>>& cosine) {
  const compiler::QuantizedModel& model = compiled.model;
  const compiler::Graph& graph = model.graph;
  std::size_t npuIndex = 0;
  std::uint64_t now = 0;  // the timeline's cycle: segments run one after another
  for (std::size_t s = 0; s < model.partition.segments.size(); ++s) {
    const compiler::Segment& segment = model.partition.segments[s];
    TimelineSegment& slot = report.timeline.emplace_back();
    slot.segment = s;
    slot.start = now;
    if (segment.device == compiler::Device::Host) {
      slot.device = "host";
      for (std::size_t n : segment.nodes) {
        const compiler::Node& node = graph.nodes()[n];
        LayerRow row;
        row.layer = node.name;
        row.kind = std::string(compiler::opName(node.op));
        row.device = "host";
        row.segment = s;
        row.macs = static_cast<std::uint64_t>(compiler::nodeMacs(graph, node));
        row.cycles = hostNodeCycles(graph, node, compiled.hw);
        report.hostCycles += row.cycles;
        slot.hostNodes.emplace_back(row.layer, row.cycles);
        slot.cycles += row.cycles;
        report.layers.push_back(row);
      }
      const std::uint64_t border = borderCycles(graph, model.partition, s, compiled.hw);
      report.borderCycles += border;
      report.hostCycles += border;
      slot.borderCycles = border;
      slot.cycles += border;
      now += slot.cycles;
      continue;
    }
    // The spans are named by the program's own layer table (its manifest), as `npu disasm` and a
    // testbench reading the .npub see them.
    slot.device = "npu";
    slot.cycles = timing.totalCycles[npuIndex];
    slot.spans = timing.traces[npuIndex];
    slot.units = timing.units[npuIndex];
    for (const isa::ProgramLayer& layer : compiled.programs.at(npuIndex).program.layers) {
      slot.layerNames.push_back(layer.name);
    }
    slot.instructionLayer = isa::instructionLayers(compiled.programs.at(npuIndex).program);
    now += slot.cycles;
    const compiler::QuantizedGraph& npuGraph = compiled.graphs.at(npuIndex);
    const compiler::CompiledProgram& program = compiled.programs.at(npuIndex);
    const std::vector<LayerStats> stats = layerStats(
        program, npuGraph, compiled.hw, timing.endCycles[npuIndex], timing.traces[npuIndex]);
    for (const LayerStats& layer : stats) {
      LayerRow row;
      row.layer = layer.layer;
      row.kind = layer.kind;
      row.device = "npu";
      row.segment = s;
      row.macs = layer.macs;
      row.cycles = layer.cycles;
      row.computeCycles = layer.computeCycles;
      row.instructions = layer.instructions;
      row.macUtilization = layer.macUtilization;
      row.ddrBytes = layer.ddrBytesRead + layer.ddrBytesWritten;
      if (layer.ddrBurstBytes > 0) {
        row.ddrEfficiency =
            static_cast<double>(row.ddrBytes) / static_cast<double>(layer.ddrBurstBytes);
      }
      row.rooflineCycles = layer.rooflineCycles;
      if (layer.fusedWith >= 0) {
        row.fusedWith = stats[static_cast<std::size_t>(layer.fusedWith)].layer;
        row.groupRooflineRatio = layer.groupRooflineRatio;
      }
      if (auto it = cosine.find(row.layer); it != cosine.end()) {
        row.cosine = it->second;
      }
      report.totalMacs += row.macs;
      report.ddrBytes += row.ddrBytes;
      report.layers.push_back(row);
    }
    report.totalCycles += timing.totalCycles[npuIndex];
    report.programBytes += program.program.instructions.size() * isa::kWordBytes;
    ++npuIndex;
  }
  if (report.totalCycles > 0) {
    report.macUtilization =
        static_cast<double>(report.totalMacs) /
        (static_cast<double>(report.totalCycles) * static_cast<double>(report.peakMacsPerCycle));
  }
  // End to end: a model kept wholly on the host still has a (modelled) rate.
  if (report.totalCycles + report.hostCycles > 0) {
    report.inferencesPerSecond =
        report.clockMhz * 1e6 / static_cast<double>(report.totalCycles + report.hostCycles);
  }
}

}  // namespace

MainJobReport runMainJob(const MainJobOptions& options) {
  if (options.engine == Engine::Rtl) {
    fail(
        "the main job runs its inputs on the functional or timed engine; the RTL co-simulates the "
        "first one (--rtl)");
  }
  if (options.rtl && !options.verify) {
    fail("--rtl compares the RTL with golden; it cannot run with --no-golden");
  }
  const PreparedModel prepared = prepareModel(options);  // the compiler driver
  const compiler::CompiledModel& compiled = prepared.compiled;
  MainJobReport report;
  describeCompilation(report, options, prepared);
  const Inputs data =
      loadData(options, compiled.model.graph, compiled.calibration, prepared.calibrationSource);
  report.dataSource = data.source;
  report.verified = options.verify;
  const std::vector<SegmentRun> firstRun = runInputs(report, options, compiled, data);
  const SegmentTiming timing = timeSegments(options, compiled, data, firstRun);
  // The per-layer cosines run the golden model: not without verification.
  addLayers(report, compiled, timing,
            options.verify ? layerCosines(compiled.model, data, options.jobs)
                           : std::map<std::string, double, std::less<>>{});
  if (options.rtl && !data.samples.empty()) {
    report.rtl = cosimulateModel(compiled, data.samples.front());
  }
  return report;
}

}  // namespace npu::runtime
