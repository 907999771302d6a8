// The opcheck engine: one case compiled as a one-op graph, run on an engine and verified
// bit-exactly against golden; shrinking of a failing case to a minimal one; debug bug injection.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "npu/isa/npu_config.h"
#include "npu/runtime/engine.h"
#include "npu/subnet_bench/op_case.h"

namespace npu::bench {

/// Where a compiled case runs: the project's one engine enum (runtime/engine.h).
using runtime::Engine;
using runtime::engineName;

/// Debug switch: a deliberate numerics bug planted between codegen and the engine (or in the
/// expected values), so tests can show that opcheck finds and shrinks a real-looking bug. The
/// simulator's code is never changed.
enum class InjectedBug : std::uint8_t {
  None,
  /// Flips bit 6 of the bias in every conv parameter record of output channel 0 (a +-64
  /// accumulator error on one channel).
  ConvBiasBit,
  /// Lowers clip_hi of every CONV instruction by one when it is above clip_lo (wrong only where
  /// an output reaches the upper bound).
  ConvClipHigh,
  /// Raises out_zp of every add/mul ELTWISE instruction by one (saturating at 127).
  EltwiseZeroPoint,
  /// Adds one to the first byte of the expected output (a bug on the golden side).
  ExpectedOffByOne,
};

/// "none", "conv-bias-bit", "conv-clip-hi", "eltwise-zero-point", "expected-off-by-one".
std::string_view bugName(InjectedBug bug);
std::optional<InjectedBug> parseBug(std::string_view name);
/// Every bug name, comma-separated, for help and error texts.
std::string bugNames();

/// How cases run.
struct CheckOptions {
  isa::NpuConfig hw;
  Engine engine = Engine::Functional;
  InjectedBug bug = InjectedBug::None;
};

/// What a case came to.
enum class Verdict : std::uint8_t {
  Pass,
  Fail,
  /// Codegen declined the op with a layer error naming a limit (padding above 63, SRAM too
  /// small, ...): not a failure, reported separately.
  Unsupported,
};

/// Lowering paths a compiled case exercised (bits of CaseResult::features), so a sweep can show
/// what it reached.
enum CaseFeature : std::uint32_t {
  kFeatureTiled = 1U << 0,           ///< more than one compute instruction
  kFeatureChannelSplit = 1U << 1,    ///< a CONV accumulating over input-channel chunks
  kFeatureChannelBlocks = 1U << 2,   ///< a conv in several output-channel blocks
  kFeatureDepthwise = 1U << 3,       ///< a depthwise CONV
  kFeaturePadded = 1U << 4,          ///< a LOAD writing padding
  kFeatureFusedLut = 1U << 5,        ///< a CONV or add/mul ELTWISE with use_lut
  kFeatureDoubleRounding = 1U << 6,  ///< double_round set
  kFeatureColumnTiles = 1U << 7,     ///< a CONV or POOL tile narrower than every input and output
  kFeatureCount = 8,
};

/// Human names of the features, by bit index.
std::string_view featureName(unsigned bit);

struct CaseResult {
  Verdict verdict = Verdict::Pass;
  /// For failures: "mismatch" (verified DDR differs), "fault" (the engine faulted),
  /// "codegen-error" (codegen threw something other than a layer limit, or produced an invalid
  /// program), "golden-error", "crash" (an exception other than npu::Error).
  std::string kind;
  /// One line: the mismatch location, the fault, the error or the unsupported reason.
  std::string message;
  /// CaseFeature bits of the compiled program (0 when codegen did not produce one).
  std::uint32_t features = 0;
};

/// Builds, compiles, runs and verifies one case. Never throws for a problem of the case itself;
/// throws npu::Error only for an invalid case (validateCase) or an engine that cannot run at all
/// (RTL built for another hardware config).
CaseResult checkCase(const OpCase& opCase, const CheckOptions& options);

/// What identifies a failure while shrinking and when grouping a sweep's failures: the kind,
/// and for everything but mismatches the message with each run of digits replaced by '#'.
std::string failureSignature(const CaseResult& result);

/// The result of shrinking.
struct ShrinkResult {
  OpCase minimal;
  CaseResult result;
  /// Accepted simplifications and cases run.
  int steps = 0;
  int evaluations = 0;
};

/// Greedily simplifies a failing case while it keeps failing the same way (same kind; for
/// errors and faults also the same message up to its numbers): smaller
/// spatial sizes, channels, kernel, stride, dilation, padding and groups, fewer concat inputs,
/// factors of 1, a per-channel add/mul operand made full-size, smaller slices and shuffle
/// groups, then simpler quantization (zero points 0, shared multiplier, no LUT, single
/// rounding, full clip, no bias, uniform data). Stops after `maxEvaluations` cases.
ShrinkResult shrinkCase(const OpCase& failing, const CaseResult& failure,
                        const CheckOptions& options, int maxEvaluations = 3000);

}  // namespace npu::bench
