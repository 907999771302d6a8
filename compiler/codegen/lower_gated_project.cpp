// A squeeze-excitation gate fused into the project conv after it (EfficientNet's MBConv tail):
// per band of rows and block of channels, the gate multiply (an ELTWISE writing the input SRAM)
// feeds the project CONV directly, and a residual add after the project runs on the band too, so
// the gated tensor (and the project's output, when an add follows) never reach DDR
// (docs/cascade.md, "Gated project").
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <utility>

#include "lowering.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

/// mul(x, gate) -> project 1x1 [-> add(project, residual)], and how it is cut: `block` channels
/// of x per step (dividing them), `rows` rows per band.
struct GatedProject {
  const QMul* mul = nullptr;
  const QConv* project = nullptr;
  const QAdd* add = nullptr;
  TensorId x = 0, gate = 0, residual = 0;
  std::int64_t mulOp = 0, projectOp = 0, addOp = -1;
  std::int64_t h = 0, w = 0, e = 0, kout = 0;
  std::int64_t block = 0, rows = 0;
  bool streamed = false;  ///< the project's weights per block into two slots, every band

  /// Input SRAM bytes: three x slots (a block's x loads while the project two blocks back
  /// runs: the multiply that last read its slot pushes no token, the project after it does),
  /// the gate replicated over a band's pixels for every channel, two gated-block slots (a
  /// block's multiply runs beside the previous block's project), and (with an add) two residual
  /// bands and two project bands (a band's add runs beside the next band's first project).
  [[nodiscard]] std::int64_t inputBytes(std::int64_t b, std::int64_t r) const {
    return 5 * r * w * b + r * w * e + (add != nullptr ? 4 * r * w * kout : 0);
  }
};

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

/// Their cycles (`cols` bytes a cycle, docs/timing.md's ELTWISE).
std::int64_t gateCopyCycles(std::int64_t pixels, std::int64_t block, std::int64_t cols) {
  std::int64_t cycles = 0;
  for (const isa::Eltwise& copy : gateCopies(0, pixels, block, 0)) {
    cycles += ceilDiv(copy.count, cols) + 4;
  }
  return cycles;
}

std::optional<GatedProject> planGatedProject(const LoweringContext& ctx, std::size_t first) {
  const QuantizedGraph& graph = ctx.graph;
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
  g.x = gateIsB ? g.mul->a : g.mul->b;
  g.gate = gateIsB ? g.mul->b : g.mul->a;
  g.mulOp = static_cast<std::int64_t>(first);
  g.projectOp = g.mulOp + 1;
  const auto& xs = graph.tensors[g.x].shape;
  g.h = xs[1];
  g.w = xs[2];
  g.e = xs[3];
  g.kout = graph.tensors[g.project->output].shape[3];
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
  const std::int64_t limit = kMaxTileDim;
  if (g.e > limit || g.kout > limit || g.w > isa::limits::kLoadColumns) {
    return std::nullopt;
  }
  const auto lut = [](const golden::OutputStage& stage) { return stage.lut ? 256 : 0; };
  // The project's records and LUT, the multiply's and the add's, the gate copies' identity LUT.
  const std::int64_t shared = 12 * g.kout + lut(p.output) + 24 + lut(g.mul->params.output) +
                              (g.add != nullptr ? 24 + lut(g.add->params.output) : 0) + 256;
  if (shared > ctx.config.parameterSramBytes) {
    return std::nullopt;
  }
  const bool wholeFits = g.kout * g.e <= ctx.config.weightSramBytes;
  const std::int64_t mr = ctx.config.macRows;
  const std::int64_t mc = ctx.config.macCols;
  double best = std::numeric_limits<double>::infinity();
  for (std::int64_t b = g.e; b >= 1; --b) {
    const bool streamed = !wholeFits;
    if (g.e % b != 0 || (b % mc != 0 && b != g.e) ||
        (streamed && 2 * g.kout * b > ctx.config.weightSramBytes)) {
      continue;
    }
    for (std::int64_t r = std::min(g.h, limit); r >= 1; --r) {
      const std::int64_t out = r * g.w * g.kout;
      if (g.inputBytes(b, r) > ctx.config.inputSramBytes || r * g.w > isa::limits::kLoadColumns ||
          out > ctx.config.outputSramBytes / 2 ||
          (g.e / b > 1 && out > ctx.config.accumulatorSramBytes / 4)) {
        continue;
      }
      // Per band: the gate multiplies and the project's MACs against the loads of x (and the
      // residual) and the store, plus the weights (every band when streamed, else the first).
      // Each block's multiply runs on the vector side beside the previous block's project, so
      // the first band takes the first multiply, then per block the longer of the two. Before
      // the first multiply: the first block's weights, then its x beside its gate (one run of
      // `b` bytes, replicated over the band's pixels by the vector unit).
      const std::int64_t blocks = g.e / b;
      const double weightLoad = dmaCycles(ctx.config, 1, 1, g.kout * b, true);
      const double gateLoad = dmaCycles(ctx.config, 1, 1, b, true);
      const auto gateCopies = static_cast<double>(gateCopyCycles(r * g.w, b, mc));
      double total =
          weightLoad + std::max(dmaCycles(ctx.config, std::min(r, g.h), g.w, b, b == g.e),
                                gateLoad + gateCopies);
      for (std::int64_t y = 0; y < g.h; y += r) {
        const std::int64_t rb = std::min(r, g.h - y);
        const std::int64_t mul = ceilDiv(rb * g.w * b, mc) + 4;
        const std::int64_t project = rb * g.w * ceilDiv(g.kout, mc) * ceilDiv(b, mr) + 4;
        // After the first band the vector side's multiplies (and the add of the band before)
        // run beside the MAC side's projects.
        const std::int64_t add = g.add != nullptr ? ceilDiv(rb * g.w * g.kout, mc) + 4 : 0;
        // The first band replicates every later block's gate beside the projects too.
        double compute = y > 0 ? static_cast<double>(std::max(blocks * mul + add, blocks * project))
                               : static_cast<double>(mul) +
                                     static_cast<double>(blocks - 1) *
                                         std::max(static_cast<double>(mul) + gateCopies,
                                                  static_cast<double>(project)) +
                                     static_cast<double>(project);
        const std::int64_t loaded = y > 0 ? blocks : blocks - 1;  // the first is counted above
        double dma = static_cast<double>(loaded) * dmaCycles(ctx.config, rb, g.w, b, b == g.e) +
                     dmaCycles(ctx.config, 1, 1, rb * g.w * g.kout, true);
        if (streamed || y == 0) {
          dma += static_cast<double>(loaded) * weightLoad;
        }
        if (y == 0) {
          dma += static_cast<double>(loaded) * gateLoad;
        }
        if (g.add != nullptr) {
          dma += dmaCycles(ctx.config, 1, 1, rb * g.w * g.kout, true);
        }
        total += std::max(compute, dma);
      }
      if (total < best) {
        best = total;
        g.block = b;
        g.rows = r;
        g.streamed = streamed;
      }
      break;
    }
  }
  if (g.block == 0) {
    return std::nullopt;
  }
  // Lowered one by one: the multiply and the add move three tensors each through DDR, the
  // project two and its weights, each transfer paying at least one DDR latency (as the fused
  // estimate's do), and each layer waits for its first load and its last store in series (two
  // more; measured on a 13x11x48 -> 16 gate on npu-l, where fusing saves 196 of 3,597 cycles).
  const double ddr = static_cast<double>(ctx.config.ddrBytesPerCycle);
  const double pixels = static_cast<double>(g.h * g.w);
  const double latency = static_cast<double>(ctx.config.ddrLatencyCycles);
  double separate = latency * (g.add != nullptr ? 9.0 + 6.0 : 6.0 + 4.0) +
                    pixels * static_cast<double>(g.e) * 3.0 / ddr +
                    pixels * static_cast<double>(ceilDiv(g.kout, mc) * ceilDiv(g.e, mr)) +
                    pixels * static_cast<double>(g.e + g.kout) / ddr;
  if (g.add != nullptr) {
    separate += pixels * static_cast<double>(g.kout) * 3.0 / ddr;
  }
  if (best >= separate) {
    return std::nullopt;
  }
  return g;
}

/// {a_mult, a_shift, b_mult, b_shift, out_mult, out_shift} then the LUT, as ELTWISE reads them.
std::vector<std::uint8_t> eltwiseParameters(const QOp& op) {
  std::vector<std::uint8_t> blob;
  const golden::OutputStage* stage = nullptr;
  if (const auto* add = std::get_if<QAdd>(&op)) {
    for (const auto& m :
         {add->params.multiplierA, add->params.multiplierB, add->params.multiplierOut}) {
      appendInt32(blob, m.multiplier);
      appendInt32(blob, m.shift);
    }
    stage = &add->params.output;
  } else {
    const auto& mul = std::get<QMul>(op);
    for (int k = 0; k < 4; ++k) {
      appendInt32(blob, 0);
    }
    appendInt32(blob, mul.params.multiplierOut.multiplier);
    appendInt32(blob, mul.params.multiplierOut.shift);
    stage = &mul.params.output;
  }
  if (stage->lut) {
    for (const std::int8_t v : *stage->lut) {
      blob.push_back(static_cast<std::uint8_t>(v));
    }
  }
  return blob;
}

/// The ELTWISE fields of an add or multiply: zero points, shift, output stage.
isa::Eltwise eltwiseBase(const QOp& op) {
  isa::Eltwise e;
  const golden::OutputStage* stage = nullptr;
  if (const auto* add = std::get_if<QAdd>(&op)) {
    e.op = isa::kEltwiseAdd;
    e.a_zp = add->params.zeroPointA;
    e.b_zp = add->params.zeroPointB;
    e.left_shift = add->params.leftShift;
    stage = &add->params.output;
  } else {
    const auto& mul = std::get<QMul>(op);
    e.op = isa::kEltwiseMul;
    e.a_zp = mul.params.zeroPointA;
    e.b_zp = mul.params.zeroPointB;
    stage = &mul.params.output;
  }
  e.out_zp = stage->zeroPoint;
  e.clip_lo = stage->clipLo;
  e.clip_hi = stage->clipHi;
  e.use_lut = stage->lut ? 1 : 0;
  e.double_round = stage->rounding == golden::Rounding::Double ? 1 : 0;
  return e;
}

void emitGatedProject(LoweringContext& ctx, const GatedProject& g) {
  const QuantizedGraph& graph = ctx.graph;
  const std::string& name = g.project->name;
  const auto address = [&](TensorId id) {
    return static_cast<std::int64_t>(ctx.tensors[id].address);
  };
  // Parameters, loaded once: the project's records and LUT, the multiply's, the add's.
  std::int64_t parameterAt = 0;
  const auto placeParameters = [&](std::int64_t op, const std::string& what,
                                   const std::vector<std::uint8_t>& blob) {
    ctx.op = op;
    const std::int64_t at = parameterAt;
    ctx.loadFlat(2, at, ctx.constants.add(fmt::format("{}.gated.{}", name, what), blob),
                 static_cast<std::int64_t>(blob.size()));
    parameterAt += static_cast<std::int64_t>(blob.size());
    return at;
  };
  const std::int64_t projectParameters =
      placeParameters(g.projectOp, "params", convParameterBlob(*g.project, 0, g.kout));
  const std::int64_t mulParameters = placeParameters(
      g.mulOp, "mul_params", eltwiseParameters(graph.ops[static_cast<std::size_t>(g.mulOp)]));
  const std::int64_t addParameters =
      g.add != nullptr
          ? placeParameters(g.addOp, "add_params",
                            eltwiseParameters(graph.ops[static_cast<std::size_t>(g.addOp)]))
          : 0;
  const std::int64_t copyLut = placeParameters(g.mulOp, "copy_lut", identityLut());
  // Project weights per block, [kout][block]: all loaded once, or per block into two slots.
  std::vector<std::uint64_t> weightAddress;
  for (std::int64_t e0 = 0; e0 < g.e; e0 += g.block) {
    std::vector<std::uint8_t> blob;
    for (std::int64_t o = 0; o < g.kout; ++o) {
      for (std::int64_t i = e0; i < e0 + g.block; ++i) {
        blob.push_back(static_cast<std::uint8_t>(
            g.project->weights.data[static_cast<std::size_t>(o * g.e + i)]));
      }
    }
    weightAddress.push_back(ctx.constants.add(fmt::format("{}.gated.weights.e{}", name, e0), blob));
  }
  const std::int64_t blockWeights = g.kout * g.block;
  ctx.slots.forget();

  // Input SRAM: two x slots, the replicated gate, two gated-block slots, two residual bands, two
  // project bands. The gate is the same for every band: loaded once, block by block, and
  // replicated over a band's pixels by the vector unit.
  const std::int64_t pixels = g.rows * g.w;
  const std::int64_t xBytes = pixels * g.block;
  // The third x slot after everything else, so the other buffers keep their places.
  const std::int64_t gateAt = 2 * xBytes;
  const std::array<std::int64_t, 2> pAt{gateAt + pixels * g.e, gateAt + pixels * g.e + xBytes};
  const std::int64_t bandBytes = pixels * g.kout;
  const std::array<std::int64_t, 2> residualAt{pAt[1] + xBytes, pAt[1] + xBytes + bandBytes};
  const std::array<std::int64_t, 2> qAt{residualAt[1] + bandBytes, residualAt[1] + 2 * bandBytes};
  const std::array<std::int64_t, 3> xAt{0, xBytes,
                                        g.add != nullptr ? qAt[1] + bandBytes : pAt[1] + xBytes};
  const std::int64_t half = ctx.config.outputSramBytes / 2;
  // With an add, a band's add is emitted after the next band's first project, so that it runs
  // beside it, and its store after the project after that, which pushes the token the
  // overlapped add cannot (a SYNC right behind the add would hold the next multiply back). The
  // residual is loaded with the add: loaded with its band, it would wait in the load queue for
  // the add two bands back, which ends only beside this band's project, and hold up the next
  // band's x behind it.
  struct BandTail {
    std::int64_t y = 0, rows = 0, out = 0;
    std::size_t slot = 0;
  };
  std::optional<BandTail> addDue;
  std::optional<BandTail> storeDue;
  const TensorId result = g.add != nullptr ? g.add->output : g.project->output;
  const auto emitAdd = [&](const BandTail& t) {
    ctx.op = g.addOp;
    const std::int64_t count = t.rows * g.w * g.kout;
    ctx.loadFlat(0, residualAt[t.slot],
                 static_cast<std::uint64_t>(address(g.residual) + t.y * g.w * g.kout), count);
    isa::Eltwise add = eltwiseBase(graph.ops[static_cast<std::size_t>(g.addOp)]);
    const bool projectIsA = g.add->a == g.project->output;
    add.a_addr = projectIsA ? qAt[t.slot] : residualAt[t.slot];
    add.b_addr = projectIsA ? residualAt[t.slot] : qAt[t.slot];
    add.out_addr = t.out;
    add.param_addr = addParameters;
    add.lut_addr = addParameters + 24;
    add.count = count;
    add.overlap = 1;
    ctx.emit(add);
  };
  const auto afterProject = [&] {
    if (storeDue) {
      ctx.op = g.addOp;
      ctx.store(storeDue->out, tensorRows(ctx, result, storeDue->y, storeDue->rows));
      storeDue.reset();
    }
    if (addDue) {
      emitAdd(*addDue);
      storeDue = std::exchange(addDue, std::nullopt);
    }
  };
  const bool gateIsA = g.mul->a == g.gate;
  // Where step `at`'s project weights (of block e0) are: streamed weights in two slots, every
  // band; otherwise each block's where the first band loads them.
  const auto weightsAt = [&](std::int64_t at, std::int64_t e0) {
    return g.streamed ? (at % 2) * blockWeights : e0 / g.block * blockWeights;
  };
  // The slot of step `at`'s slice of the depthwise's output.
  const auto xOf = [&](std::int64_t at) { return xAt[static_cast<std::size_t>(at % 3)]; };
  // A step's loads, those that need nothing computed before the gate first: its streamed
  // project weights, its slice of the depthwise's output, then (first band) its slice of the
  // gate, so that the first CONV waits for one block's loads, not the whole gate's. They are
  // emitted before the previous step's add, whose residual LOAD waits for the add two bands
  // back and would otherwise hold them up in the load queue.
  const auto emitLoads = [&](std::int64_t at, std::int64_t band, std::int64_t y, std::int64_t e0) {
    const std::int64_t rb = std::min(g.rows, g.h - y);
    ctx.op = g.projectOp;
    // Loaded every band when streamed, else by the first band, just before its gate and x, so
    // the first CONV waits for one block's.
    if (g.streamed || band == 0) {
      ctx.loadFlat(1, weightsAt(at, e0), weightAddress[static_cast<std::size_t>(e0 / g.block)],
                   blockWeights);
    }
    ctx.op = g.mulOp;
    if (band == 0) {
      // The block's gate once, then doubled in place by the vector unit until it covers the
      // band's pixels: a LOAD with column stride 0 would hold the DDR port for a burst or two
      // per pixel (the gate's run of `block` bytes read again for each). Before the block's x,
      // so that the copies run while x loads.
      const std::int64_t at0 = gateAt + pixels * e0;
      ctx.loadFlat(0, at0, static_cast<std::uint64_t>(address(g.gate) + e0), g.block);
      for (const isa::Eltwise& copy : gateCopies(at0, pixels, g.block, copyLut)) {
        ctx.emit(copy);
      }
    }
    ctx.load(0, xOf(at), {address(g.x) + y * g.w * g.e + e0, rb, g.w, g.block, g.w * g.e, g.e});
  };
  emitLoads(0, 0, 0, 0);
  std::int64_t step = 0;
  for (std::int64_t band = 0, y = 0; y < g.h; ++band, y += g.rows) {
    const std::int64_t rb = std::min(g.rows, g.h - y);
    const std::int64_t out = (band % 2) * half;
    const std::int64_t count = rb * g.w * g.block;
    for (std::int64_t e0 = 0; e0 < g.e; e0 += g.block, ++step) {
      const bool last = e0 + g.block == g.e;
      const std::int64_t x = xOf(step);
      const std::int64_t weights = weightsAt(step, e0);
      isa::Eltwise mul = eltwiseBase(graph.ops[static_cast<std::size_t>(g.mulOp)]);
      mul.a_addr = gateIsA ? gateAt + pixels * e0 : x;
      mul.b_addr = gateIsA ? x : gateAt + pixels * e0;
      mul.out_addr = pAt[static_cast<std::size_t>(step % 2)];
      mul.out_buf = 1;
      // Beside the previous block's project CONV: it reads the other gated-block slot.
      mul.overlap = 1;
      mul.param_addr = mulParameters;
      mul.lut_addr = mulParameters + 24;
      mul.count = count;
      ctx.emit(mul);

      ctx.op = g.projectOp;
      isa::Conv project;
      const auto& p = g.project->params;
      project.in_zp = p.inputZeroPoint;
      project.out_zp = p.output.zeroPoint;
      project.clip_lo = p.output.clipLo;
      project.clip_hi = p.output.clipHi;
      project.double_round = p.output.rounding == golden::Rounding::Double ? 1 : 0;
      project.kh = project.kw = project.sh = project.sw = project.dh = project.dw = 1;
      project.inp_addr = pAt[static_cast<std::size_t>(step % 2)];
      project.wgt_addr = weights;
      project.param_addr = projectParameters;
      project.lut_addr = projectParameters + 12 * g.kout;
      project.out_addr = g.add != nullptr ? qAt[static_cast<std::size_t>(band % 2)] : out;
      project.out_buf = g.add != nullptr ? 1 : 0;
      project.acc_addr = 0;
      project.acc_init = e0 == 0 ? 1 : 0;
      project.finalize = last ? 1 : 0;
      project.use_lut = p.output.lut && last ? 1 : 0;
      project.out_h = rb;
      project.out_w = g.w;
      project.in_w = g.w;
      project.in_c = g.block;
      project.out_c = g.kout;
      ctx.emit(project);
      if (!last) {
        emitLoads(step + 1, band, y, e0 + g.block);
      } else if (y + g.rows < g.h) {
        emitLoads(step + 1, band + 1, y + g.rows, 0);
      }
      afterProject();
    }
    if (g.add == nullptr) {
      ctx.store(out, tensorRows(ctx, result, y, rb));
    } else {
      addDue = BandTail{y, rb, out, static_cast<std::size_t>(band % 2)};
    }
  }
  afterProject();
  afterProject();
}

}  // namespace

std::int64_t lowerGatedProject(LoweringContext& ctx, std::size_t first,
                               std::vector<TensorId>& onChip) {
  const std::optional<GatedProject> gated = planGatedProject(ctx, first);
  if (!gated) {
    return 0;
  }
  emitGatedProject(ctx, *gated);
  onChip.push_back(gated->mul->output);
  if (gated->add != nullptr) {
    onChip.push_back(gated->project->output);
  }
  return gated->add != nullptr ? 3 : 2;
}

}  // namespace npu::compiler
