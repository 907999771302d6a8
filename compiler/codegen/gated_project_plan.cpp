// The gated project's plan (see fusion_plan.h): whether a gate multiply fuses into the project
// conv after it, and how it is cut into blocks of channels and bands of rows (docs/cascade.md,
// "Gated project").
#include <algorithm>
#include <limits>

#include "fusion_plan.h"
#include "lowering.h"
#include "npu/support/int_math.h"

namespace npu::compiler {

/// The vector unit's copies that replicate a gate of `block` bytes at input SRAM `at` over
/// `pixels` pixels, doubling what is there each time (through the identity LUT at `lut`).
std::vector<isa::Eltwise> gateCopies(std::int64_t at, std::int64_t pixels, std::int64_t block,
                                     std::int64_t lut) {
  std::vector<isa::Eltwise> copies;
  for (std::int64_t done = block; done < pixels * block; done *= 2) {
    copies.push_back(lutCopy(at, at + done, std::min(done, pixels * block - done), 1, lut));
  }
  return copies;
}

namespace {

/// Their cycles (`cols` bytes a cycle, docs/timing.md's ELTWISE).
std::int64_t gateCopyCycles(std::int64_t pixels, std::int64_t block, std::int64_t cols) {
  std::int64_t cycles = 0;
  for (const isa::Eltwise& copy : gateCopies(0, pixels, block, 0)) {
    cycles += ceilDiv(copy.count, cols) + 4;
  }
  return cycles;
}

/// mul(input, gate) at op `first` -> project 1x1 [-> add(project, residual)]: the ops, their
/// tensors and sizes (not yet cut), when the ops at `first` have that form.
std::optional<GatedProject> matchGatedProject(const QuantizedGraph& graph, std::size_t first) {
  GatedProject g;
  g.mul = std::get_if<QMul>(&graph.ops[first]);
  if (g.mul == nullptr || first + 1 >= graph.ops.size()) {
    return std::nullopt;
  }
  g.project = std::get_if<QConv>(&graph.ops[first + 1]);
  const auto& sa = graph.tensors[g.mul->a].shape;
  const auto& sb = graph.tensors[g.mul->b].shape;
  const bool gateIsB = sb[1] == 1 && sb[2] == 1 && sa[3] == sb[3] && sa != sb;
  const bool gateIsA = sa[1] == 1 && sa[2] == 1 && sa[3] == sb[3] && sa != sb;
  if (g.project == nullptr || g.project->input != g.mul->output || (!gateIsA && !gateIsB) ||
      !singleUse(graph, g.mul->output)) {
    return std::nullopt;
  }
  const auto& p = g.project->params;
  if (g.project->weights.shape[1] != 1 || g.project->weights.shape[2] != 1 || p.groups != 1 ||
      p.strides[0] != 1 || p.strides[1] != 1 || p.pads[0] != 0 || p.pads[1] != 0 ||
      p.pads[2] != 0 || p.pads[3] != 0) {
    return std::nullopt;
  }
  g.input = gateIsB ? g.mul->a : g.mul->b;
  g.gate = gateIsB ? g.mul->b : g.mul->a;
  g.mulOp = static_cast<std::int64_t>(first);
  g.projectOp = g.mulOp + 1;
  const auto& xs = graph.tensors[g.input].shape;
  g.height = xs[1];
  g.width = xs[2];
  g.channels = xs[3];
  g.outputChannels = graph.tensors[g.project->output].shape[3];
  if (first + 2 < graph.ops.size()) {
    if (const auto* add = std::get_if<QAdd>(&graph.ops[first + 2]);
        add != nullptr && singleUse(graph, g.project->output) &&
        graph.tensors[add->a].shape == graph.tensors[add->b].shape &&
        (add->a == g.project->output || add->b == g.project->output)) {
      g.add = add;
      g.addOp = g.projectOp + 1;
      g.residual = add->a == g.project->output ? add->b : add->a;
    }
  }
  return g;
}

/// Parameter SRAM bytes the gated project loads once: the project's records and LUT, the
/// multiply's and the add's, the gate copies' identity LUT.
std::int64_t sharedParameterBytes(const GatedProject& g) {
  const auto lut = [](const golden::OutputStage& stage) { return stage.lut ? kLutBytes : 0; };
  return kChannelRecordBytes * g.outputChannels + lut(g.project->params.output) + 24 +
         lut(g.mul->params.output) + (g.add != nullptr ? 24 + lut(g.add->params.output) : 0) +
         kLutBytes;
}

/// Whether a band of `r` rows of blocks of `b` channels fits the SRAMs and the fields.
bool bandFits(const GatedProject& g, const isa::NpuConfig& config, std::int64_t b, std::int64_t r) {
  const std::int64_t out = r * g.width * g.outputChannels;
  return !(g.inputBytes(b, r) > config.inputSramBytes || r * g.width > isa::limits::kLoadColumns ||
           out > config.outputSramBytes / 2 ||
           (g.channels / b > 1 && out > config.accumulatorSramBytes / 4));
}

/// Estimated cycles of the gated project cut into blocks of `b` channels and bands of `r` rows
/// (the project's weights `streamed` per band, or loaded by the first).
double cutCycles(const GatedProject& g, const isa::NpuConfig& config, std::int64_t b,
                 std::int64_t r, bool streamed) {
  const std::int64_t mr = config.macRows;
  const std::int64_t mc = config.macCols;
  // Per band: the gate multiplies and the project's MACs against the loads of x (and the
  // residual) and the store, plus the weights (every band when streamed, else the first).
  // Each block's multiply runs on the vector side beside the previous block's project, so
  // the first band takes the first multiply, then per block the longer of the two. Before
  // the first multiply: the first block's weights, then its x beside its gate (one run of
  // `b` bytes, replicated over the band's pixels by the vector unit).
  const std::int64_t blocks = g.channels / b;
  const double weightLoad = dmaCycles(config, 1, 1, g.outputChannels * b, true);
  const double gateLoad = dmaCycles(config, 1, 1, b, true);
  const auto copies = static_cast<double>(gateCopyCycles(r * g.width, b, mc));
  double total =
      weightLoad + std::max(dmaCycles(config, std::min(r, g.height), g.width, b, b == g.channels),
                            gateLoad + copies);
  for (std::int64_t y = 0; y < g.height; y += r) {
    const std::int64_t rb = std::min(r, g.height - y);
    const std::int64_t mul = ceilDiv(rb * g.width * b, mc) + 4;
    const std::int64_t project = rb * g.width * ceilDiv(g.outputChannels, mc) * ceilDiv(b, mr) + 4;
    // After the first band the vector side's multiplies (and the add of the band before)
    // run beside the MAC side's projects.
    const std::int64_t add =
        g.add != nullptr ? ceilDiv(rb * g.width * g.outputChannels, mc) + 4 : 0;
    // The first band replicates every later block's gate beside the projects too.
    double compute =
        y > 0 ? static_cast<double>(std::max(blocks * mul + add, blocks * project))
              : static_cast<double>(mul) +
                    static_cast<double>(blocks - 1) *
                        std::max(static_cast<double>(mul) + copies, static_cast<double>(project)) +
                    static_cast<double>(project);
    const std::int64_t loaded = y > 0 ? blocks : blocks - 1;  // the first is counted above
    double dma = static_cast<double>(loaded) * dmaCycles(config, rb, g.width, b, b == g.channels) +
                 dmaCycles(config, 1, 1, rb * g.width * g.outputChannels, true);
    if (streamed || y == 0) {
      dma += static_cast<double>(loaded) * weightLoad;
    }
    if (y == 0) {
      dma += static_cast<double>(loaded) * gateLoad;
    }
    if (g.add != nullptr) {
      dma += dmaCycles(config, 1, 1, rb * g.width * g.outputChannels, true);
    }
    total += std::max(compute, dma);
  }
  return total;
}

/// Cuts `g` the cheapest way: per block size that divides the channels (a multiple of the MAC
/// columns, or all of them), the most rows that fit. Sets block (0 when nothing fits), rows and
/// streamed; returns the estimated cycles.
double chooseCut(GatedProject& g, const isa::NpuConfig& config) {
  const std::int64_t limit = kMaxTileDim;
  const bool wholeFits = g.outputChannels * g.channels <= config.weightSramBytes;
  const std::int64_t mc = config.macCols;
  double best = std::numeric_limits<double>::infinity();
  for (std::int64_t b = g.channels; b >= 1; --b) {
    const bool streamed = !wholeFits;
    if (g.channels % b != 0 || (b % mc != 0 && b != g.channels) ||
        (streamed && 2 * g.outputChannels * b > config.weightSramBytes)) {
      continue;
    }
    for (std::int64_t r = std::min(g.height, limit); r >= 1; --r) {
      if (!bandFits(g, config, b, r)) {
        continue;
      }
      const double total = cutCycles(g, config, b, r, streamed);
      if (total < best) {
        best = total;
        g.block = b;
        g.rows = r;
        g.streamed = streamed;
      }
      break;
    }
  }
  return best;
}

/// Estimated cycles of the ops lowered one by one: the multiply and the add move three tensors
/// each through DDR, the project two and its weights, each transfer paying at least one DDR
/// latency (as the fused estimate's do), and each layer waits for its first load and its last
/// store in series (two more; measured on a 13x11x48 -> 16 gate on npu-l, where fusing saves
/// 196 of 3,597 cycles).
double separateCycles(const GatedProject& g, const isa::NpuConfig& config) {
  const std::int64_t mr = config.macRows;
  const std::int64_t mc = config.macCols;
  const double ddr = static_cast<double>(config.ddrBytesPerCycle);
  const double pixels = static_cast<double>(g.height * g.width);
  const double latency = static_cast<double>(config.ddrLatencyCycles);
  double separate =
      latency * (g.add != nullptr ? 9.0 + 6.0 : 6.0 + 4.0) +
      pixels * static_cast<double>(g.channels) * 3.0 / ddr +
      pixels * static_cast<double>(ceilDiv(g.outputChannels, mc) * ceilDiv(g.channels, mr)) +
      pixels * static_cast<double>(g.channels + g.outputChannels) / ddr;
  if (g.add != nullptr) {
    separate += pixels * static_cast<double>(g.outputChannels) * 3.0 / ddr;
  }
  return separate;
}

}  // namespace

std::optional<GatedProject> planGatedProject(const QuantizedGraph& graph,
                                             const isa::NpuConfig& config, std::size_t first) {
  std::optional<GatedProject> g = matchGatedProject(graph, first);
  if (!g) {
    return std::nullopt;
  }
  const std::int64_t limit = kMaxTileDim;
  if (g->channels > limit || g->outputChannels > limit || g->width > isa::limits::kLoadColumns) {
    return std::nullopt;
  }
  if (sharedParameterBytes(*g) > config.parameterSramBytes) {
    return std::nullopt;
  }
  const double best = chooseCut(*g, config);
  if (g->block == 0) {
    return std::nullopt;
  }
  if (best >= separateCycles(*g, config)) {
    return std::nullopt;
  }
  return g;
}

}  // namespace npu::compiler
