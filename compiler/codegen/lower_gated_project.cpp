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

#include "fusion_plan.h"
#include "lowering.h"
#include "npu/support/int_math.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

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

void lowerGatedProject(LoweringContext& ctx, const GatedProject& gated) {
  emitGatedProject(ctx, gated);
}

}  // namespace npu::compiler
