// `npu generate`: a decoder-only language model's token loop (docs/llm.md). The decode-step graph
// (and optionally a prefill graph) is compiled once for a maximum context; the prompt runs through
// prefill, or through the decode step one token at a time, then each decode step runs on the
// simulator, verified byte for byte against golden, and its logits are sampled for the next
// token. The fp32 model runs beside it, teacher-forced on the same tokens, for the per-step logit
// cosine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "npu/compiler/ir/graph.h"
#include "npu/runtime/engine.h"
#include "npu/runtime/model_cosim.h"
#include "npu/support/provenance.h"

namespace npu::runtime {

enum class Sampling : std::uint8_t {
  Greedy,  ///< the highest logit (the lowest id among equal ones)
  TopK,    ///< softmax over the k highest logits, drawn with the seeded generator
};

/// A past-K/V graph input and the present output that continues it one step later.
struct KvPair {
  std::string past;
  std::string present;
};

struct GenerateOptions {
  std::filesystem::path decode;
  /// Empty: the prompt runs through the decode step one token at a time.
  std::filesystem::path prefill;
  std::filesystem::path hw;
  std::vector<std::int64_t> prompt;
  std::size_t maxNewTokens = 16;
  /// Tokens the cache holds (prompt and generated together): 0 takes the decode graph's own (its
  /// fixed past length + 1), or for a graph with a dynamic past axis the prompt plus
  /// maxNewTokens.
  std::size_t maxContext = 0;
  Sampling sampling = Sampling::Greedy;
  std::size_t topK = 40;
  std::uint64_t seed = 0;
  /// Decode-step calibration data (compiler::loadCalibrationSet layouts); empty: the decode-step
  /// inputs of the fp32 model's own greedy generation from the prompt (GenerateReport says which).
  std::filesystem::path calib;
  /// Without `calib`: the fp32 generation that calibrates starts from these token ids instead of
  /// the prompt (`--calib-prompt`), so the data evaluated is not the data calibrated on. The
  /// prefill is calibrated on the prompt either way.
  std::vector<std::int64_t> calibrationPrompt;
  std::filesystem::path quantConfig;
  /// Explicit cache pairs (`--kv-pairs`); empty: paired by name (findKvPairs).
  std::vector<KvPair> kvPairs;
  /// Functional or Timed.
  Engine engine = Engine::Timed;
  /// Co-simulate the first decode step on the Verilator RTL.
  bool rtl = false;
  /// Called after each step (done, total), one call at a time.
  std::function<void(std::size_t, std::size_t)> progress;
};

/// The cache pairs of a decode-step graph: each input whose name holds "past" with the output
/// named the same with "past_key_values" (or else "past") replaced by "present". Throws naming
/// the graph and input when a past input has no present output, and when no pair is found.
std::vector<KvPair> findKvPairs(const compiler::Graph& graph);

/// One run of a graph in the loop: a prompt step (decode graph fed a prompt token), the prefill,
/// or a decode step that produced a new token.
struct GenerateStep {
  enum class Kind : std::uint8_t { Prompt, Prefill, Decode };
  Kind kind = Kind::Decode;
  /// The position of the (last) token fed; the tokens in the cache before it.
  std::size_t position = 0;
  /// The token fed (-1 for the prefill, which takes the whole prompt).
  std::int64_t token = -1;
  /// The token the step's logits chose (sampled for a decode step, or the next prompt token's
  /// place for a prompt step: -1 there).
  std::int64_t next = -1;
  std::uint64_t npuCycles = 0;
  /// Modelled (docs/timing.md, "Host segments").
  std::uint64_t hostCycles = 0;
  std::uint64_t ddrBytesRead = 0;
  std::uint64_t ddrBytesWritten = 0;
  /// Bytes the step must read at least: the NPU programs' weights and the valid cache (int8).
  std::uint64_t rooflineBytes = 0;
  /// Logits (the last position's), NPU run vs the fp32 model on the same tokens.
  double logitCosine = 0.0;
  /// The fp32 model's highest logit is the NPU run's.
  bool fp32Agrees = false;
  /// Every NPU segment's final DDR equals golden's.
  bool bitExact = false;
  std::string firstMismatch;
};

struct GenerateReport {
  Provenance provenance;
  std::string decodeModel;
  std::string prefillModel;
  std::string hardware;
  std::string mode;
  double clockMhz = 0.0;
  double ddrBytesPerCycle = 0.0;
  std::string sampling;
  std::uint64_t seed = 0;
  std::size_t maxContext = 0;
  std::string calibrationSource;
  std::vector<KvPair> kvPairs;
  /// The decode graph's partition: NPU and host segments and ops.
  std::int64_t npuSegments = 0;
  std::int64_t hostSegments = 0;
  std::int64_t npuOps = 0;
  std::int64_t hostOps = 0;
  /// The NPU programs' weight bytes (what every decode step reads once).
  std::uint64_t weightBytes = 0;
  std::vector<std::int64_t> prompt;
  std::vector<std::int64_t> generated;
  std::vector<GenerateStep> steps;
  /// Cycles until the first generated token's logits: the prefill, or every prompt step.
  std::uint64_t timeToFirstTokenCycles = 0;
  /// RTL co-simulation of the first decode step (with GenerateOptions::rtl).
  std::vector<SegmentCosim> rtl;
  /// Wall-clock seconds of the loop (simulation, golden and fp32 reference included).
  double loopSeconds = 0.0;

  /// The decode steps only.
  [[nodiscard]] std::vector<const GenerateStep*> decodeSteps() const;
  /// NPU and host cycles of a decode step, averaged over the decode steps.
  [[nodiscard]] double meanDecodeCycles() const;
  /// Tokens per second at the config's clock, from meanDecodeCycles.
  [[nodiscard]] double tokensPerSecond() const;
  [[nodiscard]] bool bitExact() const;
  /// Bit-exact everywhere and the RTL (when asked) equal to SystemC and golden.
  [[nodiscard]] bool pass() const;
};

/// Runs the loop. Throws npu::Error naming the file and input for graphs that do not fit the
/// decoder form, a prompt or generation longer than the context, a simulator fault.
GenerateReport runGenerate(const GenerateOptions& options);

std::string generateReportMarkdown(const GenerateReport& report);
std::string generateReportJson(const GenerateReport& report);
std::string generateReportHtml(const GenerateReport& report);
/// The console summary: prompt, tokens, cycles, tokens/s, verification.
std::string formatGenerateSummary(const GenerateReport& report);

inline constexpr int kGenerateReportSchemaVersion = 1;

}  // namespace npu::runtime
