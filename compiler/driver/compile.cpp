// The compiler driver: the whole flow as one list.
#include "npu/compiler/driver/compile.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "npu/compiler/codegen/codegen.h"
#include "npu/compiler/codegen/input_im2col.h"
#include "npu/compiler/codegen/space_to_depth_conv.h"
#include "npu/compiler/ir/types.h"
#include "npu/compiler/partition/capacity_check.h"
#include "npu/compiler/partition/partition_report.h"
#include "npu/compiler/quant/calibrate.h"
#include "npu/compiler/quant/quant_params.h"
#include "npu/compiler/quant/quantize_model.h"
#include "npu/compiler/quant/realize.h"
#include "npu/isa/assembly.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

// clang-format off
constexpr std::array kBackEndStages = {
  Stage{"partition", "which node runs where: NPU segments and host segments (the partition report)"},
  Stage{"quantize",  "each NPU segment as an int8 QuantizedGraph: tensors with scale and zero point, ops"},
  Stage{"codegen",   "each NPU segment's program, disassembled"},
};
// clang-format on

bool isFrontEndPass(std::string_view name) {
  std::span<const Pass> passes = frontEndPasses();
  return std::any_of(passes.begin(), passes.end(), [&](const Pass& p) { return p.name == name; });
}

bool isBackEndStage(std::string_view name) {
  return std::any_of(kBackEndStages.begin(), kBackEndStages.end(),
                     [&](const Stage& s) { return s.name == name; });
}

/// Rejects a dumpAfter name that is neither a front-end pass nor a stage, listing both.
void checkStageNames(const PipelineOptions& options) {
  for (const std::string& name : options.dumpAfter) {
    if (name == "all" || isFrontEndPass(name) || isBackEndStage(name)) {
      continue;
    }
    std::vector<std::string_view> names;
    for (const Pass& p : frontEndPasses()) {
      if (std::find(names.begin(), names.end(), p.name) == names.end()) {
        names.push_back(p.name);
      }
    }
    for (const Stage& s : kBackEndStages) {
      names.push_back(s.name);
    }
    fail("--dump-after: unknown stage '{}' (stages: {}, or all)", name, fmt::join(names, ", "));
  }
}

/// Verification and dumps after the back-end stages.
class StageGuard {
 public:
  explicit StageGuard(const PipelineOptions& options) : m_options(options) {}

  bool verifying() const { return verifiesEachStage(m_options); }

  /// Dumps `text()` when `stage` was asked for.
  template <typename Text>
  void dump(std::string_view stage, Text text) const {
    bool wanted = std::any_of(m_options.dumpAfter.begin(), m_options.dumpAfter.end(),
                              [&](const std::string& n) { return n == stage || n == "all"; });
    if (!wanted) {
      return;
    }
    std::string dumped = text();
    if (m_options.dumpSink) {
      m_options.dumpSink(stage, dumped);
    } else {
      fmt::print("; after {}\n{}", stage, dumped);
    }
  }

 private:
  const PipelineOptions& m_options;
};

/// Tensors realizeSegments added (a requantizing step's output) get a calibration entry with
/// their parameters, so every QTensor has one, as the reports expect.
void recordInsertedTensors(QuantizedModel& model) {
  for (const NpuSegment& segment : model.npuSegments) {
    for (const QTensor& t : segment.graph.tensors) {
      if (model.calibration.tensors.contains(t.name)) {
        continue;
      }
      TensorCalibration c;
      c.name = t.name;
      c.params = golden::QuantParams{static_cast<float>(t.scale), t.zeroPoint};
      c.range = representableRange(c.params);
      c.alignedRange = c.range;
      c.min = c.range.lo;
      c.max = c.range.hi;
      c.given = true;  // an inserted step only exists between given parameters
      model.calibration.tensors.emplace(t.name, c);
    }
  }
}

/// The table's parameters as Value::quant of the activations it names (over a QDQ model's).
void annotateValues(Graph& graph, const CalibrationTable& table) {
  for (const auto& [name, p] : table.tensors) {
    std::optional<ValueId> id = graph.findValue(name);
    if (id && !graph.value(*id).isConstant()) {
      graph.value(*id).quant = QuantParams{{p.scale}, {p.zeroPoint}, -1};
    }
  }
}

/// A QDQ model's given parameters with an explicit table over them; nullopt when both are empty.
/// `qdqModel`: the model brought parameters of its own (else `given` holds only what the passes
/// carried of the explicit table's).
std::optional<CalibrationTable> mergeTables(CalibrationTable given,
                                            const std::optional<CalibrationTable>& explicitTable,
                                            bool qdqModel) {
  if (!explicitTable) {
    return given.empty() ? std::nullopt : std::optional(std::move(given));
  }
  for (const auto& [name, params] : explicitTable->tensors) {
    given.tensors[name] = params;
  }
  given.source = qdqModel ? fmt::format("{} over {}", explicitTable->source, given.source)
                          : explicitTable->source;
  given.fromModel = false;
  return given;
}

/// The front-end part of the options: the pass names of dumpAfter, "all" kept.
PipelineOptions frontEndOptions(const PipelineOptions& options) {
  PipelineOptions frontEnd = options;
  std::erase_if(frontEnd.dumpAfter, [](const std::string& n) { return isBackEndStage(n); });
  return frontEnd;
}

/// Codegen: per NPU segment, small-channel graph inputs im2col'd by the host, then the program
/// with zero inputs (setProgramInputs fills them per run). Returns false, with the layers the
/// NPU cannot hold added to `placement.beyondNpu` (the first of each segment), when a segment's
/// op could not be lowered; `compiled` then holds no programs.
bool generatePrograms(const Graph& g, const QuantizedModel& model, const isa::NpuConfig& hw,
                      const StageGuard& guard, CompiledModel& compiled,
                      PartitionOptions& placement) {
  compiled.programs.clear();
  compiled.graphs.clear();
  compiled.inputIm2col.clear();
  bool complete = true;
  for (const NpuSegment& segment : model.npuSegments) {
    QuantizedGraph segmentGraph = segment.graph;
    // Index of each op of segmentGraph in segment.graph (space-to-depths become one conv).
    const std::vector<std::size_t> opOrigin = spaceToDepthAsConv(segmentGraph);
    compiled.inputIm2col.push_back(im2colGraphInputs(segmentGraph));
    std::vector<golden::Int8Tensor> zeros;
    for (TensorId id : segmentGraph.inputs) {
      golden::Int8Tensor t;
      t.shape = segmentGraph.tensors[id].shape;
      t.data.assign(static_cast<std::size_t>(elementCount(t.shape)), 0);
      zeros.push_back(std::move(t));
    }
    try {
      compiled.programs.push_back(generateProgram(segmentGraph, hw, zeros));
      if (guard.verifying()) {
        isa::validateProgram(compiled.programs.back().program, "the generated program");
      }
    } catch (const OpUnsupported& e) {
      if (e.op() >= opOrigin.size() || opOrigin[e.op()] >= segment.origins.size()) {
        throw;
      }
      const std::size_t node = segment.origins[opOrigin[e.op()]].node;
      if (std::any_of(placement.beyondNpu.begin(), placement.beyondNpu.end(),
                      [&](const auto& placed) { return placed.first == node; })) {
        fail(ErrorKind::Internal, "{}: NPU segment {}: {} (already placed on the host)", g.source(),
             segment.segment, e.what());
      }
      placement.beyondNpu.emplace_back(
          node, fmt::format("the NPU cannot hold it on '{}': {}", hw.name, e.what()));
      complete = false;
      continue;
    } catch (const Error& e) {
      fail(e.kind(), "{}: NPU segment {}: {}", g.source(), segment.segment, e.what());
    }
    compiled.graphs.push_back(std::move(segmentGraph));
  }
  if (!complete) {
    compiled.programs.clear();
    compiled.graphs.clear();
    compiled.inputIm2col.clear();
  }
  return complete;
}

}  // namespace

std::span<const Stage> backEndStages() {
  return kBackEndStages;
}

CompiledModel compileModel(Graph graph, const CompileOptions& options) {
  checkStageNames(options.stages);
  const bool qdqModel = !givenQuantization(graph).empty();
  if (options.calibrationTable) {
    annotateValues(graph, *options.calibrationTable);  // so the passes carry it like a QDQ model's
  }
  CalibrationTable given = givenQuantization(graph);          // a QDQ model's, before passes rename
  runFrontEndPasses(graph, frontEndOptions(options.stages));  // fold, fuse, canonicalise
  for (auto& [name, params] : givenQuantization(graph).tensors) {
    given.tensors.try_emplace(name, params);  // values the passes made, quantization kept
  }
  CompileOptions withGiven = options;
  withGiven.calibrationTable = mergeTables(std::move(given), options.calibrationTable, qdqModel);
  std::vector<TensorMap> samples = options.calibrationSamples(graph);
  return compileOptimizedGraph(std::move(graph), std::move(samples), withGiven);
}

CompiledModel compileOptimizedGraph(Graph graph, std::vector<TensorMap> samples,
                                    const CompileOptions& options) {
  checkStageNames(options.stages);
  const StageGuard guard(options.stages);
  const QuantConfig& config = options.quant;
  CompiledModel compiled;
  compiled.hw = options.hw.value_or(isa::NpuConfig{});
  compiled.calibration = std::move(samples);
  QuantizedModel& model = compiled.model;
  model.graph = std::move(graph);
  model.config = config;
  const Graph& g = model.graph;

  checkQuantConfig(config, g);  // names exist
  // Layers codegen finds the NPU cannot hold (not even one output pixel of theirs fits the
  // target): placed on the host with codegen's reason, then the flow runs again from the
  // partition (their borders change what is calibrated and quantized).
  PartitionOptions placement{config.strategy, config.hostLayers, {}};
  const auto notesBefore = model.notes;
  for (;;) {
    model.notes = notesBefore;  // a re-run from the partition says its notes once
    model.partition = partitionGraph(g, placement);  // NPU vs host
    guard.dump("partition", [&] { return formatPartitionReport(g, model.partition); });
    if (options.hw) {
      checkNpuCapacity(g, model.partition, *options.hw);  // before the expensive part
    }
    model.calibration = options.calibrationTable  // ranges, or the given parameters
                            ? calibrateWithTable(g, model.partition, compiled.calibration, config,
                                                 *options.calibrationTable, model.notes)
                            : calibrate(g, model.partition, compiled.calibration, config);
    model.npuSegments =  // int8
        realizeSegments(g, model.partition, model.calibration, config, &model.notes);
    recordInsertedTensors(model);  // requantizing steps' outputs, for the reports
    for (const NpuSegment& segment : model.npuSegments) {
      if (guard.verifying()) {
        verifyQuantizedGraph(segment.graph);
      }
    }
    guard.dump("quantize", [&] {
      std::string text;
      for (const NpuSegment& segment : model.npuSegments) {
        text += fmt::format("segment {}\n{}", segment.segment, dumpQuantizedGraph(segment.graph));
      }
      return text;
    });
    if (!options.hw) {
      return compiled;
    }
    if (generatePrograms(g, model, *options.hw, guard, compiled, placement)) {
      break;
    }
  }
  guard.dump("codegen", [&] {
    std::string text;
    for (std::size_t i = 0; i < compiled.programs.size(); ++i) {
      text += fmt::format("segment {}\n{}", model.npuSegments[i].segment,
                          isa::disassemble(compiled.programs[i].program));
    }
    return text;
  });
  return compiled;
}

QuantizedModel quantizeModel(Graph graph, const std::vector<TensorMap>& samples,
                             const QuantConfig& config) {
  CompileOptions options;
  options.quant = config;
  return compileOptimizedGraph(std::move(graph), samples, options).model;
}

}  // namespace npu::compiler
