// The cascade's plan (see fusion_plan.h): which chain starts at an op, and how it is cut into
// blocks of expanded channels and bands of rows, by a cost model of the cascade against the
// convs lowered one by one (docs/cascade.md).
#include <algorithm>
#include <limits>

#include "fusion_plan.h"
#include "lowering.h"
#include "npu/support/int_math.h"

namespace npu::compiler {
namespace {

/// A 1x1 conv with stride 1, no padding and one group: one matrix product per pixel.
bool pointwise(const QConv& conv) {
  const auto& p = conv.params;
  return conv.weights.shape[1] == 1 && conv.weights.shape[2] == 1 && p.groups == 1 &&
         p.strides[0] == 1 && p.strides[1] == 1 && p.dilations[0] == 1 && p.dilations[1] == 1 &&
         p.pads[0] == 0 && p.pads[1] == 0 && p.pads[2] == 0 && p.pads[3] == 0;
}

/// A depthwise conv with a square kernel, one stride and dilation 1, whose padding is smaller
/// than its kernel (every output row reads a real input row).
bool cascadableDepthwise(const QConv& conv, const QuantizedGraph& graph) {
  const auto& p = conv.params;
  const std::int64_t c = graph.tensors[conv.input].shape[3];
  const std::int64_t k = conv.weights.shape[1];
  return p.groups == c && graph.tensors[conv.output].shape[3] == c && conv.weights.shape[2] == k &&
         k <= isa::limits::kConvKernelH && k <= isa::limits::kConvKernelW &&
         p.strides[0] == p.strides[1] && p.strides[0] <= isa::limits::kConvStrideH &&
         p.dilations[0] == 1 && p.dilations[1] == 1 && p.pads[0] < k && p.pads[1] < k &&
         p.pads[2] < k && p.pads[3] < k;
}

/// Estimated cycles of the chain cascaded: per band the compute of every block against the
/// DMA of its input and output (they overlap across bands).
double cascadeCost(const isa::NpuConfig& config, const Cascade& c, std::int64_t b, std::int64_t r) {
  const std::int64_t mr = config.macRows;
  const std::int64_t mc = config.macCols;
  double total = 0;
  for (std::int64_t oy = 0; oy < c.outputHeight; oy += r) {
    const std::int64_t rb = std::min(r, c.outputHeight - oy);
    const std::int64_t in = std::min(c.rowsIn(rb), c.inputHeight);
    // Expand rows computed: all of them, or after the first band all but the kept halo.
    const std::int64_t expanded =
        c.keepHalo && oy > 0 ? std::max<std::int64_t>(0, in - c.halo()) : in;
    double compute = 0;
    const std::int64_t blocks = c.expandedChannels / b;
    double dma = c.project != nullptr
                     ? dmaCycles(config, 1, 1, rb * c.outputWidth * c.outputChannels, true)
                     : static_cast<double>(blocks) *
                           dmaCycles(config, rb, c.outputWidth, b, b == c.expandedChannels);
    if (c.streamed) {
      dma += static_cast<double>(blocks) * (dmaCycles(config, 1, 1, c.blockWeights(b), true) +
                                            dmaCycles(config, 1, 1, c.blockParameters(b), true));
    }
    if (c.expand != nullptr) {
      compute += static_cast<double>(
          blocks * expanded * (c.inputWidth * ceilDiv(b, mc) * ceilDiv(c.inputChannels, mr) + 4));
      dma += dmaCycles(config, 1, 1, in * c.inputWidth * c.inputChannels, true);
    } else {
      dma += static_cast<double>(blocks) *
             dmaCycles(config, in, c.inputWidth, b, b == c.expandedChannels);
    }
    if (c.add != nullptr) {
      compute += static_cast<double>(ceilDiv(rb * c.outputWidth * c.outputChannels, mc) + 4);
    }
    const std::int64_t depthwise =
        rb * c.outputWidth * ceilDiv(b, mc) * ceilDiv(c.kernel * c.kernel, mr) + 4;
    if (c.pool != nullptr) {
      // Each block summed in SRAM by CONVs over pixel blocks, and copied to the output SRAM for
      // its STORE by the vector unit beside the next block's depthwise.
      const std::int64_t bh = c.poolRows(r), bw = c.poolCols();
      const std::int64_t sums = ceilDiv(rb, bh) * ceilDiv(c.outputWidth, bw);
      compute += static_cast<double>(blocks * sums * (ceilDiv(b, mc) * ceilDiv(bh * bw, mr) + 4));
      const std::int64_t copy = ceilDiv(rb * c.outputWidth * b, mc) + 4;
      compute += static_cast<double>(blocks * std::max<std::int64_t>(0, copy - depthwise));
    }
    const std::int64_t project =
        c.project != nullptr
            ? rb * c.outputWidth * ceilDiv(c.outputChannels, mc) * ceilDiv(b, mr) + 4
            : 0;
    compute += static_cast<double>(blocks * (depthwise + project));
    if (c.keepHalo) {
      // The halo copies run on the vector unit beside CONVs (CascadeEmitter places them), costing
      // what they exceed a CONV beside them by: a block's copy in beside one of its expand CONVs
      // (a row); its copy out beside its depthwise, or, with the pool (whose block copy takes
      // the vector unit beside the depthwise), beside the next block's first expand CONV. The
      // code cuts copies beside expand CONVs into pieces that each fit beside one, so this
      // overcharges them; charging the pieces was measured (docs/notes/issue-15-zero-mac.md): the
      // same cycles, 1.5-2% more DDR traffic, so the conservative charge stays.
      const std::int64_t copy = ceilDiv(c.halo() * c.paddedW * b, mc) + 4;
      const std::int64_t expandRow =
          c.inputWidth * ceilDiv(b, mc) * ceilDiv(c.inputChannels, mr) + 4;
      if (oy + rb < c.outputHeight) {
        const std::int64_t beside = c.pool != nullptr ? expandRow : depthwise;
        compute += static_cast<double>(blocks * std::max<std::int64_t>(0, copy - beside));
      }
      if (oy > 0) {
        compute += static_cast<double>(blocks * std::max<std::int64_t>(0, copy - expandRow));
      }
    }
    total += std::max(compute, dma);
  }
  return total;
}

/// Estimated cycles of the chain's convs lowered one by one: per layer its MAC cycles plus its
/// input and output bytes over the DDR width (within a layer the tiles overlap little: measured
/// on MobileNetV2's 14x14 blocks, this is within 8% for the 1x1 convs and under for the
/// depthwise).
double separateCost(const isa::NpuConfig& config, const Cascade& c) {
  const std::int64_t mr = config.macRows;
  const std::int64_t mc = config.macCols;
  const double ddr = static_cast<double>(config.ddrBytesPerCycle);
  auto layer = [&](double macCycles, std::int64_t inBytes, std::int64_t outBytes) {
    return macCycles + static_cast<double>(inBytes + outBytes) / ddr;
  };
  double total =
      layer(static_cast<double>(c.outputHeight * c.outputWidth * ceilDiv(c.expandedChannels, mc) *
                                ceilDiv(c.kernel * c.kernel, mr)),
            c.inputHeight * c.inputWidth * c.expandedChannels,
            c.outputHeight * c.outputWidth * c.expandedChannels);
  if (c.project != nullptr) {
    total +=
        layer(static_cast<double>(c.outputHeight * c.outputWidth * ceilDiv(c.outputChannels, mc) *
                                  ceilDiv(c.expandedChannels, mr)),
              c.outputHeight * c.outputWidth * c.expandedChannels,
              c.outputHeight * c.outputWidth * c.outputChannels);
  }
  if (c.expand != nullptr) {
    total +=
        layer(static_cast<double>(c.inputHeight * c.inputWidth * ceilDiv(c.expandedChannels, mc) *
                                  ceilDiv(c.inputChannels, mr)),
              c.inputHeight * c.inputWidth * c.inputChannels,
              c.inputHeight * c.inputWidth * c.expandedChannels);
  }
  if (c.add != nullptr) {
    const std::int64_t bytes = c.outputHeight * c.outputWidth * c.outputChannels;
    total += layer(static_cast<double>(ceilDiv(bytes, mc)), 2 * bytes, bytes);
  }
  if (c.pool != nullptr) {
    total += layer(0, c.outputHeight * c.outputWidth * c.expandedChannels, c.expandedChannels);
  }
  return total;
}

/// The ops of the chain starting at op `first` and their op indices, up to the project (or the
/// pool): [expand 1x1 ->] depthwise [-> project 1x1 | -> global average pool]. `next` is set to
/// the op after the depthwise.
std::optional<Cascade> recognizeChain(const QuantizedGraph& graph, std::size_t first,
                                      std::size_t& next) {
  const auto convAt = [&](std::size_t i) -> const QConv* {
    return i < graph.ops.size() ? std::get_if<QConv>(&graph.ops[i]) : nullptr;
  };
  Cascade c;
  next = first;
  const QConv* head = convAt(first);
  if (head == nullptr) {
    return std::nullopt;
  }
  if (pointwise(*head)) {
    const QConv* dw = convAt(first + 1);
    if (dw == nullptr || dw->input != head->output || !singleUse(graph, head->output)) {
      return std::nullopt;
    }
    c.expand = head;
    c.depthwise = dw;
    next = first + 2;
  } else {
    c.depthwise = head;
    next = first + 1;
  }
  c.expandOp = c.expand != nullptr ? static_cast<std::int64_t>(first) : -1;
  c.depthwiseOp = static_cast<std::int64_t>(next) - 1;
  c.projectOp = static_cast<std::int64_t>(next);
  if (!cascadableDepthwise(*c.depthwise, graph)) {
    return std::nullopt;
  }
  // The project 1x1 when it alone reads the depthwise's output; without it (an EfficientNet
  // MBConv, whose squeeze-excitation reads the depthwise's output) an expand -> depthwise pair
  // still cascades, the depthwise's output going to DDR.
  c.project = convAt(next);
  if (c.project == nullptr || c.project->input != c.depthwise->output || !pointwise(*c.project) ||
      !singleUse(graph, c.depthwise->output)) {
    c.project = nullptr;
    if (c.expand == nullptr) {
      return std::nullopt;
    }
    // The shared records (the LUTs) are then loaded for the depthwise: op `next` is not in the
    // chain, and past the last op it is not in the graph at all.
    c.projectOp = c.depthwiseOp;
    // A global average pool of the depthwise's output right after it joins the chain.
    if (const auto* pool =
            next < graph.ops.size() ? std::get_if<QGlobalAvgPool>(&graph.ops[next]) : nullptr;
        pool != nullptr && pool->input == c.depthwise->output) {
      c.pool = pool;
      c.poolOp = static_cast<std::int64_t>(next);
    }
  }
  return c;
}

/// Joins op `next + 1` to the chain when it is a residual add of the project's output and the
/// chain's input (same shape: stride 1 and as many output channels as input channels); its
/// operand from the chain's input is already in SRAM, in the band's expand input.
void joinResidualAdd(const QuantizedGraph& graph, std::size_t next, Cascade& c) {
  if (const auto* add =
          next + 1 < graph.ops.size() ? std::get_if<QAdd>(&graph.ops[next + 1]) : nullptr;
      add != nullptr && c.expand != nullptr && c.project != nullptr &&
      singleUse(graph, c.project->output) &&
      graph.tensors[add->a].shape == graph.tensors[add->b].shape &&
      ((add->a == c.project->output && add->b == c.expand->input) ||
       (add->b == c.project->output && add->a == c.expand->input))) {
    c.add = add;
    c.addOp = static_cast<std::int64_t>(next) + 1;
  }
}

/// Sets the chain's sizes (shapes, kernel, stride, padding) from the graph; false when they
/// do not fit the CONV fields or the depthwise's output is not the size its padding gives.
bool measureChain(const QuantizedGraph& graph, Cascade& c) {
  const auto& dwIn = graph.tensors[c.depthwise->input].shape;
  const auto& dwOut = graph.tensors[c.depthwise->output].shape;
  const auto& p = c.depthwise->params;
  c.inputHeight = dwIn[1];
  c.inputWidth = dwIn[2];
  c.expandedChannels = dwIn[3];
  c.inputChannels =
      c.expand != nullptr ? graph.tensors[c.expand->input].shape[3] : c.expandedChannels;
  c.outputHeight = dwOut[1];
  c.outputWidth = dwOut[2];
  c.outputChannels = c.project != nullptr ? graph.tensors[c.project->output].shape[3] : 0;
  c.kernel = c.depthwise->weights.shape[1];
  c.stride = p.strides[0];
  c.padTop = p.pads[0];
  c.padLeft = p.pads[1];
  c.paddedW = p.pads[1] + c.inputWidth + p.pads[3];
  const std::int64_t limit = kMaxTileDim;
  return !(c.paddedW > limit || c.expandedChannels > limit || c.outputChannels > limit ||
           c.inputChannels > limit || (c.paddedW - c.kernel) / c.stride + 1 != c.outputWidth ||
           (c.padTop + c.inputHeight + p.pads[2] - c.kernel) / c.stride + 1 != c.outputHeight);
}

/// Bytes of the chain's constants.
struct ChainConstants {
  std::int64_t weights = 0;        ///< every weight of the chain
  std::int64_t parameters = 0;     ///< every record and LUT of the three convs
  std::int64_t addParameters = 0;  ///< the residual add's multipliers, shifts and LUT
  std::int64_t shared = 0;  ///< the records shared by every block (Cascade::sharedParameters)
};

ChainConstants chainConstants(const Cascade& c) {
  ChainConstants bytes;
  // Every weight and parameter stays in SRAM for the whole cascade (loaded once) where they fit;
  // otherwise each block's are loaded per band into one of two slots.
  bytes.weights = (c.expand != nullptr ? c.expandedChannels * c.inputChannels : 0) +
                  c.expandedChannels * c.kernel * c.kernel + c.outputChannels * c.expandedChannels;
  const auto lutBytes = [](const QConv& conv) { return conv.params.output.lut ? kLutBytes : 0; };
  const std::int64_t projectLut = c.project != nullptr ? lutBytes(*c.project) : 0;
  bytes.parameters =
      (c.expand != nullptr ? kChannelRecordBytes * c.expandedChannels + lutBytes(*c.expand) : 0) +
      kChannelRecordBytes * c.expandedChannels + lutBytes(*c.depthwise) +
      kChannelRecordBytes * c.outputChannels + projectLut;
  bytes.addParameters = c.add != nullptr ? 24 + (c.add->params.output.lut ? kLutBytes : 0) : 0;
  bytes.shared = kChannelRecordBytes * c.outputChannels + projectLut +
                 (c.expand != nullptr ? lutBytes(*c.expand) : 0) + lutBytes(*c.depthwise) +
                 bytes.addParameters;
  return bytes;
}

/// Cuts `c` (sets streamed, keepHalo, block and rows) the cheapest way that fits and returns
/// its estimated cycles (infinity, `c` unchanged, when none fits). Constants loaded once (where
/// they fit) or streamed per block, by blocks of expanded channels (dividing them, a multiple of
/// the MAC columns where it can be), by rows of a band: the cheapest that fits. Constants loaded
/// once delay the first band by their load; streamed ones are loaded again every band but overlap
/// the compute. The pool's all-ones kernel and records stay for the whole cascade beside either.
double chooseCut(const isa::NpuConfig& config, const ChainConstants& bytes, Cascade& c) {
  const std::int64_t limit = kMaxTileDim;
  const std::int64_t weights = bytes.weights;
  const std::int64_t parameters = bytes.parameters;
  const std::int64_t addParameters = bytes.addParameters;
  double best = std::numeric_limits<double>::infinity();
  Cascade option = c;
  for (std::int64_t choice = 0; choice < 4 * c.expandedChannels; ++choice) {
    // The constants first loaded once, then streamed; then both again with the halo kept.
    option.streamed = choice % (2 * c.expandedChannels) >= c.expandedChannels;
    option.keepHalo = choice >= 2 * c.expandedChannels;
    if (option.keepHalo && !c.haloKeepable()) {
      break;
    }
    const std::int64_t block = c.expandedChannels - choice % c.expandedChannels;
    // The kept halo's and the pooled blocks' copies map bytes through an identity LUT.
    const std::int64_t haloLut = option.copies() ? kLutBytes : 0;
    if (c.expandedChannels % block != 0 ||
        (block % config.macCols != 0 && block != c.expandedChannels) ||
        (!option.streamed && parameters + addParameters + c.poolParameters(block) + haloLut >
                                 config.parameterSramBytes) ||
        (option.streamed &&
         c.sharedParameters + 2 * c.blockParameters(block) + c.poolParameters(block) + haloLut >
             config.parameterSramBytes)) {
      continue;
    }
    const double startup = option.streamed ? dmaCycles(config, 1, 1, c.blockWeights(block), true)
                                           : dmaCycles(config, 1, 1, weights, true) +
                                                 dmaCycles(config, 1, 1, parameters, true);
    for (std::int64_t r = std::min(c.outputHeight, limit); r >= 1; --r) {  // CONV out_h
      const std::int64_t outBytes = c.storeBytes(block, r) + c.poolOutputBytes(block);
      const std::int64_t weightBytes =
          (option.streamed ? 2 * c.blockWeights(block) : weights) + c.poolWeights(block, r);
      if (weightBytes > config.weightSramBytes ||
          option.inputBytes(block, r) > config.inputSramBytes ||
          outBytes > config.outputSramBytes / 2 ||
          (c.project != nullptr && c.expandedChannels / block > 1 &&
           outBytes > config.accumulatorSramBytes / 4) ||
          (c.pool != nullptr && c.expandedChannels > config.accumulatorSramBytes / 4)) {
        continue;
      }
      const double cost = startup + cascadeCost(config, option, block, r);
      if (cost < best) {
        best = cost;
        c.streamed = option.streamed;
        c.keepHalo = option.keepHalo;
        c.block = block;
        c.rows = r;
      }
      break;  // fewer rows only add halo work
    }
  }
  return best;
}

/// With a pool in the chain (cut at cost `best`): the chain alone, the pool lowered on its own
/// (a pass reading the depthwise's output, DDR-bound), where that is estimated cheaper (or the
/// chain with the pool does not fit). Returns the chosen cut's cost.
double choosePoolInside(const isa::NpuConfig& config, const ChainConstants& bytes, Cascade& c,
                        double best) {
  // Loading the blocks back doubles the DDR traffic of the depthwise's output, which narrow
  // blocks' strided runs can make the limit.
  Cascade alone = c;
  alone.pool = nullptr;
  alone.poolOp = -1;
  alone.block = 0;
  const double aloneBest =
      chooseCut(config, bytes, alone) +
      dmaCycles(config, 1, 1, c.outputHeight * c.outputWidth * c.expandedChannels, true);
  if (c.block == 0 || (alone.block != 0 && aloneBest < best)) {
    c = alone;
    best = aloneBest -
           dmaCycles(config, 1, 1, c.outputHeight * c.outputWidth * c.expandedChannels, true);
  }
  return best;
}

}  // namespace

/// The chain starting at op `first`, cut to fit the SRAMs, when cascading it is estimated to
/// beat lowering its convs one by one.
std::optional<Cascade> planCascade(const QuantizedGraph& graph, const isa::NpuConfig& config,
                                   std::size_t first) {
  std::size_t next = first;
  std::optional<Cascade> chain = recognizeChain(graph, first, next);
  if (!chain) {
    return std::nullopt;
  }
  Cascade& c = *chain;
  joinResidualAdd(graph, next, c);
  if (!measureChain(graph, c)) {
    return std::nullopt;
  }
  const ChainConstants bytes = chainConstants(c);
  c.sharedParameters = bytes.shared;
  double best = chooseCut(config, bytes, c);
  if (c.pool != nullptr) {
    best = choosePoolInside(config, bytes, c, best);
  }
  if (c.block == 0 || best >= separateCost(config, c)) {
    return std::nullopt;
  }
  return c;
}

}  // namespace npu::compiler
