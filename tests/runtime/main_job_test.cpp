// The main job on the bundled digits model: every input bit-exact in both engines, accuracy
// close to fp32, per-layer figures consistent with the program's totals, reports well-formed.
#include <gtest/gtest.h>

#include <algorithm>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "npu/compiler/frontend/npy.h"
#include "npu/compiler/quant/calibration_data.h"
#include "npu/runtime/main_job.h"
#include "npu/runtime/run_model.h"
#include "npu/runtime/run_report.h"
#include "npu/runtime/run_trace.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::runtime {
namespace {

MainJobOptions digits(Engine engine, std::size_t count) {
  MainJobOptions options;
  options.model = bundledModelPath();
  options.hw = std::filesystem::path(NPU_SOURCE_DIR) / "configs" / "npu-s.yaml";
  options.engine = engine;
  options.maxInputs = count;
  return options;
}

/// One input of subnet_bench/graphs/NAME.yaml on npu-s.
MainJobOptions subnet(const std::string& name) {
  MainJobOptions options;
  options.model = std::filesystem::path(NPU_SOURCE_DIR) / "subnet_bench/graphs" / (name + ".yaml");
  options.hw = std::filesystem::path(NPU_SOURCE_DIR) / "configs" / "npu-s.yaml";
  options.maxInputs = 1;
  return options;
}

TEST(MainJob, DigitsBitExactInBothEnginesWithTheSameCycles) {
  const MainJobReport timed = runMainJob(digits(Engine::Timed, 12));
  const MainJobReport functional = runMainJob(digits(Engine::Functional, 60));
  EXPECT_TRUE(timed.pass()) << timed.firstMismatch;
  EXPECT_TRUE(functional.pass()) << functional.firstMismatch;
  EXPECT_EQ(timed.inputs, 12U);
  EXPECT_EQ(functional.bitExactInputs, 60U);
  // Functional mode measures cycles with a timing-only run: the same figure.
  EXPECT_GT(timed.totalCycles, 0U);
  EXPECT_EQ(timed.totalCycles, functional.totalCycles);
  ASSERT_TRUE(functional.fp32Top1 && functional.int8Top1);
  EXPECT_GE(*functional.int8Top1, *functional.fp32Top1 - 2.0);
  // Ten classes: top-5 is reported, and no smaller than top-1.
  ASSERT_TRUE(functional.fp32Top5 && functional.int8Top5);
  EXPECT_GE(*functional.fp32Top5, *functional.fp32Top1);
  EXPECT_GE(*functional.int8Top5, *functional.int8Top1);
  EXPECT_LE(*functional.int8Top5, 100.0);
  EXPECT_GE(functional.top1Agreement, 95.0);
}

TEST(MainJob, ReportsAreTheSameForAnyNumberOfJobs) {
  MainJobOptions options = digits(Engine::Functional, 40);
  const MainJobReport one = runMainJob(options);
  options.jobs = 3;
  const MainJobReport three = runMainJob(options);
  EXPECT_EQ(one.inputs, 40U);
  // The same tools, commit and hardware; the reports are compared under one provenance stamp,
  // since the two runs' UTC times may differ by a second.
  EXPECT_EQ(one.provenance.commit, three.provenance.commit);
  EXPECT_EQ(one.provenance.hardwareHash, three.provenance.hardwareHash);
  MainJobReport threeStamped = three;
  threeStamped.provenance = one.provenance;
  EXPECT_EQ(runReportJson(one), runReportJson(threeStamped));
  EXPECT_EQ(runReportMarkdown(one), runReportMarkdown(threeStamped));
}

TEST(MainJob, NoGoldenRunsTheSameInputsWithoutVerifying) {
  MainJobOptions options = digits(Engine::Functional, 30);
  const MainJobReport verified = runMainJob(options);
  options.verify = false;
  const MainJobReport accuracyOnly = runMainJob(options);
  EXPECT_TRUE(verified.verified);
  EXPECT_FALSE(accuracyOnly.verified);
  EXPECT_TRUE(accuracyOnly.pass());
  EXPECT_EQ(accuracyOnly.bitExactInputs, 0U);
  // The simulator's outputs are the same: the same accuracy, stated as unverified.
  EXPECT_EQ(accuracyOnly.int8Top1, verified.int8Top1);
  EXPECT_EQ(accuracyOnly.outputCosine, verified.outputCosine);
  EXPECT_EQ(formatRunSummary(accuracyOnly).find("PASS"), std::string::npos);
  EXPECT_NE(formatRunSummary(accuracyOnly).find("NOT VERIFIED: 30 inputs ran with --no-golden"),
            std::string::npos);
  options.rtl = true;
  EXPECT_THROW(runMainJob(options), Error);
}

TEST(MainJob, RtlCosimulatesTheFirstInputThatRan) {
  MainJobOptions options = digits(Engine::Timed, 1);
  options.rtl = true;
  const MainJobReport report = runMainJob(options);
  ASSERT_EQ(report.rtl.size(), 1U);
  EXPECT_TRUE(report.rtl[0].matches());
  EXPECT_EQ(report.rtl[0].report.cycleDelta(), 0);
  // The bundled model runs its test split: the RTL program holds test input 0, not the first
  // calibration image.
  const PreparedModel prepared = prepareModel(options);
  const auto tests = compiler::loadCalibrationSet(
      bundledModelPath().parent_path() / "test_inputs.npy", prepared.compiled.model.graph, 1);
  const auto inputs = segmentInputs(prepared.compiled, tests.front());
  EXPECT_EQ(report.rtl[0].program.segments,
            segmentImages(prepared.compiled, 0, inputs[0]).compiled.program.segments);
  const auto calibration = segmentInputs(prepared.compiled, prepared.compiled.calibration.front());
  EXPECT_NE(report.rtl[0].program.segments,
            segmentImages(prepared.compiled, 0, calibration[0]).compiled.program.segments);
}

TEST(MainJob, LayerFiguresAddUp) {
  const MainJobReport r = runMainJob(digits(Engine::Timed, 1));
  std::uint64_t cycles = 0;
  std::uint64_t macs = 0;
  std::size_t npuLayers = 0;
  for (const LayerRow& row : r.layers) {
    if (row.device != "npu") {
      continue;
    }
    ++npuLayers;
    cycles += row.cycles;
    macs += row.macs;
    if (row.instructions == 0) {
      // A concat whose producers stored its inputs in place, or a slice its conv reads in
      // place: nothing of its own.
      EXPECT_TRUE(row.kind == "concat" || row.kind == "slice") << row.layer;
      EXPECT_EQ(row.cycles, 0U) << row.layer;
      EXPECT_EQ(row.ddrBytes, 0U) << row.layer;
      EXPECT_FALSE(row.rooflineRatio().has_value()) << row.layer;
      continue;
    }
    EXPECT_GT(row.cycles, 0U) << row.layer;
    EXPECT_GT(row.ddrBytes, 0U) << row.layer;
    EXPECT_LE(row.macUtilization, 1.0) << row.layer;
    // Requested bytes over the bytes moved in whole bursts.
    EXPECT_GT(row.ddrEfficiency, 0.0) << row.layer;
    EXPECT_LE(row.ddrEfficiency, 1.0) << row.layer;
    // No layer beats its roofline bound.
    EXPECT_GE(static_cast<double>(row.cycles), row.rooflineCycles) << row.layer;
    ASSERT_TRUE(row.cosine.has_value()) << row.layer;
    EXPECT_GT(*row.cosine, 0.99) << row.layer;
  }
  EXPECT_EQ(npuLayers, 15U);  // the softmax too: the FC's reshape before it is an alias
  EXPECT_EQ(macs, static_cast<std::uint64_t>(r.npuMacs));
  // Layer spans tile the run up to the END drain.
  EXPECT_LE(cycles, r.totalCycles);
  EXPECT_GT(cycles, r.totalCycles * 95 / 100);
  const auto json = nlohmann::json::parse(runReportJson(r));
  EXPECT_EQ(json["pass"], true);
  EXPECT_EQ(json["layers"].size(), r.layers.size());
  EXPECT_EQ(json["performance"]["total_cycles"], r.totalCycles);
  const std::string html = runReportHtml(r);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // no external links
  EXPECT_NE(runReportMarkdown(r).find("| /net/conv3/conv3.0/Conv | conv | npu | 1179648 |"),
            std::string::npos);
}

TEST(MainJob, RunTraceSlicesNameTheModelsLayers) {
  // MobileNetV2's inverted residual runs as one cascade: its layers' instructions interleave.
  for (const MainJobOptions& options :
       {digits(Engine::Timed, 1), subnet("mbv2_inverted_residual_s1")}) {
    const MainJobReport r = runMainJob(options);
    std::set<std::string> npuLayers;
    for (const LayerRow& row : r.layers) {
      if (row.device == "npu") {
        npuLayers.insert(row.layer);
      }
    }
    std::size_t instructions = 0;
    std::set<std::string> programLayers;  // the manifests' layer tables
    for (const TimelineSegment& slot : r.timeline) {
      instructions += slot.instructionLayer.size();
      programLayers.insert(slot.layerNames.begin(), slot.layerNames.end());
    }
    EXPECT_FALSE(programLayers.empty());
    const auto json = nlohmann::json::parse(runTraceJson(r));
    EXPECT_EQ(json["otherData"]["schema_version"], 1);
    EXPECT_EQ(json["otherData"]["provenance"]["tool"], r.provenance.tool);
    std::size_t npuSlices = 0;
    std::set<std::string> named;
    for (const auto& event : json["traceEvents"]) {
      if (event["ph"] != "X" || event["cat"] == "host") {
        continue;
      }
      ++npuSlices;
      const std::string name = event["name"];
      if (name == "END") {
        EXPECT_EQ(event["args"]["opcode"], "END");
        continue;
      }
      EXPECT_TRUE(npuLayers.contains(name)) << name;
      named.insert(name);
    }
    // Every instruction has a span on its unit and one on fetch.
    EXPECT_GE(npuSlices, 2 * instructions) << options.model;
    EXPECT_EQ(named, programLayers) << options.model;
  }
}

TEST(MainJob, BranchingGraphsReportNoLayerAboveFullUtilization) {
  // GoogLeNet's inception block: four branches whose loads overlap each other's compute, which
  // made "cycles since the previous layer ended" undercount a layer (utilisation above 100%).
  MainJobOptions options = subnet("inception_concat");
  std::vector<std::uint64_t> timedCompute;
  for (const Engine engine : {Engine::Timed, Engine::Functional}) {
    options.engine = engine;
    const MainJobReport r = runMainJob(options);
    std::vector<std::uint64_t> compute;
    for (const LayerRow& row : r.layers) {
      if (row.device != "npu") {
        continue;
      }
      compute.push_back(row.computeCycles);
      EXPECT_TRUE(row.computeCycles > 0 ||
                  (row.instructions == 0 && (row.kind == "concat" || row.kind == "slice")))
          << row.layer;
      EXPECT_LE(row.macUtilization, 1.0) << row.layer;
      EXPECT_GE(row.computeCycles * static_cast<std::uint64_t>(r.peakMacsPerCycle), row.macs)
          << row.layer;
    }
    if (engine == Engine::Timed) {
      timedCompute = compute;
    } else {
      // The functional engine's figures come from a timing-only timed run: the same.
      EXPECT_EQ(compute, timedCompute);
    }
  }
}

TEST(MainJob, FusedLayersReportTheirGroupsBound) {
  // mbconv_se: the expand -> depthwise -> pool cascade and the gated project (multiply, project,
  // residual add) interleave their instructions; each member shows its group's ratio, the same
  // for every member and never below the bound; the two squeeze FCs between stand alone.
  const MainJobReport r = runMainJob(subnet("mbconv_se"));
  std::map<std::string, std::vector<const LayerRow*>> groups;
  for (const LayerRow& row : r.layers) {
    if (row.device == "npu" && !row.fusedWith.empty()) {
      groups[row.fusedWith].push_back(&row);
    }
  }
  ASSERT_EQ(groups.size(), 2U);
  EXPECT_EQ(groups["expand"].size(), 3U);  // expand, dw, squeeze
  EXPECT_EQ(groups["excite"].size(), 3U);  // excite, project, add
  for (const auto& [first, members] : groups) {
    double cycles = 0;
    for (const LayerRow* row : members) {
      EXPECT_EQ(row->groupRooflineRatio, members.front()->groupRooflineRatio) << row->layer;
      EXPECT_GE(row->groupRooflineRatio, 1.0) << row->layer;
      cycles += static_cast<double>(row->cycles);
    }
    EXPECT_GT(cycles, 0.0) << first;
  }
  for (const LayerRow& row : r.layers) {
    if (row.layer == "reduce" || row.layer == "restore") {
      EXPECT_TRUE(row.fusedWith.empty()) << row.layer;
    }
  }
  const std::string markdown = runReportMarkdown(r);
  EXPECT_NE(markdown.find("x*"), std::string::npos);
  const auto json = nlohmann::json::parse(runReportJson(r));
  for (const auto& layer : json["layers"]) {
    if (layer["layer"] == "dw") {
      EXPECT_EQ(layer["fused_with"], "expand");
    }
  }
}

TEST(MainJob, AFusedDepthwiseIsBoundByItsOutputVectors) {
  // mbv2_inverted_residual_s1's 3x3 depthwise, cascaded (its input and output stay on chip):
  // the array writes one output vector of `cols` a cycle, so its bound is its outputs over
  // cols (its MACs over 9 * cols), not its MACs at the full array (9 of 16 rows per step),
  // and the group's bound sums its members' array cycles.
  const MainJobReport r = runMainJob(subnet("mbv2_inverted_residual_s1"));
  const auto dw = std::find_if(r.layers.begin(), r.layers.end(),
                               [](const LayerRow& row) { return row.kind == "depthwise"; });
  ASSERT_NE(dw, r.layers.end());
  const double cols = 16;  // npu-s
  const double outputs = static_cast<double>(dw->macs) / 9.0;
  EXPECT_DOUBLE_EQ(dw->rooflineCycles, outputs / cols);
  EXPECT_GT(dw->rooflineCycles, static_cast<double>(dw->macs) / (cols * cols));
  EXPECT_GT(dw->rooflineCycles, static_cast<double>(dw->ddrBytes) / 16.0);
  double cycles = 0;
  double bound = 0;
  for (const LayerRow& row : r.layers) {
    if (row.fusedWith == dw->fusedWith) {
      cycles += static_cast<double>(row.cycles);
      bound += row.macs > 0 ? row.rooflineCycles : 0.0;  // each compute-bound on the array
    }
  }
  EXPECT_NEAR(dw->groupRooflineRatio, cycles / bound, 1e-9);
}

TEST(MainJob, NonClassifiersGetPerOutputAgreementNotTopOne) {
  const MainJobReport r = runMainJob(subnet("resnet_basic_block"));
  EXPECT_FALSE(r.classScores);  // a [1, 64, 56, 56] feature map
  ASSERT_EQ(r.outputs.size(), 1U);
  EXPECT_GT(r.outputs[0].cosine, 0.99);
  EXPECT_GT(r.outputs[0].sqnrDb, 10.0);
  const auto json = nlohmann::json::parse(runReportJson(r));
  EXPECT_TRUE(json["accuracy"]["top1_agreement"].is_null());
  EXPECT_EQ(json["accuracy"]["outputs"].size(), 1U);
  EXPECT_EQ(runReportMarkdown(r).find("top class"), std::string::npos);
  // The digits model's probabilities are class scores.
  EXPECT_TRUE(runMainJob(digits(Engine::Functional, 1)).classScores);
}

TEST(MainJob, AHostFallbackNeverCostsLessThanTheNpu) {
  // The same layers on the NPU, then kept on the host (host_layers): end to end, the host's
  // modelled cycles and its NPU/host borders never undercut the NPU's simulated ones.
  const MainJobReport npu = runMainJob(subnet("resnet_basic_block"));
  EXPECT_EQ(npu.hostCycles, 0U);
  const auto dir = std::filesystem::temp_directory_path() / "npu_host_fallback_test";
  std::filesystem::create_directories(dir);
  for (const std::string layer : {"conv2", "add"}) {
    MainJobOptions options = subnet("resnet_basic_block");
    options.quantConfig = dir / (layer + ".yaml");
    writeTextFile(options.quantConfig, "host_layers: [" + layer + "]\n");
    const MainJobReport fallback = runMainJob(options);
    EXPECT_GT(fallback.hostCycles, 0U) << layer;
    EXPECT_GT(fallback.borderCycles, 0U) << layer;
    EXPECT_GE(fallback.totalCycles + fallback.hostCycles, npu.totalCycles) << layer;
    EXPECT_LT(fallback.inferencesPerSecond, npu.inferencesPerSecond) << layer;
  }
  std::filesystem::remove_all(dir);
}

TEST(MainJob, WithoutDataTheCalibrationInputsRun) {
  // A YAML graph without --calib calibrates on 8 synthetic inputs and, without --data, runs all
  // of them (no labels: no top-1, but the output agreement and the verdict).
  MainJobOptions options = digits(Engine::Functional, 0);
  options.model = std::filesystem::path(NPU_SOURCE_DIR) / "subnet_bench/graphs/gap_fc_head.yaml";
  const MainJobReport r = runMainJob(options);
  EXPECT_EQ(r.calibrationSamples, 8U);
  EXPECT_EQ(r.inputs, 8U);
  EXPECT_TRUE(r.pass()) << r.firstMismatch;
  EXPECT_FALSE(r.fp32Top1.has_value());
  EXPECT_GT(r.outputCosine, 0.99);
  EXPECT_NE(r.calibrationSource.find("synthetic"), std::string::npos);
}

template <typename F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MainJob, BadInputsNameTheFile) {
  MainJobOptions options = digits(Engine::Functional, 1);
  options.model = "/nonexistent/model.onnx";
  EXPECT_THROW(runMainJob(options), Error);
  options = digits(Engine::Functional, 1);
  options.labels = options.model;  // not a .npy file
  try {
    runMainJob(options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("model.onnx"), std::string::npos) << e.what();
  }
  // Float labels, and a calibration batch of no samples (npu run crashed on it).
  options = digits(Engine::Functional, 1);
  options.labels = bundledModelPath().parent_path() / "test_inputs.npy";
  EXPECT_EQ(errorOf([&] { runMainJob(options); }),
            options.labels.string() + ": labels must be integers, the file holds floats");
  const std::filesystem::path empty =
      std::filesystem::temp_directory_path() / "npu_main_job_empty_calib.npy";
  compiler::writeNpy(empty,
                     compiler::Tensor{{0, 1, 8, 8}, compiler::TensorData(std::vector<float>{})});
  options = digits(Engine::Functional, 1);
  options.calib = empty;
  EXPECT_EQ(errorOf([&] { runMainJob(options); }),
            empty.string() + ": a batch of 0 samples (shape [0, 1, 8, 8])");
  std::filesystem::remove(empty);
}

}  // namespace
}  // namespace npu::runtime
