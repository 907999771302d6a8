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
#include <string>
#include <utility>
#include <vector>

#include "fusion_plan.h"
#include "lowering.h"
#include "npu/support/error.h"
#include "npu/support/int_math.h"

namespace npu::compiler {
namespace {

/// The gated project's parameters, placed one after another in the parameter SRAM and each
/// loaded once.
class ParameterPlacer {
 public:
  ParameterPlacer(LoweringContext& ctx, const std::string& name) : m_ctx(ctx), m_name(name) {}

  /// Loads `blob` (charged to op `op`, named after `what`) after the blobs placed before it;
  /// returns its parameter SRAM address.
  std::int64_t place(std::int64_t op, const std::string& what,
                     const std::vector<std::uint8_t>& blob) {
    m_ctx.op = op;
    const std::int64_t at = m_next;
    m_ctx.loadFlat(LoadSram::Parameter, at,
                   m_ctx.constants.add(fmt::format("{}.gated.{}", m_name, what), blob),
                   static_cast<std::int64_t>(blob.size()));
    m_next += static_cast<std::int64_t>(blob.size());
    return at;
  }

 private:
  LoweringContext& m_ctx;
  const std::string& m_name;
  std::int64_t m_next = 0;
};

/// Where the gated project's constants are.
struct GatedConstants {
  /// Parameter SRAM addresses: the project's records and LUT, the multiply's, the add's (0
  /// without an add), the gate copies' identity LUT.
  std::int64_t projectParameters = 0;
  std::int64_t mulParameters = 0;
  std::int64_t addParameters = 0;
  std::int64_t copyLut = 0;
  /// Per block of `block` channels: the DDR address of its project weights,
  /// [outputChannels][block].
  std::vector<std::uint64_t> weightAddress;
  /// Bytes of one block's project weights.
  std::int64_t blockWeights = 0;
};

/// Parameters, loaded once: the project's records and LUT, the multiply's, the add's (when
/// `add` holds it), the copies' LUT. Then the project's weights per block, [outputChannels]
/// [block], into the constant pool: all loaded once, or per block into two slots.
GatedConstants placeConstants(LoweringContext& ctx, const GatedProject& g, const EltwiseJob& mul,
                              const std::optional<EltwiseJob>& add) {
  const std::string& name = g.project->name;
  GatedConstants c;
  ParameterPlacer parameters(ctx, name);
  c.projectParameters =
      parameters.place(g.projectOp, "params", convParameterBlob(*g.project, 0, g.outputChannels));
  c.mulParameters = parameters.place(g.mulOp, "mul_params", mul.parameters);
  c.addParameters = add ? parameters.place(g.addOp, "add_params", add->parameters) : 0;
  c.copyLut = parameters.place(g.mulOp, "copy_lut", identityLut());
  for (std::int64_t e0 = 0; e0 < g.channels; e0 += g.block) {
    std::vector<std::uint8_t> blob;
    for (std::int64_t o = 0; o < g.outputChannels; ++o) {
      for (std::int64_t i = e0; i < e0 + g.block; ++i) {
        blob.push_back(static_cast<std::uint8_t>(
            g.project->weights.data[static_cast<std::size_t>(o * g.channels + i)]));
      }
    }
    c.weightAddress.push_back(
        ctx.constants.add(fmt::format("{}.gated.weights.e{}", name, e0), blob));
  }
  c.blockWeights = g.outputChannels * g.block;
  return c;
}

/// Input SRAM: two x slots, the replicated gate, two gated-block slots, two residual bands, two
/// project bands. The gate is the same for every band: loaded once, block by block, and
/// replicated over a band's pixels by the vector unit.
struct GatedLayout {
  std::int64_t pixels = 0;  ///< of a band
  std::int64_t xBytes = 0;  ///< one block of a band of x
  std::int64_t gateAt = 0;
  std::array<std::int64_t, 2> pAt{};  ///< the gated blocks
  std::int64_t bandBytes = 0;         ///< a band of the project's output
  std::array<std::int64_t, 2> residualAt{};
  std::array<std::int64_t, 2> qAt{};  ///< the project's bands, with an add
  std::array<std::int64_t, 3> xAt{};
  std::int64_t half = 0;  ///< output SRAM bytes of one band's half
};

GatedLayout gatedLayout(const GatedProject& g, const isa::NpuConfig& config) {
  GatedLayout l;
  l.pixels = g.rows * g.width;
  l.xBytes = l.pixels * g.block;
  // The third x slot after everything else, so the other buffers keep their places.
  l.gateAt = 2 * l.xBytes;
  l.pAt = {l.gateAt + l.pixels * g.channels, l.gateAt + l.pixels * g.channels + l.xBytes};
  l.bandBytes = l.pixels * g.outputChannels;
  l.residualAt = {l.pAt[1] + l.xBytes, l.pAt[1] + l.xBytes + l.bandBytes};
  l.qAt = {l.residualAt[1] + l.bandBytes, l.residualAt[1] + 2 * l.bandBytes};
  l.xAt = {0, l.xBytes, g.add != nullptr ? l.qAt[1] + l.bandBytes : l.pAt[1] + l.xBytes};
  l.half = config.outputSramBytes / 2;
  return l;
}

/// The bands of a gated project, step by step (a step: one block of one band).
///
/// With an add, a band's add is emitted after the next band's first project, so that it runs
/// beside it, and its store after the project after that, which pushes the token the
/// overlapped add cannot (a SYNC right behind the add would hold the next multiply back). The
/// residual is loaded with the add: loaded with its band, it would wait in the load queue for
/// the add two bands back, which ends only beside this band's project, and hold up the next
/// band's x behind it.
class GatedProjectEmitter {
 public:
  GatedProjectEmitter(LoweringContext& ctx, const GatedProject& g, GatedConstants constants,
                      const isa::Eltwise& mulBase, const isa::Eltwise& addBase)
      : m_ctx(ctx),
        m_gated(g),
        m_constants(std::move(constants)),
        m_layout(gatedLayout(g, ctx.config)),
        m_mulBase(mulBase),
        m_addBase(addBase),
        m_result(g.add != nullptr ? g.add->output : g.project->output),
        m_gateIsA(g.mul->a == g.gate) {}

  /// Every band, then the adds and stores still due.
  void run() {
    emitLoads(0, 0, 0, 0);
    for (std::int64_t band = 0, y = 0; y < m_gated.height; ++band, y += m_gated.rows) {
      emitBand(band, y);
    }
    afterProject();
    afterProject();
  }

 private:
  /// A band whose add (and then store) is still to be emitted.
  struct BandTail {
    std::int64_t y = 0, rows = 0, out = 0;
    std::size_t slot = 0;
  };

  std::int64_t address(TensorId id) const {
    return static_cast<std::int64_t>(m_ctx.tensors[id].address);
  }

  /// Where step `at`'s project weights (of block e0) are: streamed weights in two slots, every
  /// band; otherwise each block's where the first band loads them.
  std::int64_t weightsAt(std::int64_t at, std::int64_t e0) const {
    return m_gated.streamed ? (at % 2) * m_constants.blockWeights
                            : e0 / m_gated.block * m_constants.blockWeights;
  }

  /// The slot of step `at`'s slice of the depthwise's output.
  std::int64_t xOf(std::int64_t at) const { return m_layout.xAt[static_cast<std::size_t>(at % 3)]; }

  void emitAdd(const BandTail& t);
  void afterProject();
  void emitLoads(std::int64_t at, std::int64_t band, std::int64_t y, std::int64_t e0);
  void emitMultiply(std::int64_t e0, std::int64_t count);
  void emitProject(std::int64_t band, std::int64_t rb, std::int64_t e0, std::int64_t out);
  void emitBand(std::int64_t band, std::int64_t y);

  LoweringContext& m_ctx;
  const GatedProject& m_gated;
  const GatedConstants m_constants;
  const GatedLayout m_layout;
  /// The ELTWISE fields of the multiply and the add (unused without one).
  const isa::Eltwise m_mulBase;
  const isa::Eltwise m_addBase;
  const TensorId m_result;
  const bool m_gateIsA;
  /// The step being emitted.
  std::int64_t m_step = 0;
  std::optional<BandTail> m_addDue;
  std::optional<BandTail> m_storeDue;
};

void GatedProjectEmitter::emitAdd(const BandTail& t) {
  const GatedProject& g = m_gated;
  m_ctx.op = g.addOp;
  const std::int64_t count = t.rows * g.width * g.outputChannels;
  m_ctx.loadFlat(LoadSram::Input, m_layout.residualAt[t.slot],
                 static_cast<std::uint64_t>(address(g.residual) + t.y * g.width * g.outputChannels),
                 count);
  isa::Eltwise add = m_addBase;
  const bool projectIsA = g.add->a == g.project->output;
  add.a_addr = projectIsA ? m_layout.qAt[t.slot] : m_layout.residualAt[t.slot];
  add.b_addr = projectIsA ? m_layout.residualAt[t.slot] : m_layout.qAt[t.slot];
  add.out_addr = t.out;
  add.param_addr = m_constants.addParameters;
  add.lut_addr = m_constants.addParameters + 24;
  add.count = count;
  add.overlap = 1;
  m_ctx.emit(add);
}

/// After each project: the store that is due, then the add that is due (its store due next).
void GatedProjectEmitter::afterProject() {
  if (m_storeDue) {
    m_ctx.op = m_gated.addOp;
    m_ctx.store(m_storeDue->out, tensorRows(m_ctx, m_result, m_storeDue->y, m_storeDue->rows));
    m_storeDue.reset();
  }
  if (m_addDue) {
    emitAdd(*m_addDue);
    m_storeDue = std::exchange(m_addDue, std::nullopt);
  }
}

/// A step's loads, those that need nothing computed before the gate first: its streamed
/// project weights, its slice of the depthwise's output, then (first band) its slice of the
/// gate, so that the first CONV waits for one block's loads, not the whole gate's. They are
/// emitted before the previous step's add, whose residual LOAD waits for the add two bands
/// back and would otherwise hold them up in the load queue.
void GatedProjectEmitter::emitLoads(std::int64_t at, std::int64_t band, std::int64_t y,
                                    std::int64_t e0) {
  const GatedProject& g = m_gated;
  const std::int64_t rb = std::min(g.rows, g.height - y);
  m_ctx.op = g.projectOp;
  // Loaded every band when streamed, else by the first band, just before its gate and x, so
  // the first CONV waits for one block's.
  if (g.streamed || band == 0) {
    m_ctx.loadFlat(LoadSram::Weight, weightsAt(at, e0),
                   m_constants.weightAddress[static_cast<std::size_t>(e0 / g.block)],
                   m_constants.blockWeights);
  }
  m_ctx.op = g.mulOp;
  if (band == 0) {
    // The block's gate once, then doubled in place by the vector unit until it covers the
    // band's pixels: a LOAD with column stride 0 would hold the DDR port for a burst or two
    // per pixel (the gate's run of `block` bytes read again for each). Before the block's x,
    // so that the copies run while x loads.
    const std::int64_t at0 = m_layout.gateAt + m_layout.pixels * e0;
    m_ctx.loadFlat(LoadSram::Input, at0, static_cast<std::uint64_t>(address(g.gate) + e0), g.block);
    for (const isa::Eltwise& copy :
         gateCopies(at0, m_layout.pixels, g.block, m_constants.copyLut)) {
      m_ctx.emit(copy);
    }
  }
  m_ctx.load(LoadSram::Input, xOf(at),
             {address(g.input) + y * g.width * g.channels + e0, rb, g.width, g.block,
              g.width * g.channels, g.channels});
}

/// The current step's gate multiply of block e0 (`count` bytes), into a gated-block slot.
void GatedProjectEmitter::emitMultiply(std::int64_t e0, std::int64_t count) {
  const std::int64_t x = xOf(m_step);
  const std::int64_t gateAt = m_layout.gateAt;
  const std::int64_t pixels = m_layout.pixels;
  isa::Eltwise mul = m_mulBase;
  mul.a_addr = m_gateIsA ? gateAt + pixels * e0 : x;
  mul.b_addr = m_gateIsA ? x : gateAt + pixels * e0;
  mul.out_addr = m_layout.pAt[static_cast<std::size_t>(m_step % 2)];
  mul.out_buf = 1;
  // Beside the previous block's project CONV: it reads the other gated-block slot.
  mul.overlap = 1;
  mul.param_addr = m_constants.mulParameters;
  mul.lut_addr = m_constants.mulParameters + 24;
  mul.count = count;
  m_ctx.emit(mul);
}

/// The current step's project CONV of block e0 over the band's `rb` rows, accumulating the
/// blocks; the last one writes the band to the output SRAM at `out` (or, with an add, to the
/// input SRAM for it).
void GatedProjectEmitter::emitProject(std::int64_t band, std::int64_t rb, std::int64_t e0,
                                      std::int64_t out) {
  const GatedProject& g = m_gated;
  const bool last = e0 + g.block == g.channels;
  const std::int64_t weights = weightsAt(m_step, e0);
  m_ctx.op = g.projectOp;
  isa::Conv project;
  const auto& p = g.project->params;
  project.in_zp = p.inputZeroPoint;
  project.out_zp = p.output.zeroPoint;
  project.clip_lo = p.output.clipLo;
  project.clip_hi = p.output.clipHi;
  project.double_round = p.output.rounding == golden::Rounding::Double ? 1 : 0;
  project.kh = project.kw = project.sh = project.sw = project.dh = project.dw = 1;
  project.inp_addr = m_layout.pAt[static_cast<std::size_t>(m_step % 2)];
  project.wgt_addr = weights;
  project.param_addr = m_constants.projectParameters;
  project.lut_addr = m_constants.projectParameters + kChannelRecordBytes * g.outputChannels;
  project.out_addr = g.add != nullptr ? m_layout.qAt[static_cast<std::size_t>(band % 2)] : out;
  project.out_buf = g.add != nullptr ? 1 : 0;
  project.acc_addr = 0;
  project.acc_init = e0 == 0 ? 1 : 0;
  project.finalize = last ? 1 : 0;
  project.use_lut = p.output.lut && last ? 1 : 0;
  project.out_h = rb;
  project.out_w = g.width;
  project.in_w = g.width;
  project.in_c = g.block;
  project.out_c = g.outputChannels;
  m_ctx.emit(project);
}

/// Band `band` (rows from y): per block its multiply, its project, the next step's loads and
/// what is due after a project; then the band's store, or its add (and store) made due.
void GatedProjectEmitter::emitBand(std::int64_t band, std::int64_t y) {
  const GatedProject& g = m_gated;
  const std::int64_t rb = std::min(g.rows, g.height - y);
  const std::int64_t out = (band % 2) * m_layout.half;
  const std::int64_t count = rb * g.width * g.block;
  for (std::int64_t e0 = 0; e0 < g.channels; e0 += g.block, ++m_step) {
    const bool last = e0 + g.block == g.channels;
    emitMultiply(e0, count);
    emitProject(band, rb, e0, out);
    if (!last) {
      emitLoads(m_step + 1, band, y, e0 + g.block);
    } else if (y + g.rows < g.height) {
      emitLoads(m_step + 1, band + 1, y + g.rows, 0);
    }
    afterProject();
  }
  if (g.add == nullptr) {
    m_ctx.store(out, tensorRows(m_ctx, m_result, y, rb));
  } else {
    m_addDue = BandTail{y, rb, out, static_cast<std::size_t>(band % 2)};
  }
}

}  // namespace

void lowerGatedProject(LoweringContext& ctx, const GatedProject& gated) {
  // The multiply's and the add's ELTWISE fields and parameter records, as lowered on their own.
  const EltwiseJob mul = eltwiseJob(*gated.mul);
  const std::optional<EltwiseJob> add =
      gated.add != nullptr ? std::optional<EltwiseJob>(eltwiseJob(*gated.add)) : std::nullopt;
  GatedConstants constants = placeConstants(ctx, gated, mul, add);
  ctx.slots.forget();
  GatedProjectEmitter(ctx, gated, std::move(constants), mul.base, add ? add->base : isa::Eltwise{})
      .run();
}

}  // namespace npu::compiler
