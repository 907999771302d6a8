// The front-end pipeline, as one readable list.
#include "npu/compiler/passes/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>

#include "npu/compiler/ir/dump.h"
#include "npu/compiler/ir/verify.h"
#include "npu/compiler/passes/eliminate_dead_code.h"
#include "npu/compiler/passes/fold_batch_norm.h"
#include "npu/compiler/passes/fold_channel_shuffle.h"
#include "npu/compiler/passes/fold_constants.h"
#include "npu/compiler/passes/fold_conv_affine.h"
#include "npu/compiler/passes/fold_flatten_into_fc.h"
#include "npu/compiler/passes/fold_pad.h"
#include "npu/compiler/passes/fuse_activations.h"
#include "npu/compiler/passes/fuse_channel_layernorm.h"
#include "npu/compiler/passes/fuse_rms_norm.h"
#include "npu/compiler/passes/gemm_to_conv.h"
#include "npu/compiler/passes/infer_shapes.h"
#include "npu/compiler/passes/lift_token_tensors.h"
#include "npu/compiler/passes/masks_to_adds.h"
#include "npu/compiler/passes/merge_channel_affines.h"
#include "npu/compiler/passes/recognize_activations.h"
#include "npu/compiler/passes/reduce_to_global_pool.h"
#include "npu/compiler/passes/rotary_to_tokens.h"
#include "npu/compiler/passes/simplify_reshapes.h"
#include "npu/compiler/passes/sink_nhwc_transposes.h"
#include "npu/compiler/passes/slice_space_to_depth.h"
#include "npu/compiler/passes/split_grouped_attention.h"
#include "npu/compiler/passes/split_linear_resize.h"
#include "npu/compiler/passes/split_to_slices.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

#ifdef NDEBUG
constexpr bool kDebugBuild = false;
#else
constexpr bool kDebugBuild = true;
#endif

// clang-format off
constexpr std::array kPipeline = {
  Pass{"infer-shapes",        inferShapes,       "every value gets its dtype and shape; reshape targets from Shape/Gather/Concat chains"},
  Pass{"fold-constants",      foldConstants,     "nodes with only constant inputs (shape chains, pad arithmetic) become constants"},
  Pass{"eliminate-dead-code", eliminateDeadCode, "drop what nothing reads"},
  Pass{"simplify-reshapes",   simplifyReshapes,  "no Identity or no-op reshape/transpose/pad; reshape chains merged"},
  Pass{"fold-batch-norm",     foldBatchNorm,     "Conv -> BatchNormalization folded into the conv's weights and bias"},
  Pass{"fold-pad",            foldPad,           "zero Pad -> Conv folded into the conv's pads"},
  Pass{"split-to-slices",     splitToSlices,     "a Split as one Slice per output, so each part is placed on its own"},
  Pass{"slice-space-to-depth", sliceSpaceToDepth, "SpaceToDepth as the Concat of its strided Slices; Slice chains merged (Focus stems)"},
  Pass{"fold-channel-shuffle", foldChannelShuffle, "Reshape -> Transpose -> Reshape channel shuffles as one channel Gather"},
  Pass{"recognize-activations", recognizeActivations, "x * Sigmoid(x) as SiLU, x * HardSigmoid(x) as HardSwish"},
  Pass{"reduce-to-global-pool", reduceToGlobalPool, "ReduceMean/ReduceMax over H and W as the global pool it is"},
  Pass{"split-linear-resize", splitLinearResize, "a bilinear Resize as a row Resize then a column Resize (the NPU runs one axis at a time)"},
  Pass{"sink-nhwc-transposes", sinkNhwcTransposes, "channels-last regions (ConvNeXt blocks) computed on the NCHW tensor, their MatMuls as 1x1 Convs"},
  Pass{"fuse-rms-norm",       fuseRmsNorm,       "an RMSNorm spelled Pow/ReduceMean/Add/Sqrt/Div (or rsqrt and Mul) as one RMSNormalization with its weight (over the last axis) or ChannelRmsNorm (axis 1)"},
  Pass{"rotary-to-tokens",    rotaryToTokens,    "a rotary embedding on attention heads (X * cos + rotate(X) * sin) computed on the token tensor before the head split"},
  Pass{"masks-to-adds",       masksToAdds,       "a Where that masks scores with a constant condition and the float minimum as an Add of a constant mask (identical in fp32)"},
  Pass{"split-grouped-attention", splitGroupedAttention, "attention over K/V heads repeated for grouped-query attention as one MatMul per K/V head (the repeat never materialised)"},
  Pass{"lift-token-tensors",  liftTokenTensors,  "transformer token tensors as images of their rows; attention's head split and merge as HeadMatMul strides"},
  Pass{"fuse-channel-layernorm", fuseChannelLayerNorm, "a LayerNorm over channels spelled out in seven nodes (ConvNeXt's, after the sinking) as one ChannelLayerNorm"},
  Pass{"gemm-to-conv",        convertGemmToConv, "fully connected layers as 1x1 convolutions between reshapes"},
  Pass{"simplify-reshapes",   simplifyReshapes,  "Flatten + Reshape around a converted FC cancel, also across an activation"},
  Pass{"fold-conv-affine",    foldConvAffine,    "a per-channel Mul/Add (bias, layer scale) after a Conv folded into its weights and bias"},
  Pass{"merge-channel-affines", mergeChannelAffines, "a per-channel Mul then Add no conv took (a LayerNorm's affine before a residual) as one BatchNormalization"},
  Pass{"fold-flatten-into-fc", foldFlattenIntoFc, "a flatten of [N, C, H, W] before an FC becomes the FC's H x W kernel"},
  Pass{"fuse-activations",    fuseActivations,   "activations into Conv/Add epilogues"},
  Pass{"eliminate-dead-code", eliminateDeadCode, "drop weights the folds replaced"},
};
// clang-format on

bool wantsDump(const PipelineOptions& options, std::string_view pass) {
  return std::any_of(options.dumpAfter.begin(), options.dumpAfter.end(),
                     [&](const std::string& name) { return name == pass || name == "all"; });
}

/// The pipeline's pass names, each once, for error messages.
std::string passNames() {
  std::vector<std::string_view> names;
  for (const Pass& p : kPipeline) {
    if (std::find(names.begin(), names.end(), p.name) == names.end()) {
      names.push_back(p.name);
    }
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

/// The pass named `name`, or null.
const Pass* findPass(std::string_view name) {
  const auto* it = std::find_if(kPipeline.begin(), kPipeline.end(),
                                [&](const Pass& p) { return p.name == name; });
  return it == kPipeline.end() ? nullptr : it;
}

void checkDumpNames(const PipelineOptions& options) {
  for (const std::string& name : options.dumpAfter) {
    if (name != "all" && findPass(name) == nullptr) {
      fail("--dump-after: unknown pass '{}' (passes: {}, or all)", name, passNames());
    }
  }
}

/// The passes to run: the whole pipeline, or those `options.only` names, in its order.
std::vector<const Pass*> passesToRun(const PipelineOptions& options) {
  std::vector<const Pass*> passes;
  if (options.only.empty()) {
    for (const Pass& pass : kPipeline) {
      passes.push_back(&pass);
    }
    return passes;
  }
  for (const std::string& name : options.only) {
    const Pass* pass = findPass(name);
    if (pass == nullptr) {
      fail("--passes: unknown pass '{}' (passes: {})", name, passNames());
    }
    passes.push_back(pass);
  }
  return passes;
}

}  // namespace

bool verifiesEachStage(const PipelineOptions& options) {
  return options.verifyEach || kDebugBuild;
}

std::span<const Pass> frontEndPasses() {
  return kPipeline;
}

void runFrontEndPasses(Graph& graph, const PipelineOptions& options) {
  checkDumpNames(options);
  for (const Pass* pass : passesToRun(options)) {
    pass->run(graph);
    if (verifiesEachStage(options)) {
      try {
        verifyGraph(graph);
      } catch (const Error& e) {
        fail("after pass {}: {}", pass->name, e.what());
      }
    }
    if (wantsDump(options, pass->name)) {
      std::string text = dumpGraph(graph);
      if (options.dumpSink) {
        options.dumpSink(pass->name, text);
      } else {
        fmt::print("; after {}\n{}", pass->name, text);
      }
    }
  }
}

}  // namespace npu::compiler
