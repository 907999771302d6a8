// The opcheck engine: compile a one-op case, run it, verify the whole DDR against golden; the
// injected debug bugs; and greedy shrinking of a failing case.
#include "npu/subnet_bench/op_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <limits>

#include "npu/compiler/codegen/codegen.h"
#include "npu/rtl/rtl_sim.h"
#include "npu/runtime/verify.h"
#include "npu/simulator/simulate.h"
#include "npu/subnet_bench/rng.h"
#include "npu/support/error.h"

namespace npu::bench {
namespace {

constexpr std::array<std::string_view, 5> kBugNames{"none", "conv-bias-bit", "conv-clip-hi",
                                                    "eltwise-zero-point", "expected-off-by-one"};

/// Data seeds tried per shrinking candidate before it is rejected.
constexpr int kSeedsPerCandidate = 3;

/// The DDR init byte at `address`, for the program-side bugs that patch constants.
std::uint8_t* segmentByte(isa::Program& program, std::uint64_t address) {
  for (isa::DdrSegment& segment : program.segments) {
    if (address >= segment.address && address < segment.address + segment.bytes.size()) {
      return &segment.bytes[address - segment.address];
    }
  }
  return nullptr;
}

void injectIntoProgram(compiler::CompiledProgram& compiled, InjectedBug bug) {
  isa::Program& program = compiled.program;
  switch (bug) {
    case InjectedBug::ConvBiasBit:
      for (const isa::Region& region : program.regions) {
        if (region.name.ends_with(".params.oc0")) {
          if (std::uint8_t* byte = segmentByte(program, region.base)) {
            *byte ^= 0x40;
          }
        }
      }
      break;
    case InjectedBug::ConvClipHigh:
      for (isa::Instruction& instruction : program.instructions) {
        if (auto* conv = std::get_if<isa::Conv>(&instruction);
            conv && conv->clip_hi > conv->clip_lo) {
          --conv->clip_hi;
        }
      }
      break;
    case InjectedBug::EltwiseZeroPoint:
      for (isa::Instruction& instruction : program.instructions) {
        if (auto* eltwise = std::get_if<isa::Eltwise>(&instruction);
            eltwise && eltwise->op != isa::kEltwiseLut && eltwise->out_zp < 127) {
          ++eltwise->out_zp;
        }
      }
      break;
    case InjectedBug::None:
    case InjectedBug::ExpectedOffByOne:
      break;
  }
}

std::uint32_t programFeatures(const isa::Program& program) {
  std::uint32_t features = 0;
  int compute = 0;
  int parameterBlocks = 0;
  for (const isa::Region& region : program.regions) {
    parameterBlocks += region.name.find(".params.oc") != std::string::npos ? 1 : 0;
  }
  if (parameterBlocks > 1) {
    features |= kFeatureChannelBlocks;
  }
  // Column tiles: a tile narrower than the narrowest input or output row (an upsample's copies
  // are as wide as its input, a strided window's as its output).
  std::int64_t narrowest = std::numeric_limits<std::int64_t>::max();
  for (const isa::Region& region : program.regions) {
    if ((region.kind == isa::RegionKind::Input || region.kind == isa::RegionKind::Output) &&
        region.shape.size() == 4) {
      narrowest = std::min(narrowest, region.shape[2]);
    }
  }
  for (const isa::Instruction& instruction : program.instructions) {
    if (const auto* conv = std::get_if<isa::Conv>(&instruction)) {
      ++compute;
      features |= conv->acc_init == 0 ? kFeatureChannelSplit : 0U;
      features |= conv->depthwise != 0 ? kFeatureDepthwise : 0U;
      features |= conv->use_lut != 0 ? kFeatureFusedLut : 0U;
      features |= conv->double_round != 0 ? kFeatureDoubleRounding : 0U;
      features |= conv->out_w < narrowest ? kFeatureColumnTiles : 0U;
    } else if (const auto* eltwise = std::get_if<isa::Eltwise>(&instruction)) {
      ++compute;
      features |= eltwise->use_lut != 0 && eltwise->op != isa::kEltwiseLut ? kFeatureFusedLut : 0U;
      features |= eltwise->double_round != 0 ? kFeatureDoubleRounding : 0U;
    } else if (const auto* pool = std::get_if<isa::Pool>(&instruction)) {
      ++compute;
      features |= pool->out_w < narrowest ? kFeatureColumnTiles : 0U;
    } else if (std::holds_alternative<isa::Norm>(instruction)) {
      ++compute;
    } else if (const auto* load = std::get_if<isa::Load>(&instruction)) {
      features |= load->pad_top + load->pad_bottom + load->pad_left + load->pad_right > 0
                      ? kFeaturePadded
                      : 0U;
    }
  }
  if (compute > 1) {
    features |= kFeatureTiled;
  }
  return features;
}

/// Output bytes that differ, over every graph output: how widespread a mismatch is.
std::uint64_t differingOutputBytes(const compiler::CompiledProgram& compiled,
                                   const compiler::QuantizedGraph& graph,
                                   const isa::DdrImage& expected, const isa::DdrImage& actual,
                                   std::uint64_t& total) {
  std::uint64_t differing = 0;
  total = 0;
  for (const compiler::TensorId id : graph.outputs) {
    const compiler::TensorPlacement& place = compiled.tensors[id];
    const auto a = expected.readRange(place.address, place.bytes);
    const auto b = actual.readRange(place.address, place.bytes);
    for (std::size_t i = 0; i < a.size(); ++i) {
      differing += a[i] != b[i] ? 1 : 0;
    }
    total += place.bytes;
  }
  return differing;
}

/// Runs the program on the chosen engine; a fault becomes a failure result.
std::optional<CaseResult> runEngine(const isa::Program& program, Engine engine,
                                    isa::DdrImage& ddr) {
  runtime::EngineRun run = runtime::runOnEngine(program, engine);
  if (run.fault) {
    return CaseResult{Verdict::Fail, "fault", *run.fault};
  }
  ddr = std::move(run.ddr);
  return std::nullopt;
}

CaseResult checkValidCase(const OpCase& opCase, const CheckOptions& options) {
  const CaseGraph built = buildCaseGraph(opCase);
  std::vector<golden::Int8Tensor> values;
  try {
    values = compiler::runQuantizedGraphGolden(built.graph, built.inputs);
  } catch (const Error& e) {
    return {Verdict::Fail, "golden-error", e.what()};
  }
  compiler::CompiledProgram compiled;
  try {
    compiled = compiler::generateProgram(built.graph, options.hw, built.inputs);
  } catch (const Error& e) {
    // Codegen's deliberate refusals (a layer or the DDR plan beyond a limit) are Unsupported;
    // anything else it throws (an invalid program, a failed encoding) is a codegen bug.
    if (e.kind() == ErrorKind::Unsupported) {
      return {Verdict::Unsupported, "", e.what()};
    }
    return {Verdict::Fail, "codegen-error", e.what()};
  }
  const std::uint32_t features = programFeatures(compiled.program);
  injectIntoProgram(compiled, options.bug);
  isa::DdrImage expected = runtime::expectedDdr(compiled, built.graph, values);
  if (options.bug == InjectedBug::ExpectedOffByOne) {
    const std::uint64_t at = compiled.tensors[built.graph.outputs[0]].address;
    expected.writeByte(at, static_cast<std::uint8_t>(expected.readByte(at) + 1));
  }
  isa::DdrImage actual(0);
  if (auto fault = runEngine(compiled.program, options.engine, actual)) {
    fault->features = features;
    return *fault;
  }
  const auto mismatch = runtime::verifyDdr(compiled, built.graph, expected, actual);
  if (!mismatch) {
    return {Verdict::Pass, "", "", features};
  }
  std::uint64_t total = 0;
  const std::uint64_t differing =
      differingOutputBytes(compiled, built.graph, expected, actual, total);
  return {Verdict::Fail, "mismatch",
          fmt::format("{} ({} of {} output bytes differ)", mismatch->message, differing, total),
          features};
}

// --- Shrinking --------------------------------------------------------------------------------

/// Smaller values to try for a size, biggest step first: lo, then ever closer to `value`
/// (halving the distance), down to value - 1, so a threshold is found in logarithmic steps.
std::vector<std::int64_t> smaller(std::int64_t value, std::int64_t lo) {
  std::vector<std::int64_t> out;
  for (std::int64_t gap = value - lo; gap > 0; gap /= 2) {
    const std::int64_t v = value - gap;
    if (std::find(out.begin(), out.end(), v) == out.end()) {
      out.push_back(v);
    }
  }
  return out;
}

}  // namespace

std::string failureSignature(const CaseResult& result) {
  if (result.kind == "mismatch") {
    return result.kind;
  }
  std::string key = result.kind + ":";
  for (const char ch : result.message) {
    if (std::isdigit(static_cast<unsigned char>(ch)) == 0) {
      key += ch;
    } else if (key.back() != '#') {
      key += '#';
    }
  }
  return key;
}

namespace {

/// Every one-step simplification of `c`, most aggressive first.
std::vector<OpCase> simplifications(const OpCase& c) {
  std::vector<OpCase> out;
  auto tryWith = [&](const std::function<void(OpCase&)>& change) {
    OpCase next = c;
    change(next);
    next = normalizedCase(std::move(next));
    if (!(next == c) && std::find(out.begin(), out.end(), next) == out.end()) {
      out.push_back(std::move(next));
    }
  };
  // Whole-window moves first: a plain 1x1 window, and the smallest plane the window allows
  // (single-field steps can get stuck where a window only fits a larger input).
  tryWith([](OpCase& n) {
    n.kernel = {1, 1};
    n.stride = {1, 1};
    n.dilation = {1, 1};
    n.pads = {0, 0, 0, 0};
  });
  tryWith([](OpCase& n) {
    n.pads = {0, 0, 0, 0};
    n.height = std::max<std::int64_t>(1, (n.kernel[0] - 1) * n.dilation[0] + 1);
    n.width = std::max<std::int64_t>(1, (n.kernel[1] - 1) * n.dilation[1] + 1);
  });
  for (int i = 0; i < 2; ++i) {
    if (c.kernel[i] > 1) {  // a smaller kernel on a correspondingly smaller plane
      tryWith([&](OpCase& n) {
        n.kernel[i] -= 1;
        (i == 0 ? n.height : n.width) =
            std::max<std::int64_t>(1, (i == 0 ? n.height : n.width) - n.dilation[i]);
      });
    }
  }
  // Geometry first: it makes every later step cheaper.
  for (const std::int64_t v : smaller(c.height, 1)) {
    tryWith([&](OpCase& n) { n.height = v; });
  }
  for (const std::int64_t v : smaller(c.width, 1)) {
    tryWith([&](OpCase& n) { n.width = v; });
  }
  if (c.kind == CaseKind::Conv) {
    const std::int64_t g = c.groups, cg = c.channels / g, kg = c.outChannels / g;
    auto shape = [&](std::int64_t ng, std::int64_t ncg, std::int64_t nkg) {
      tryWith([&](OpCase& n) {
        n.groups = ng;
        n.channels = ng * ncg;
        n.outChannels = ng * nkg;
      });
    };
    for (const std::int64_t v : smaller(kg, 1)) {
      shape(g, cg, v);
    }
    for (const std::int64_t v : smaller(cg, 1)) {
      shape(g, v, kg);
    }
    for (const std::int64_t v : smaller(g, 1)) {
      shape(v, cg, kg);
    }
    if (g > 1) {
      shape(1, c.channels, c.outChannels);
    }
  } else if (c.kind == CaseKind::Shuffle) {
    // Channels stay a multiple of the groups: shrink the channels per group, then the groups.
    const std::int64_t g = c.groups, perGroup = c.channels / g;
    for (const std::int64_t v : smaller(perGroup, 1)) {
      tryWith([&](OpCase& n) { n.channels = g * v; });
    }
    for (const std::int64_t v : smaller(g, 2)) {
      tryWith([&](OpCase& n) {
        n.groups = v;
        n.channels = v * perGroup;
      });
    }
  } else {
    if (c.kind == CaseKind::Slice) {
      // A one-pixel plane; then per axis: drop the rows (columns) after the window, move it to
      // the start dropping the rows before it, a smaller step, fewer rows. Each keeps the window
      // inside the input (a smaller step or count only ends it earlier).
      tryWith([](OpCase& n) {
        n.height = n.width = 1;
        n.rowBegin = n.colBegin = 0;
        n.rowStep = n.colStep = 1;
        n.sliceRows = n.sliceCols = 1;
      });
      using Field = std::int64_t OpCase::*;
      const std::array<std::array<Field, 4>, 2> axes{
          {{&OpCase::height, &OpCase::rowBegin, &OpCase::rowStep, &OpCase::sliceRows},
           {&OpCase::width, &OpCase::colBegin, &OpCase::colStep, &OpCase::sliceCols}}};
      for (const auto& axis : axes) {
        const Field extent = axis[0], begin = axis[1], step = axis[2], count = axis[3];
        auto tight = [&](OpCase& n) {  // the input ends at the window's last row
          n.*extent = n.*begin + (n.*count - 1) * n.*step + 1;
        };
        tryWith(tight);
        for (const std::int64_t v : smaller(c.*begin, 0)) {
          tryWith([&](OpCase& n) {
            n.*extent -= n.*begin - v;
            n.*begin = v;
          });
        }
        for (const std::int64_t v : smaller(c.*step, 1)) {
          tryWith([&](OpCase& n) { n.*step = v; });
        }
        for (const std::int64_t v : smaller(c.*count, 1)) {
          tryWith([&](OpCase& n) { n.*count = v; });
        }
      }
      // Drop the channels around the slice, then narrow it.
      tryWith([&](OpCase& n) {
        n.channels = n.sliceChannels + (n.channelBegin > 0 ? 1 : 0);
        n.channelBegin = std::min<std::int64_t>(n.channelBegin, 1);
      });
      for (const std::int64_t v : smaller(c.channelBegin, 0)) {
        tryWith([&](OpCase& n) {
          n.channels -= n.channelBegin - v;
          n.channelBegin = v;
        });
      }
      for (const std::int64_t v : smaller(c.sliceChannels, 1)) {
        tryWith([&](OpCase& n) { n.sliceChannels = v; });
      }
    }
    for (const std::int64_t v : smaller(c.channels, 1)) {
      tryWith([&](OpCase& n) { n.channels = v; });
    }
  }
  for (std::size_t i = 0; i < c.concatChannels.size(); ++i) {
    if (c.concatChannels.size() > 1) {
      tryWith([&](OpCase& n) {
        n.concatChannels.erase(n.concatChannels.begin() + static_cast<std::ptrdiff_t>(i));
      });
    }
    for (const std::int64_t v : smaller(c.concatChannels[i], 1)) {
      tryWith([&](OpCase& n) { n.concatChannels[i] = v; });
    }
  }
  for (int i = 0; i < 2; ++i) {
    for (const std::int64_t v : smaller(c.kernel[i], 1)) {
      tryWith([&](OpCase& n) { n.kernel[i] = v; });
    }
    for (const std::int64_t v : smaller(c.stride[i], 1)) {
      tryWith([&](OpCase& n) { n.stride[i] = v; });
    }
    for (const std::int64_t v : smaller(c.dilation[i], 1)) {
      tryWith([&](OpCase& n) { n.dilation[i] = v; });
    }
    for (const std::int64_t v : smaller(c.factor[i], 1)) {
      tryWith([&](OpCase& n) { n.factor[i] = v; });
    }
  }
  for (std::size_t i = 0; i < 4; ++i) {
    for (const std::int64_t v : smaller(c.pads[i], 0)) {
      tryWith([&](OpCase& n) { n.pads[i] = v; });
    }
  }
  if (c.kind == CaseKind::MatMul) {
    for (const std::int64_t v : smaller(c.outChannels, 1)) {
      tryWith([&](OpCase& n) { n.outChannels = v; });
    }
    tryWith([](OpCase& n) { n.producedB = false; });
    // Planes instead of token rows; else rows no wider than their heads need, from column 0.
    tryWith([](OpCase& n) { n.mergedY = false; });
    tryWith([](OpCase& n) { n.bFromA = false; });
    for (std::optional<TokenView> OpCase::*const tokens : {&OpCase::tokensA, &OpCase::tokensB}) {
      if (!(c.*tokens)) {
        continue;
      }
      tryWith([&](OpCase& n) { (n.*tokens).reset(); });
      tryWith([&](OpCase& n) {
        if (TokenView* t = (n.*tokens) ? &*(n.*tokens) : nullptr) {
          t->rowWidth -= t->columnOffset;
          t->columnOffset = 0;
        }
      });
      tryWith([&](OpCase& n) {
        if (TokenView* t = (n.*tokens) ? &*(n.*tokens) : nullptr) {
          const std::int64_t cols = tokens == &OpCase::tokensA
                                        ? n.channels
                                        : (n.transposedB ? n.channels : n.outChannels);
          t->rowWidth = t->columnOffset + (n.height - 1) * t->headStep + cols;
        }
      });
    }
    tryWith([](OpCase& n) { n.transposedB = true; });  // CONV's usual weight order, no wgt_kn
  }
  // Then the quantization, towards the plainest parameters.
  tryWith([](OpCase& n) { n.perChannelB = false; });
  tryWith([](OpCase& n) { n.fusedLut = false; });
  tryWith([](OpCase& n) { n.perChannel = false; });
  tryWith([](OpCase& n) { n.rounding = golden::Rounding::Single; });
  tryWith([](OpCase& n) { n.clipLo = -128; });
  tryWith([](OpCase& n) { n.clipHi = 127; });
  tryWith([](OpCase& n) { n.inputZeroPoint = 0; });
  tryWith([](OpCase& n) { n.inputZeroPointB = 0; });
  tryWith([](OpCase& n) { n.outputZeroPoint = 0; });
  for (const std::int64_t v : smaller(c.biasRange, 0)) {
    tryWith([&](OpCase& n) { n.biasRange = v; });
  }
  tryWith([](OpCase& n) { n.fullRangeWeights = false; });
  tryWith([](OpCase& n) { n.data = DataPattern::Uniform; });
  tryWith([](OpCase& n) { n.leftShift = 20; });
  tryWith([](OpCase& n) { n.requant.multiplier = 1 << 30; });
  tryWith([](OpCase& n) { n.requantA.multiplier = 1 << 30; });
  tryWith([](OpCase& n) { n.requantB.multiplier = 1 << 30; });
  return out;
}

}  // namespace

std::string_view featureName(unsigned bit) {
  constexpr std::array<std::string_view, kFeatureCount> kNames{
      "tiled",   "input-channel split", "output-channel blocks", "depthwise",
      "padding", "fused LUT",           "double rounding",       "column tiles"};
  return bit < kNames.size() ? kNames[bit] : "?";
}

std::string_view bugName(InjectedBug bug) {
  return kBugNames[static_cast<std::size_t>(bug)];
}

std::optional<InjectedBug> parseBug(std::string_view name) {
  const auto it = std::find(kBugNames.begin(), kBugNames.end(), name);
  if (it == kBugNames.end()) {
    return std::nullopt;
  }
  return static_cast<InjectedBug>(it - kBugNames.begin());
}

std::string bugNames() {
  std::string names;
  for (const std::string_view name : kBugNames) {
    names += names.empty() ? "" : ", ";
    names += name;
  }
  return names;
}

CaseResult checkCase(const OpCase& opCase, const CheckOptions& options) {
  validateCase(opCase);
  if (options.engine == Engine::Rtl) {
    rtl::checkRtlHardware(options.hw);  // a question the RTL cannot answer, not a failing case
  }
  try {
    return checkValidCase(opCase, options);
  } catch (const Error& e) {
    // A question opcheck cannot ask, or a signal asking to stop: not a failing case.
    if (e.kind() == ErrorKind::Usage || e.kind() == ErrorKind::Interrupted) {
      throw;
    }
    return {Verdict::Fail, "crash", fmt::format("npu::Error escaped: {}", e.what())};
  } catch (const std::exception& e) {
    return {Verdict::Fail, "crash", fmt::format("exception: {}", e.what())};
  }
}

ShrinkResult shrinkCase(const OpCase& failing, const CaseResult& failure,
                        const CheckOptions& options, int maxEvaluations) {
  ShrinkResult shrunk{failing, failure, 0, 0};
  const std::string wanted = failureSignature(failure);
  bool progress = true;
  while (progress && shrunk.evaluations < maxEvaluations) {
    progress = false;
    for (const OpCase& candidate : simplifications(shrunk.minimal)) {
      if (shrunk.evaluations >= maxEvaluations) {
        break;
      }
      try {
        validateCase(candidate);
      } catch (const Error&) {
        continue;
      }
      // A data-dependent failure may vanish with the data a smaller shape draws; a few other
      // data seeds give the candidate a fair chance before it is rejected.
      OpCase tried = candidate;
      for (int attempt = 0; attempt < kSeedsPerCandidate && !progress; ++attempt) {
        if (attempt > 0) {
          tried.seed = Rng::mix(candidate.seed + static_cast<std::uint64_t>(attempt));
        }
        ++shrunk.evaluations;
        CaseResult result = checkCase(tried, options);
        if (result.verdict == Verdict::Fail && failureSignature(result) == wanted) {
          shrunk.minimal = tried;
          shrunk.result = std::move(result);
          ++shrunk.steps;
          progress = true;
        } else if (result.verdict != Verdict::Pass) {
          break;  // unsupported, or another failure: a different seed will not help
        }
      }
      if (progress) {
        break;
      }
    }
  }
  return shrunk;
}

}  // namespace npu::bench
