// The token loop of `npu generate` (generate.h). The cache lives on the host between steps: each
// step's present K/V, read back from the simulated DDR, becomes the next step's past. The cache is
// right-aligned in the graph's fixed past length: the valid rows are the last ones, the rows
// before them are masked out by the attention mask, and position ids carry the true positions.
#include "npu/runtime/generate.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

#include "npu/compiler/driver/compile.h"
#include "npu/compiler/frontend/onnx_import.h"
#include "npu/compiler/interp/interpreter.h"
#include "npu/compiler/quant/accuracy_report.h"
#include "npu/compiler/quant/calibration_data.h"
#include "npu/compiler/quant/quant_config.h"
#include "npu/isa/npu_config.h"
#include "npu/runtime/host_cost.h"
#include "npu/runtime/run_model.h"
#include "npu/support/error.h"
#include "npu/support/interrupt.h"

namespace npu::runtime {

namespace fs = std::filesystem;
using compiler::TensorMap;
using golden::FloatTensor;

std::vector<KvPair> findKvPairs(const compiler::Graph& graph) {
  std::vector<KvPair> pairs;
  for (compiler::ValueId input : graph.inputs()) {
    const std::string& name = graph.value(input).name;
    const std::size_t at = name.find("past");
    if (at == std::string::npos) {
      continue;
    }
    std::string present = name;
    const std::size_t long_form = name.find("past_key_values");
    if (long_form != std::string::npos) {
      present.replace(long_form, std::string_view("past_key_values").size(), "present");
    } else {
      present.replace(at, 4, "present");
    }
    const bool isOutput =
        std::any_of(graph.outputs().begin(), graph.outputs().end(),
                    [&](compiler::ValueId v) { return graph.value(v).name == present; });
    if (!isOutput) {
      fail(ErrorKind::Usage,
           "{}: past input '{}' has no present output '{}' (past_key_values.N.* pairs with "
           "present.N.*; give the pairs with --kv-pairs PAST=PRESENT,...)",
           graph.source(), name, present);
    }
    pairs.push_back({name, present});
  }
  if (pairs.empty()) {
    fail(ErrorKind::Usage,
         "{}: no past K/V input (a decode step takes past_key_values.N.key/value and returns "
         "present.N.key/value; give other names with --kv-pairs PAST=PRESENT,...)",
         graph.source());
  }
  return pairs;
}

namespace {

constexpr std::string_view kInputIds = "input_ids";
constexpr std::string_view kAttentionMask = "attention_mask";
constexpr std::string_view kPositionIds = "position_ids";
constexpr std::string_view kLogits = "logits";
/// Calibration samples drawn from the fp32 model's own generation, at most.
constexpr std::size_t kMaxSelfCalibration = 32;

/// One cache tensor's layout: its shape in the graph and the axis along which tokens lie.
struct CacheSlot {
  KvPair names;
  std::vector<std::int64_t> shape;
  std::size_t axis = 0;
};

/// What the loop needs to know of a decode-step or prefill graph.
struct DecoderGraph {
  explicit DecoderGraph(compiler::Graph imported) : graph(std::move(imported)) {}

  compiler::Graph graph;
  bool hasMask = false;
  bool hasPositions = false;
  std::string logits;
  /// Tokens the graph takes at once: 1 for a decode step, T for a prefill.
  std::int64_t tokens = 1;
  /// Decode: the past length P; prefill: T.
  std::int64_t cacheLength = 0;
  /// Decode: per pair (past shape); prefill: the present outputs of the decode's pairs.
  std::vector<CacheSlot> cache;
};

const compiler::Value& namedInput(const compiler::Graph& graph, std::string_view name) {
  for (compiler::ValueId v : graph.inputs()) {
    if (graph.value(v).name == name) {
      return graph.value(v);
    }
  }
  fail(ErrorKind::Usage, "{}: no graph input '{}'", graph.source(), name);
}

bool hasInput(const compiler::Graph& graph, std::string_view name) {
  return std::any_of(graph.inputs().begin(), graph.inputs().end(),
                     [&](compiler::ValueId v) { return graph.value(v).name == name; });
}

const compiler::Value& namedOutput(const compiler::Graph& graph, std::string_view name) {
  for (compiler::ValueId v : graph.outputs()) {
    if (graph.value(v).name == name) {
      return graph.value(v);
    }
  }
  fail(ErrorKind::Usage, "{}: no graph output '{}'", graph.source(), name);
}

/// The graph's logits output: "logits", else its first output.
std::string logitsName(const compiler::Graph& graph) {
  for (compiler::ValueId v : graph.outputs()) {
    if (graph.value(v).name == kLogits) {
      return std::string(kLogits);
    }
  }
  return graph.value(graph.outputs().front()).name;
}

/// Checks the token inputs: input_ids [1, tokens] and, when present, attention_mask [1, mask]
/// and position_ids [1, tokens]; any other input must be a cache input.
void checkTokenInputs(const DecoderGraph& g, std::int64_t maskLength,
                      const std::vector<KvPair>& pairs) {
  const compiler::Graph& graph = g.graph;
  const auto expect = [&](std::string_view name, std::int64_t length) {
    const compiler::Value& v = namedInput(graph, name);
    if (v.shape != std::vector<std::int64_t>{1, length}) {
      fail(ErrorKind::Usage, "{}: input '{}' has shape {}; the loop feeds [1, {}]", graph.source(),
           name, compiler::formatShape(v.shape), length);
    }
  };
  expect(kInputIds, g.tokens);
  if (g.hasMask) {
    expect(kAttentionMask, maskLength);
  }
  if (g.hasPositions) {
    expect(kPositionIds, g.tokens);
  }
  for (compiler::ValueId v : graph.inputs()) {
    const std::string& name = graph.value(v).name;
    const bool known =
        name == kInputIds || name == kAttentionMask || name == kPositionIds ||
        std::any_of(pairs.begin(), pairs.end(), [&](const KvPair& p) { return p.past == name; });
    if (!known) {
      fail(ErrorKind::Usage,
           "{}: input '{}' is none of input_ids, attention_mask, position_ids or a past K/V "
           "cache",
           graph.source(), name);
    }
  }
}

/// The token axis of a past/present pair: the one axis where present is one longer.
std::size_t tokenAxis(const compiler::Graph& graph, const KvPair& pair) {
  const auto& past = namedInput(graph, pair.past).shape;
  const auto& present = namedOutput(graph, pair.present).shape;
  std::optional<std::size_t> axis;
  bool others = past.size() == present.size();
  for (std::size_t a = 0; others && a < past.size(); ++a) {
    if (present[a] == past[a] + 1 && !axis) {
      axis = a;
    } else if (present[a] != past[a]) {
      others = false;
    }
  }
  if (!others || !axis) {
    fail(ErrorKind::Usage,
         "{}: present '{}' {} is not past '{}' {} with one more token along one axis",
         graph.source(), pair.present, compiler::formatShape(present), pair.past,
         compiler::formatShape(past));
  }
  return *axis;
}

/// Imports the decode step, binding a dynamic past axis to maxContext - 1 and the token axes to
/// one token.
DecoderGraph importDecode(const GenerateOptions& options, std::size_t maxContext) {
  const auto isPast = [&](const std::string& name) {
    if (options.kvPairs.empty()) {
      return name.find("past") != std::string::npos;
    }
    return std::any_of(options.kvPairs.begin(), options.kvPairs.end(),
                       [&](const KvPair& p) { return p.past == name; });
  };
  const auto context = static_cast<std::int64_t>(maxContext);
  const compiler::DimensionBinder bind = [&](const std::string& input, int axis,
                                             const std::string&) -> std::optional<std::int64_t> {
    if (axis == 0) {
      return std::nullopt;
    }
    if (input == kInputIds || input == kPositionIds) {
      return 1;
    }
    if (input == kAttentionMask) {
      return context;
    }
    if (isPast(input)) {
      return context - 1;
    }
    return std::nullopt;
  };
  DecoderGraph g(compiler::importOnnx(options.decode, bind));
  const std::vector<KvPair> pairs =
      options.kvPairs.empty() ? findKvPairs(g.graph) : options.kvPairs;
  g.hasMask = hasInput(g.graph, kAttentionMask);
  g.hasPositions = hasInput(g.graph, kPositionIds);
  g.logits = logitsName(g.graph);
  if (!g.hasMask) {
    // The loop's cache holds empty rows before the prompt fills it; only a mask hides them.
    fail(ErrorKind::Usage,
         "{}: the decode step has no input 'attention_mask'; the loop needs one to mask the cache "
         "rows not yet filled (export the step with its attention mask)",
         g.graph.source());
  }
  for (const KvPair& pair : pairs) {
    CacheSlot slot{pair, namedInput(g.graph, pair.past).shape, tokenAxis(g.graph, pair)};
    const std::int64_t length = slot.shape[slot.axis];
    if (!g.cache.empty() && length != g.cacheLength) {
      fail(ErrorKind::Usage, "{}: past '{}' holds {} tokens, '{}' {}", g.graph.source(), pair.past,
           length, g.cache.front().names.past, g.cacheLength);
    }
    g.cacheLength = length;
    g.cache.push_back(std::move(slot));
  }
  checkTokenInputs(g, g.cacheLength + 1, pairs);
  return g;
}

/// Imports the prefill graph, binding dynamic token axes to the prompt's length; its present
/// outputs must be the decode's with the prompt's tokens.
DecoderGraph importPrefill(const GenerateOptions& options, const DecoderGraph& decode) {
  const auto promptLength = static_cast<std::int64_t>(options.prompt.size());
  const compiler::DimensionBinder bind = [&](const std::string& input, int axis,
                                             const std::string&) -> std::optional<std::int64_t> {
    const bool tokens = input == kInputIds || input == kPositionIds || input == kAttentionMask;
    return tokens && axis == 1 ? std::optional<std::int64_t>(promptLength) : std::nullopt;
  };
  DecoderGraph g(compiler::importOnnx(options.prefill, bind));
  g.hasMask = hasInput(g.graph, kAttentionMask);
  g.hasPositions = hasInput(g.graph, kPositionIds);
  g.logits = logitsName(g.graph);
  const compiler::Value& ids = namedInput(g.graph, kInputIds);
  g.tokens = ids.shape.size() == 2 ? ids.shape[1] : 0;
  g.cacheLength = g.tokens;
  checkTokenInputs(g, g.tokens, {});
  if (promptLength > g.tokens || (promptLength < g.tokens && !g.hasMask)) {
    fail(ErrorKind::Usage, "{}: the prefill takes {} tokens{}; the prompt has {}", g.graph.source(),
         g.tokens, g.hasMask ? "" : " and no attention_mask to pad with", promptLength);
  }
  for (const CacheSlot& slot : decode.cache) {
    std::vector<std::int64_t> shape = slot.shape;
    shape[slot.axis] = g.tokens;
    const compiler::Value& present = namedOutput(g.graph, slot.names.present);
    if (present.shape != shape) {
      fail(ErrorKind::Usage, "{}: present '{}' has shape {}; the decode step's cache needs {}",
           g.graph.source(), slot.names.present, compiler::formatShape(present.shape),
           compiler::formatShape(shape));
    }
    g.cache.push_back({slot.names, shape, slot.axis});
  }
  return g;
}

FloatTensor filled(std::vector<std::int64_t> shape, float value) {
  FloatTensor t;
  t.data.assign(static_cast<std::size_t>(compiler::elementCount(shape)), value);
  t.shape = std::move(shape);
  return t;
}

/// The rows [from, from + count) of `source` along `axis` copied to rows [to, to + count) of
/// `target` (same shape but along the axis).
void copyRows(const FloatTensor& source, std::int64_t from, FloatTensor& target, std::int64_t to,
              std::int64_t count, std::size_t axis) {
  const auto split = source.shape.begin() + static_cast<std::ptrdiff_t>(axis);
  const auto outer =
      compiler::elementCount(std::span<const std::int64_t>(source.shape.begin(), split));
  const auto inner =
      compiler::elementCount(std::span<const std::int64_t>(split + 1, source.shape.end()));
  for (std::int64_t o = 0; o < outer; ++o) {
    const auto src = (o * source.shape[axis] + from) * inner;
    const auto dst = (o * target.shape[axis] + to) * inner;
    std::copy_n(source.data.begin() + src, count * inner, target.data.begin() + dst);
  }
}

/// The host's copy of the cache: one tensor per pair, the valid tokens right-aligned.
using Cache = std::vector<FloatTensor>;

Cache emptyCache(const DecoderGraph& decode) {
  Cache cache;
  for (const CacheSlot& slot : decode.cache) {
    cache.push_back(filled(slot.shape, 0.0F));
  }
  return cache;
}

/// The next step's past: present without its oldest row.
Cache advance(const DecoderGraph& decode, const TensorMap& outputs) {
  Cache cache;
  for (const CacheSlot& slot : decode.cache) {
    FloatTensor past = filled(slot.shape, 0.0F);
    copyRows(outputs.at(slot.names.present), 1, past, 0, decode.cacheLength, slot.axis);
    cache.push_back(std::move(past));
  }
  return cache;
}

/// The decode step's past after a prefill of `valid` tokens, right-aligned.
Cache cacheFromPrefill(const DecoderGraph& decode, const DecoderGraph& prefill,
                       const TensorMap& outputs, std::int64_t valid) {
  Cache cache = emptyCache(decode);
  for (std::size_t i = 0; i < decode.cache.size(); ++i) {
    copyRows(outputs.at(prefill.cache[i].names.present), prefill.tokens - valid, cache[i],
             decode.cacheLength - valid, valid, decode.cache[i].axis);
  }
  return cache;
}

/// The decode step's inputs for `token` at `position`, `position` tokens in the cache.
TensorMap decodeInputs(const DecoderGraph& decode, std::int64_t token, std::int64_t position,
                       const Cache& cache) {
  TensorMap inputs;
  inputs[std::string(kInputIds)] = filled({1, 1}, static_cast<float>(token));
  if (decode.hasMask) {
    FloatTensor mask = filled({1, decode.cacheLength + 1}, 0.0F);
    std::fill(mask.data.end() - position - 1, mask.data.end(), 1.0F);
    inputs[std::string(kAttentionMask)] = std::move(mask);
  }
  if (decode.hasPositions) {
    inputs[std::string(kPositionIds)] = filled({1, 1}, static_cast<float>(position));
  }
  for (std::size_t i = 0; i < cache.size(); ++i) {
    inputs[decode.cache[i].names.past] = cache[i];
  }
  return inputs;
}

/// The prefill's inputs: the prompt left-padded to the graph's tokens (pad id 0, mask 0,
/// position ids as Hugging Face's generate computes them: 1 at padding).
TensorMap prefillInputs(const DecoderGraph& prefill, const std::vector<std::int64_t>& prompt) {
  const auto pad = prefill.tokens - static_cast<std::int64_t>(prompt.size());
  FloatTensor ids = filled({1, prefill.tokens}, 0.0F);
  FloatTensor mask = filled({1, prefill.tokens}, 1.0F);
  FloatTensor positions = filled({1, prefill.tokens}, 1.0F);
  for (std::int64_t t = 0; t < prefill.tokens; ++t) {
    if (t < pad) {
      mask.data[t] = 0.0F;
    } else {
      ids.data[t] = static_cast<float>(prompt[static_cast<std::size_t>(t - pad)]);
      positions.data[t] = static_cast<float>(t - pad);
    }
  }
  TensorMap inputs;
  inputs[std::string(kInputIds)] = std::move(ids);
  if (prefill.hasMask) {
    inputs[std::string(kAttentionMask)] = std::move(mask);
  }
  if (prefill.hasPositions) {
    inputs[std::string(kPositionIds)] = std::move(positions);
  }
  return inputs;
}

/// The logits of the graph's last token.
std::vector<float> lastLogits(const DecoderGraph& g, const TensorMap& outputs) {
  const FloatTensor& logits = outputs.at(g.logits);
  const auto vocab = static_cast<std::size_t>(logits.shape.back());
  return {logits.data.end() - static_cast<std::ptrdiff_t>(vocab), logits.data.end()};
}

std::int64_t argmax(const std::vector<float>& logits) {
  return std::max_element(logits.begin(), logits.end()) - logits.begin();
}

/// Picks the next token from `logits`.
class Sampler {
 public:
  Sampler(Sampling sampling, std::size_t topK, std::uint64_t seed)
      : m_sampling(sampling), m_topK(topK), m_random(seed) {}

  std::int64_t next(const std::vector<float>& logits) {
    if (m_sampling == Sampling::Greedy) {
      return argmax(logits);
    }
    std::vector<std::int64_t> order(logits.size());
    std::iota(order.begin(), order.end(), 0);
    const std::size_t k = std::min(m_topK, logits.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                      [&](std::int64_t a, std::int64_t b) {
                        const auto ua = static_cast<std::size_t>(a);
                        const auto ub = static_cast<std::size_t>(b);
                        return logits[ua] > logits[ub] || (logits[ua] == logits[ub] && a < b);
                      });
    const double top = logits[static_cast<std::size_t>(order.front())];
    std::vector<double> weights(k);
    for (std::size_t i = 0; i < k; ++i) {
      weights[i] = std::exp(static_cast<double>(logits[static_cast<std::size_t>(order[i])]) - top);
    }
    // A uniform draw in [0, 1) from the generator's top 53 bits: the same on every platform.
    const double draw = static_cast<double>(m_random() >> 11U) * 0x1.0p-53 *
                        std::accumulate(weights.begin(), weights.end(), 0.0);
    double sum = 0.0;
    for (std::size_t i = 0; i < k; ++i) {
      sum += weights[i];
      if (draw < sum) {
        return order[i];
      }
    }
    return order[k - 1];
  }

 private:
  Sampling m_sampling;
  std::size_t m_topK;
  std::mt19937_64 m_random;
};

/// The decode-step inputs of the fp32 model's own greedy generation from the prompt, over the
/// positions the loop will feed, at most kMaxSelfCalibration of them evenly spaced.
std::vector<TensorMap> selfCalibration(const DecoderGraph& decode,
                                       const std::vector<std::int64_t>& prompt, std::size_t steps) {
  const compiler::Interpreter fp32(decode.graph);
  std::vector<TensorMap> all;
  std::vector<std::int64_t> tokens = prompt;
  Cache cache = emptyCache(decode);
  for (std::size_t position = 0; position < steps; ++position) {
    TensorMap inputs =
        decodeInputs(decode, tokens[position], static_cast<std::int64_t>(position), cache);
    const TensorMap outputs = fp32.run(inputs);
    if (position + 1 >= tokens.size()) {
      tokens.push_back(argmax(lastLogits(decode, outputs)));
    }
    cache = advance(decode, outputs);
    all.push_back(std::move(inputs));
  }
  if (all.size() <= kMaxSelfCalibration) {
    return all;
  }
  std::vector<TensorMap> picked;
  for (std::size_t i = 0; i < kMaxSelfCalibration; ++i) {
    picked.push_back(std::move(all[i * (all.size() - 1) / (kMaxSelfCalibration - 1)]));
  }
  return picked;
}

compiler::CompiledModel compileDecoder(compiler::Graph graph, const GenerateOptions& options,
                                       std::vector<TensorMap> samples) {
  compiler::CompileOptions compile;
  compile.hw = isa::loadNpuConfig(options.hw);
  if (!options.quantConfig.empty()) {
    compile.quant = compiler::loadQuantConfig(options.quantConfig);
  }
  compile.calibrationSamples = [&](const compiler::Graph& optimized) {
    return samples.empty() ? compiler::loadCalibrationSet(options.calib, optimized)
                           : std::move(samples);
  };
  return compiler::compileModel(std::move(graph), compile);
}

/// The modelled host cycles of one run of the model (its host segments and borders).
std::uint64_t hostCycles(const compiler::CompiledModel& compiled) {
  const compiler::QuantizedModel& model = compiled.model;
  std::uint64_t cycles = 0;
  for (std::size_t s = 0; s < model.partition.segments.size(); ++s) {
    const compiler::Segment& segment = model.partition.segments[s];
    if (segment.device != compiler::Device::Host) {
      continue;
    }
    for (std::size_t n : segment.nodes) {
      cycles += hostNodeCycles(model.graph, model.graph.nodes()[n], compiled.hw);
    }
    cycles += borderCycles(model.graph, model.partition, s, compiled.hw);
  }
  return cycles;
}

std::uint64_t weightBytes(const compiler::CompiledModel& compiled) {
  std::uint64_t bytes = 0;
  for (const compiler::CompiledProgram& program : compiled.programs) {
    for (const isa::Region& region : program.program.regions) {
      if (region.kind == isa::RegionKind::Weights) {
        bytes += region.size;
      }
    }
  }
  return bytes;
}

/// A compiled graph of the loop with everything each run needs.
struct LoopModel {
  const DecoderGraph* io = nullptr;
  compiler::CompiledModel compiled;
  std::optional<ModelGolden> golden;
  std::optional<compiler::Interpreter> fp32;
  std::uint64_t hostCycles = 0;
  std::uint64_t weightBytes = 0;

  LoopModel(const DecoderGraph& graph, compiler::CompiledModel model)
      : io(&graph), compiled(std::move(model)) {
    golden.emplace(compiled);
    fp32.emplace(compiled.model.graph);
    hostCycles = runtime::hostCycles(compiled);
    weightBytes = runtime::weightBytes(compiled);
  }
  // golden and fp32 point into `compiled`: the model stays where it was built.
  LoopModel(const LoopModel&) = delete;
  LoopModel& operator=(const LoopModel&) = delete;
};

/// Runs `model` once on the engine (verified) and the fp32 reference on its own inputs.
struct StepRun {
  GenerateStep step;
  TensorMap npuOutputs;
  TensorMap fp32Outputs;
};

StepRun runStep(const LoopModel& model, const TensorMap& npuInputs, const TensorMap& fp32Inputs,
                const sim::SimOptions& sim) {
  StepRun run;
  InferenceRun inference = runInference(model.compiled, npuInputs, sim, &*model.golden);
  run.fp32Outputs = model.fp32->run(fp32Inputs);
  GenerateStep& step = run.step;
  for (const SegmentRun& segment : inference.segments) {
    step.npuCycles += segment.stats.totalCycles;
    step.ddrBytesRead += segment.stats.ddrBytesRead;
    step.ddrBytesWritten += segment.stats.ddrBytesWritten;
    if (segment.mismatch && step.firstMismatch.empty()) {
      step.firstMismatch = segment.mismatch->message;
    }
  }
  step.bitExact = inference.bitExact();
  step.hostCycles = model.hostCycles;
  const std::vector<float> npu = lastLogits(*model.io, inference.outputs);
  const std::vector<float> fp32 = lastLogits(*model.io, run.fp32Outputs);
  compiler::AgreementAccumulator agreement;
  agreement.add(fp32, npu);
  step.logitCosine = agreement.result().cosine;
  step.fp32Agrees = argmax(npu) == argmax(fp32);
  run.npuOutputs = std::move(inference.outputs);
  return run;
}

/// The int8 bytes of the valid cache a decode step at `position` reads.
std::uint64_t validCacheBytes(const DecoderGraph& decode, std::size_t position) {
  std::uint64_t bytes = 0;
  for (const CacheSlot& slot : decode.cache) {
    bytes +=
        static_cast<std::uint64_t>(compiler::elementCount(slot.shape) / slot.shape[slot.axis]) *
        position;
  }
  return bytes;
}

std::size_t resolveContext(const GenerateOptions& options) {
  return options.maxContext > 0 ? options.maxContext : options.prompt.size() + options.maxNewTokens;
}

void checkRequest(const GenerateOptions& options, const DecoderGraph& decode, std::size_t asked) {
  const auto context = static_cast<std::size_t>(decode.cacheLength + 1);
  if (options.maxContext > 0 && context != asked) {
    fail(ErrorKind::Usage,
         "{}: the decode step's past holds {} tokens (a maximum context of {}); --max-context {} "
         "needs a graph exported at past length {}, or with a dynamic past axis",
         options.decode.string(), decode.cacheLength, context, asked, asked - 1);
  }
  if (options.prompt.size() + options.maxNewTokens > context) {
    fail(ErrorKind::Usage,
         "{}: the prompt's {} tokens and {} new tokens need a context of {}; the decode step holds "
         "{}",
         options.decode.string(), options.prompt.size(), options.maxNewTokens,
         options.prompt.size() + options.maxNewTokens, context);
  }
}

/// Runs the whole loop once the models are compiled.
class TokenLoop {
 public:
  TokenLoop(const GenerateOptions& options, const LoopModel& decode, const LoopModel* prefill,
            GenerateReport& report)
      : m_options(options),
        m_decode(decode),
        m_prefill(prefill),
        m_report(report),
        m_sampler(options.sampling, options.topK, options.seed),
        m_sim(simOptionsFor(options.engine)),
        m_npuCache(emptyCache(*decode.io)),
        m_fp32Cache(m_npuCache),
        m_total((prefill != nullptr ? 1 : options.prompt.size()) + options.maxNewTokens - 1) {}

  void run() {
    const InterruptibleScope interruptible;
    m_tokens = m_options.prompt;
    std::size_t position = 0;
    if (m_prefill != nullptr) {
      runPrefill();
      position = m_options.prompt.size();
    }
    for (; m_report.generated.size() < m_options.maxNewTokens; ++position) {
      runDecode(position);
    }
  }

  /// The inputs of the first decode-graph run that produced a token (for --rtl).
  [[nodiscard]] const TensorMap& firstDecodeInputs() const { return m_firstDecodeInputs; }

 private:
  void runPrefill() {
    const TensorMap inputs = prefillInputs(*m_prefill->io, m_options.prompt);
    StepRun run = runStep(*m_prefill, inputs, inputs, m_sim);
    const auto valid = static_cast<std::int64_t>(m_options.prompt.size());
    m_npuCache = cacheFromPrefill(*m_decode.io, *m_prefill->io, run.npuOutputs, valid);
    m_fp32Cache = cacheFromPrefill(*m_decode.io, *m_prefill->io, run.fp32Outputs, valid);
    run.step.kind = GenerateStep::Kind::Prefill;
    run.step.position = m_options.prompt.size() - 1;
    run.step.rooflineBytes = m_prefill->weightBytes;
    finish(std::move(run), m_prefill->io);
  }

  void runDecode(std::size_t position) {
    const std::int64_t token = m_tokens[position];
    const auto at = static_cast<std::int64_t>(position);
    const TensorMap npuInputs = decodeInputs(*m_decode.io, token, at, m_npuCache);
    StepRun run =
        runStep(m_decode, npuInputs, decodeInputs(*m_decode.io, token, at, m_fp32Cache), m_sim);
    m_npuCache = advance(*m_decode.io, run.npuOutputs);
    m_fp32Cache = advance(*m_decode.io, run.fp32Outputs);
    const bool prompt = position + 1 < m_options.prompt.size();
    const bool lastPrompt = position + 1 == m_options.prompt.size();
    run.step.kind = prompt || lastPrompt ? GenerateStep::Kind::Prompt : GenerateStep::Kind::Decode;
    run.step.position = position;
    run.step.token = token;
    run.step.rooflineBytes = m_decode.weightBytes + validCacheBytes(*m_decode.io, position);
    if (!prompt && m_firstDecodeInputs.empty()) {
      m_firstDecodeInputs = npuInputs;
    }
    finish(std::move(run), prompt ? nullptr : m_decode.io);
  }

  /// Records the step; with `sampled`, the graph that ran, its logits choose the next token.
  void finish(StepRun run, const DecoderGraph* sampled) {
    if (sampled != nullptr) {
      run.step.next = m_sampler.next(lastLogits(*sampled, run.npuOutputs));
      m_tokens.push_back(run.step.next);
      m_report.generated.push_back(run.step.next);
    }
    if (run.step.kind != GenerateStep::Kind::Decode) {
      m_report.timeToFirstTokenCycles += run.step.npuCycles + run.step.hostCycles;
    }
    m_report.steps.push_back(std::move(run.step));
    if (m_options.progress) {
      m_options.progress(m_report.steps.size(), m_total);
    }
  }

  const GenerateOptions& m_options;
  const LoopModel& m_decode;
  const LoopModel* m_prefill;
  GenerateReport& m_report;
  Sampler m_sampler;
  sim::SimOptions m_sim;
  Cache m_npuCache;
  Cache m_fp32Cache;
  std::vector<std::int64_t> m_tokens;
  std::size_t m_total;
  TensorMap m_firstDecodeInputs;
};

void describe(GenerateReport& report, const GenerateOptions& options, const LoopModel& decode) {
  const compiler::CompiledModel& compiled = decode.compiled;
  report.provenance = reportProvenance(isa::toYaml(compiled.hw));
  report.decodeModel = options.decode.string();
  report.prefillModel = options.prefill.string();
  report.hardware = compiled.hw.name;
  report.mode = std::string(engineName(options.engine));
  report.clockMhz = compiled.hw.clockMhz;
  report.ddrBytesPerCycle = compiled.hw.ddrBytesPerCycle;
  report.sampling = options.sampling == Sampling::Greedy
                        ? std::string("greedy")
                        : fmt::format("top-k (k = {}, seed {})", options.topK, options.seed);
  report.seed = options.seed;
  report.maxContext = static_cast<std::size_t>(decode.io->cacheLength + 1);
  for (const CacheSlot& slot : decode.io->cache) {
    report.kvPairs.push_back(slot.names);
  }
  for (const compiler::Segment& segment : compiled.model.partition.segments) {
    const bool npu = segment.device == compiler::Device::Npu;
    (npu ? report.npuSegments : report.hostSegments) += 1;
    (npu ? report.npuOps : report.hostOps) += static_cast<std::int64_t>(segment.nodes.size());
  }
  report.weightBytes = decode.weightBytes;
  report.prompt = options.prompt;
}

}  // namespace

GenerateReport runGenerate(const GenerateOptions& options) {
  if (options.prompt.empty()) {
    fail(ErrorKind::Usage, "the prompt is empty: give at least one token id");
  }
  if (options.maxNewTokens == 0) {
    fail(ErrorKind::Usage, "--max-new-tokens must be at least 1");
  }
  const std::size_t asked = resolveContext(options);
  const DecoderGraph decodeGraph = importDecode(options, asked);
  checkRequest(options, decodeGraph, asked);
  std::optional<DecoderGraph> prefillGraph;
  if (!options.prefill.empty()) {
    prefillGraph.emplace(importPrefill(options, decodeGraph));
  }
  GenerateReport report;
  std::vector<TensorMap> samples;
  if (options.calib.empty()) {
    const bool own = options.calibrationPrompt.empty();
    const std::size_t steps = options.prompt.size() + options.maxNewTokens - 1;
    samples = selfCalibration(decodeGraph, own ? options.prompt : options.calibrationPrompt, steps);
    report.calibrationSource = fmt::format(
        "the decode-step inputs of the fp32 model's greedy generation from {} ({} of {} steps{})",
        own ? std::string("the prompt")
            : fmt::format("a calibration prompt of {} tokens", options.calibrationPrompt.size()),
        samples.size(), steps, own ? "; give --calib or --calib-prompt for other data" : "");
  } else {
    report.calibrationSource = options.calib.string();
  }
  const LoopModel decode(decodeGraph, compileDecoder(decodeGraph.graph, options, samples));
  std::optional<LoopModel> prefill;
  if (prefillGraph) {
    const TensorMap prompt = prefillInputs(*prefillGraph, options.prompt);
    prefill.emplace(*prefillGraph, compileDecoder(prefillGraph->graph, options, {prompt}));
  }
  describe(report, options, decode);
  const auto start = std::chrono::steady_clock::now();
  TokenLoop loop(options, decode, prefill ? &*prefill : nullptr, report);
  loop.run();
  report.loopSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (options.rtl) {
    report.rtl = cosimulateModel(decode.compiled, loop.firstDecodeInputs());
  }
  return report;
}

std::vector<const GenerateStep*> GenerateReport::decodeSteps() const {
  std::vector<const GenerateStep*> decode;
  for (const GenerateStep& step : steps) {
    if (step.kind == GenerateStep::Kind::Decode) {
      decode.push_back(&step);
    }
  }
  return decode;
}

double GenerateReport::meanDecodeCycles() const {
  const std::vector<const GenerateStep*> decode = decodeSteps();
  if (decode.empty()) {
    return 0.0;
  }
  double sum = 0.0;
  for (const GenerateStep* step : decode) {
    sum += static_cast<double>(step->npuCycles + step->hostCycles);
  }
  return sum / static_cast<double>(decode.size());
}

double GenerateReport::tokensPerSecond() const {
  const double cycles = meanDecodeCycles();
  return cycles > 0.0 ? clockMhz * 1e6 / cycles : 0.0;
}

bool GenerateReport::bitExact() const {
  return std::all_of(steps.begin(), steps.end(), [](const GenerateStep& s) { return s.bitExact; });
}

bool GenerateReport::pass() const {
  return bitExact() &&
         std::all_of(rtl.begin(), rtl.end(), [](const SegmentCosim& s) { return s.matches(); });
}

}  // namespace npu::runtime
