// The product's main job (`npu run`): import, partition, calibrate, quantize, compile, run every
// input on the simulator with byte-for-byte verification against golden, and measure accuracy and
// cost per layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "npu/compiler/driver/compile.h"
#include "npu/runtime/engine.h"
#include "npu/runtime/layer_stats.h"
#include "npu/runtime/model_cosim.h"
#include "npu/simulator/simulate.h"
#include "npu/support/provenance.h"

namespace npu::runtime {

struct MainJobOptions {
  std::filesystem::path model;
  std::filesystem::path hw;
  /// Calibration data: a .npy file, folders of them or a .npz (compiler::loadCalibrationSet);
  /// empty: the bundled set of the digits model, otherwise synthetic inputs (see
  /// MainJobReport::calibrationSource).
  std::filesystem::path calib;
  /// Inputs to run, in calib's layouts; empty: the bundled test split of the digits model,
  /// otherwise the calibration inputs.
  std::filesystem::path data;
  /// Integer class labels [N] for top-1 accuracy; empty: the bundled labels or none.
  std::filesystem::path labels;
  /// Quantization config YAML (docs/quant-config.md); empty: defaults.
  std::filesystem::path quantConfig;
  /// A calibration table (docs/quantized-models.md): its tensors are quantized as it says,
  /// without calibration; empty: none.
  std::filesystem::path calibTable;
  /// Where to write the calibration table of the compiled model (JSON); empty: not written.
  std::filesystem::path dumpCalib;
  /// Where to write the quantized model as QDQ ONNX; empty: not written.
  std::filesystem::path exportQdq;
  /// The engine every input runs on: Functional or Timed (the RTL co-simulates one input, `rtl`).
  Engine engine = Engine::Timed;
  /// At most this many inputs run (0: all).
  std::size_t maxInputs = 0;
  /// Also co-simulate the first input that runs on the Verilator RTL (MainJobReport::rtl).
  bool rtl = false;
  /// Inputs run on this many threads (the report is the same for any number).
  std::size_t jobs = 1;
  /// false: the golden reference does not run (`--no-golden`): no bit-exactness check and no
  /// per-layer cosines, only the simulator's outputs against fp32 and the labels.
  bool verify = true;
  /// Where to write every graph output of every input run as .npy (fp32 model, NPU run, int8;
  /// runtime::SavedOutputs); empty: not written.
  std::filesystem::path saveOutputs;
  /// With saveOutputs: also every layer, fp32 and golden int8 (SavedOutputs, `--save-layers`).
  bool saveLayers = false;
  /// Layers whose accumulated cosine (int8 vs fp32) is below this are flagged in the reports
  /// (MainJobReport::cosineWarn, `--cosine-warn`).
  double cosineWarn = 0.99;
  /// Called after each input (done, total), one call at a time.
  std::function<void(std::size_t, std::size_t)> progress;
};

/// One row of the per-layer table: an NPU op or a host node.
struct LayerRow {
  std::string layer;
  std::string kind;
  std::string device;  // "npu" or "host"
  std::size_t segment = 0;
  std::uint64_t macs = 0;
  /// From the previous layer's end to this layer's end (the rows add up to the total).
  std::uint64_t cycles = 0;
  /// The compute unit's busy cycles on this layer; MAC utilisation is MACs over these.
  std::uint64_t computeCycles = 0;
  double macUtilization = 0.0;
  std::uint64_t ddrBytes = 0;
  /// ddrBytes / the bytes the DDR port moved for them in whole bursts (1 when nothing moved).
  double ddrEfficiency = 1.0;
  /// max(array cycles, DDR bytes / DDR bytes per cycle, vector elements / vector width), the
  /// array cycles max(MACs / peak, output elements / cols) (LayerStats::rooflineCycles).
  double rooflineCycles = 0.0;
  /// Cycles over the roofline bound (1 at the bound); nullopt for host rows and empty layers.
  [[nodiscard]] std::optional<double> rooflineRatio() const {
    if (device != "npu" || rooflineCycles <= 0.0) {
      return std::nullopt;
    }
    return static_cast<double>(cycles) / rooflineCycles;
  }
  /// Cosine similarity of the layer's output, int8 (dequantized) vs fp32, over the inputs that
  /// ran; nullopt for host layers.
  std::optional<double> cosine;
  /// Instructions of the layer's own; 0 for a concat whose inputs' producers stored them in
  /// place (docs/main-job.md, "Concat by address"): no cycles, bytes or bound of its own.
  std::uint64_t instructions = 0;
  /// The first layer of the fused group (a cascade, a gated project) this layer belongs to,
  /// empty alone; then groupRooflineRatio is the group's cycles over its bound, the figure to
  /// read for a member (LayerStats::groupRooflineRatio).
  std::string fusedWith;
  double groupRooflineRatio = 0.0;
};

/// One partition segment on the first input's end-to-end timeline (segments run one after
/// another): what `npu run --trace` writes and the report's timeline chart draws.
struct TimelineSegment {
  /// Index into the partition's segments.
  std::size_t segment = 0;
  std::string device;  // "npu" or "host"
  /// The segment's first cycle on the timeline, and its length: an NPU segment's timed cycles,
  /// a host segment's modelled ones (its nodes, then the NPU/host border).
  std::uint64_t start = 0;
  std::uint64_t cycles = 0;
  /// NPU: every span of the timed run (cycles from the segment's start), the layers of the
  /// program's manifest (isa::Program::layers) and per instruction the index of its layer
  /// there (-1 for END).
  std::vector<sim::TraceSpan> spans;
  std::vector<std::string> layerNames;
  std::vector<std::int64_t> instructionLayer;
  /// NPU: busy and stall cycles per unit (sim::SimStats::units).
  std::map<std::string, sim::UnitStats> units;
  /// Host: each node and its modelled cycles, in run order, then the border cycles.
  std::vector<std::pair<std::string, std::uint64_t>> hostNodes;
  std::uint64_t borderCycles = 0;
};

/// How one graph output of the int8 run agrees with fp32, over every input that ran.
struct OutputAccuracy {
  std::string name;
  double cosine = 0.0;
  /// Signal-to-quantization-noise ratio in dB (+infinity when identical).
  double sqnrDb = 0.0;
};

struct MainJobReport {
  /// Tools, commit, hardware hash, time and host of the run (support/provenance.h).
  Provenance provenance;
  std::string model;
  std::string hardware;
  std::string mode;
  std::string strategy;
  std::string calibrationSource;
  std::size_t calibrationSamples = 0;
  std::string dataSource;
  std::string partitionReport;
  std::int64_t npuOps = 0;
  std::int64_t hostOps = 0;
  /// NPU and host segments of the partition, in run order.
  std::int64_t npuSegments = 0;
  std::int64_t hostSegments = 0;
  std::int64_t npuMacs = 0;
  std::int64_t hostMacs = 0;
  /// Quantization: tensors calibrated, the activation method, weights per channel or tensor.
  std::size_t quantizedTensors = 0;
  std::string activationMethod;
  std::string weightQuantization;
  std::vector<LayerRow> layers;
  /// The threshold of the accumulated per-layer cosine below which a layer is flagged.
  double cosineWarn = 0.99;
  /// The rows (NPU layers with a cosine) below cosineWarn, in layer order.
  [[nodiscard]] std::vector<const LayerRow*> lowCosineLayers() const {
    std::vector<const LayerRow*> low;
    for (const LayerRow& row : layers) {
      if (row.cosine && *row.cosine < cosineWarn) {
        low.push_back(&row);
      }
    }
    return low;
  }
  /// The first input's run, segment by segment (NPU segments without spans when no input ran).
  std::vector<TimelineSegment> timeline;

  std::size_t inputs = 0;
  std::size_t bitExactInputs = 0;
  /// The first mismatch's message, when there was one.
  std::string firstMismatch;
  /// Labelled data only.
  std::optional<double> fp32Top1;
  std::optional<double> int8Top1;
  /// Labelled data with more than 5 classes only: the label is among the 5 highest scores
  /// (fewer than 5 classes score strictly higher than the label's), in %.
  std::optional<double> fp32Top5;
  std::optional<double> int8Top5;
  /// The first output holds class scores (one row of N > 1 values): only then are top-1 figures
  /// meaningful. A detector's or segmenter's outputs get per-output cosine and SQNR only.
  bool classScores = false;
  /// Share of inputs where int8 and fp32 pick the same class (%); class scores only.
  double top1Agreement = 0.0;
  /// Per graph output, in graph order.
  std::vector<OutputAccuracy> outputs;
  /// Cosine similarity of the graph outputs (all of them, over every input that ran): the NPU
  /// run (simulator, with host segments in fp32) against the fp32 model.
  double outputCosine = 0.0;

  /// The NPU segments' cycles (timed simulation), what baselines compare.
  std::uint64_t totalCycles = 0;
  /// The host segments' cycles by the host cost model (docs/timing.md), NPU/host borders
  /// included, and the borders alone.
  std::uint64_t hostCycles = 0;
  std::uint64_t borderCycles = 0;
  std::uint64_t totalMacs = 0;
  std::uint64_t ddrBytes = 0;
  double macUtilization = 0.0;
  double clockMhz = 0.0;
  /// At the configured clock, end to end: NPU and (modelled) host cycles.
  double inferencesPerSecond = 0.0;
  std::int64_t peakMacsPerCycle = 0;
  std::int64_t ddrBytesPerCycle = 0;
  std::uint64_t programBytes = 0;

  /// What quantization decided that the user should know (QuantizedModel::notes).
  std::vector<std::string> quantizationNotes;

  /// Wall time of running the inputs (simulation, golden verification, fp32 reference), for the
  /// images/s figure `npu run` prints; the written reports leave it out, so they do not depend on
  /// the machine or the number of jobs.
  double inputSeconds = 0.0;

  /// With MainJobOptions::rtl: every NPU segment of the first input run, co-simulated.
  std::vector<SegmentCosim> rtl;

  /// false when the run skipped golden verification (MainJobOptions::verify).
  bool verified = true;

  /// Every input bit-exact; without verification, every input ran (nothing else was checked).
  [[nodiscard]] bool pass() const { return inputs > 0 && (!verified || bitExactInputs == inputs); }
};

/// Runs the whole flow. Cycles come from the timed model (in functional mode, one timing-only run
/// of the first input measures them: timing does not depend on the data). Throws npu::Error for
/// bad input; a bit mismatch is reported, not thrown.
MainJobReport runMainJob(const MainJobOptions& options);

/// The compiled model the main job runs, for `npu compile` and `npu export`: the compiler driver
/// (compiler/driver/compile.h) on the job's model, target, config and calibration inputs.
/// compiled.calibration holds the calibration inputs (what `npu run` runs when no --data is
/// given).
struct PreparedModel {
  compiler::CompiledModel compiled;
  std::string calibrationSource;
};
/// `stages` carries --verify-each and --dump-after to the driver. Writes the calibration table
/// and the QDQ export when the options ask for them.
PreparedModel prepareModel(const MainJobOptions& options,
                           const compiler::PipelineOptions& stages = {});

/// `count` synthetic inputs for a model without data: N(0, 1) from a fixed seed (1234), the range
/// seeded YAML graphs and BN-normalised networks expect; what calibration uses without --calib.
std::vector<compiler::TensorMap> syntheticInputs(const compiler::Graph& graph, std::size_t count);

/// The bundled model: digits/model.onnx under $NPU_EXAMPLES_DIR, else examples/digits/model.onnx
/// in the data folder (npu::dataFile; an Error says where it looked when it is missing).
std::filesystem::path bundledModelPath();

}  // namespace npu::runtime
