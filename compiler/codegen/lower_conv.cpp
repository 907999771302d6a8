// CONV lowering in two steps: planConv cuts the layer into output-channel blocks x tiles of
// output rows x columns x input-channel chunks within the SRAM halves (all limits checked there);
// emitConv emits each tile: a LOAD of the padded input window (halos on both axes), weight and
// parameter LOADs when their SRAM half holds something else, the fused CONV, and a STORE of the
// tile once its last input-channel chunk is done.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <tuple>
#include <utility>

#include "lowering.h"
#include "npu/compiler/target/live_taps.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

struct ConvShape {
  std::int64_t h, w, c, oh, ow, k, kh, kw, groups, cg, kg;
  bool depthwise;
};

/// Taps [ky0, ky0 + kh) x [kx0, kx0 + kw) of a kernel taller or wider than CONV's fields hold:
/// the parts accumulate into the same outputs, as input-channel chunks do.
struct KernelPart {
  std::int64_t ky0, kh, kx0, kw;
};

/// [ob][part kh][part kw][icn] from OHWI [K][kh][kw][Cg]; depthwise: [ob][part kh][part kw].
std::vector<std::uint8_t> weightBlob(const QConv& conv, const ConvShape& s, std::int64_t oc0,
                                     std::int64_t ob, std::int64_t ic0, std::int64_t icn,
                                     const KernelPart& part) {
  std::vector<std::uint8_t> blob;
  const std::int64_t cgStored = s.depthwise ? 1 : s.cg;
  for (std::int64_t o = oc0; o < oc0 + ob; ++o) {
    for (std::int64_t ky = part.ky0; ky < part.ky0 + part.kh; ++ky) {
      for (std::int64_t kx = part.kx0; kx < part.kx0 + part.kw; ++kx) {
        for (std::int64_t i = ic0; i < ic0 + icn; ++i) {
          blob.push_back(static_cast<std::uint8_t>(conv.weights.data[static_cast<std::size_t>(
              ((o * s.kh + ky) * s.kw + kx) * cgStored + i)]));
        }
      }
    }
  }
  return blob;
}

/// `extent` taps cut into the fewest parts of at most `most`, as equal as they come.
std::vector<std::pair<std::int64_t, std::int64_t>> kernelSplit(std::int64_t extent,
                                                               std::int64_t most) {
  const std::int64_t parts = (extent + most - 1) / most;
  std::vector<std::pair<std::int64_t, std::int64_t>> split;
  for (std::int64_t k = 0, first = 0; k < parts; ++k) {
    const std::int64_t size = extent / parts + (k < extent % parts ? 1 : 0);
    split.emplace_back(first, size);
    first += size;
  }
  return split;
}

/// One axis of a conv phase: the window op the CONVs run along it and where its input and output
/// positions are in the tensors (position j is tensor index first + step * j).
struct PhaseAxis {
  WindowAxis axis;
  std::int64_t inFirst = 0, inStep = 1, outFirst = 0, outStep = 1;
  std::int64_t stride = 1, dilation = 1;  ///< the CONV's fields along this axis
  bool split = false;                     ///< a residue class of a dilation past the field
};

/// The phases of one axis. A dilation CONV's field holds is one phase, the axis itself. A larger
/// dilation d is lowered by space-to-batch addressing (as TFLite lowers dilated convs): the
/// outputs o = a + g * i of one residue class a (g = d / gcd(d, stride)) read only input
/// positions r0 + d * j, so each class is a conv with dilation 1 and stride stride / gcd(d,
/// stride) over that sub-grid, gathered and scattered by LOAD and STORE strides.
std::vector<PhaseAxis> axisPhases(std::int64_t input, std::int64_t output, std::int64_t kernel,
                                  std::int64_t stride, std::int64_t dilation, std::int64_t pad,
                                  std::int64_t maxDilation) {
  if (dilation <= maxDilation) {
    return {{{input, output, stride, (kernel - 1) * dilation + 1, pad},
             0,
             1,
             0,
             1,
             stride,
             dilation,
             false}};
  }
  const std::int64_t common = std::gcd(dilation, stride);
  const std::int64_t classes = dilation / common;
  std::vector<PhaseAxis> phases;
  for (std::int64_t a = 0; a < std::min(classes, output); ++a) {
    const std::int64_t outputs = (output - a + classes - 1) / classes;
    const std::int64_t first = a * stride - pad;  // the tensor index tap 0 of output a reads
    const std::int64_t r0 = ((first % dilation) + dilation) % dilation;
    const std::int64_t inputs = r0 < input ? (input - r0 + dilation - 1) / dilation : 0;
    const std::int64_t offset = (first - r0) / dilation;  // sub-grid index of that tap
    phases.push_back({{inputs, outputs, stride / common, kernel, -offset},
                      r0,
                      dilation,
                      a,
                      classes,
                      stride / common,
                      1,
                      true});
  }
  return phases;
}

/// One phase of a conv: the whole conv, or one combination of residue classes of the axes whose
/// dilation is split (axisPhases).
struct ConvPhase {
  PhaseAxis rows;
  PhaseAxis cols;
  std::int64_t padRight = 0;     ///< of an axis not split: a full-width tile loads whole rows
  std::vector<TileShape> tiles;  ///< per unit
  /// Per unit: whether its full-width tiles load the whole padded row, as row bands always did
  /// (the axis is not split and one such row band fits); otherwise every tile loads its window.
  std::vector<bool> wholeRows;

  /// The padded input row: the input columns of a full-width tile loading whole rows.
  [[nodiscard]] std::int64_t fullCols() const {
    return cols.axis.padBefore + cols.axis.input + padRight;
  }
  /// The input columns of a tile of `outCols` output columns starting at `out0`.
  [[nodiscard]] AxisSpan colSpan(std::int64_t out0, std::int64_t outCols, bool whole) const {
    if (whole && outCols == cols.axis.output) {
      return {0, outCols, 0, cols.axis.input, cols.axis.padBefore, padRight};
    }
    return cols.axis.at(out0, outCols);
  }
  [[nodiscard]] std::int64_t inputCols(std::int64_t outCols, bool whole) const {
    return whole && outCols == cols.axis.output ? fullCols() : cols.axis.span(outCols);
  }
};

/// How a conv is cut into tiles, decided before anything is emitted: work units (an
/// output-channel block of one group, or a block of depthwise channels), the input-channel chunk
/// accumulated per CONV, the phases, and per unit and phase the tile of output rows x columns.
struct ConvPlan {
  ConvShape s{};
  std::int64_t icChunk = 0;
  struct Unit {
    std::int64_t ic0, icCount, oc0, ocCount;
    std::int64_t chunks;  ///< input-channel chunks accumulated into one tile
  };
  std::vector<Unit> units;
  std::vector<ConvPhase> phases;
  /// Kernel parts, the largest first: one unless the kernel is taller or wider than CONV's
  /// fields; parts accumulate like input-channel chunks.
  std::vector<KernelPart> parts;
  /// The first live tap per axis (liveTaps): parts and phases cover the live taps only.
  std::int64_t tapY0 = 0;
  std::int64_t tapX0 = 0;
  /// Accumulation steps of a unit's tile: its input-channel chunks times the kernel parts.
  [[nodiscard]] std::int64_t steps(const Unit& unit) const {
    return unit.chunks * static_cast<std::int64_t>(parts.size());
  }
};

/// The window op of kernel taps [k0, k0 + n) along `a`: the part's first tap shifts the window.
WindowAxis partAxis(const PhaseAxis& a, std::int64_t k0, std::int64_t n) {
  return {a.axis.input, a.axis.output, a.axis.stride, (n - 1) * a.dilation + 1,
          a.axis.padBefore - k0 * a.dilation};
}

/// `n` halved, kept a multiple of `unit` (the MAC array's rows or columns) while above it.
std::int64_t shrink(std::int64_t n, std::int64_t unit) {
  return n > unit ? std::max(unit, (n / 2) / unit * unit) : std::max<std::int64_t>(1, n / 2);
}

/// The planes, kernel and groups of `conv`.
ConvShape convShape(const LoweringContext& ctx, const QConv& conv) {
  const auto& in = ctx.graph.tensors[conv.input].shape;
  const auto& out = ctx.graph.tensors[conv.output].shape;
  const auto& p = conv.params;
  ConvShape s{};
  s.h = in[1];
  s.w = in[2];
  s.c = in[3];
  s.oh = out[1];
  s.ow = out[2];
  s.k = out[3];
  s.kh = conv.weights.shape[1];
  s.kw = conv.weights.shape[2];
  s.groups = p.groups;
  s.cg = s.c / s.groups;
  s.kg = s.k / s.groups;
  s.depthwise = s.groups == s.c && s.groups == s.k;
  return s;
}

/// Plans the live taps, kernel parts and phases; returns whether live taps trim the columns.
bool planPartsAndPhases(const QConv& conv,
                        const std::optional<std::pair<PhaseAxis, PhaseAxis>>& mapped,
                        ConvPlan& plan) {
  const ConvShape& s = plan.s;
  const auto& p = conv.params;
  // Only the live taps: a kernel trimmed to them is the same conv (the dead taps read the zero
  // point), and one live tap needs no dilation.
  const auto [tapY0, liveH] =
      mapped ? std::pair<std::int64_t, std::int64_t>{0, s.kh}
             : liveTaps(s.h, s.oh, s.kh, p.strides[0], p.dilations[0], p.pads[0]);
  const auto [tapX0, liveW] =
      mapped ? std::pair<std::int64_t, std::int64_t>{0, s.kw}
             : liveTaps(s.w, s.ow, s.kw, p.strides[1], p.dilations[1], p.pads[1]);
  plan.tapY0 = tapY0;
  plan.tapX0 = tapX0;
  const bool trimmedCols = tapX0 != 0 || liveW != s.kw;
  const std::int64_t dilationH = liveH == 1 ? 1 : p.dilations[0];
  const std::int64_t dilationW = liveW == 1 ? 1 : p.dilations[1];
  for (const auto& [ky0, kh] : kernelSplit(liveH, isa::limits::kConvKernelH)) {
    for (const auto& [kx0, kw] : kernelSplit(liveW, isa::limits::kConvKernelW)) {
      plan.parts.push_back({tapY0 + ky0, kh, tapX0 + kx0, kw});
    }
  }
  if (mapped) {
    plan.phases.push_back({mapped->first, mapped->second, 0, {}, {}});
  }
  for (const PhaseAxis& rowPhase :
       mapped ? std::vector<PhaseAxis>{}
              : axisPhases(s.h, s.oh, liveH, p.strides[0], dilationH,
                           p.pads[0] - tapY0 * p.dilations[0], isa::limits::kConvDilationH)) {
    for (const PhaseAxis& colPhase :
         axisPhases(s.w, s.ow, liveW, p.strides[1], dilationW, p.pads[1] - tapX0 * p.dilations[1],
                    isa::limits::kConvDilationW)) {
      plan.phases.push_back({rowPhase, colPhase, p.pads[3], {}, {}});
    }
  }
  return trimmedCols;
}

/// What planConv's unit and tile steps share: the largest kernel part and its window over the
/// first phase, the MAC array, and the SRAM halves as error messages name them.
struct ConvSizes {
  std::int64_t partKh = 0, partKw = 0, partTaps = 0;
  bool kernelParts = false;
  bool trimmedCols = false;  ///< the live taps trim the kernel's columns
  std::int64_t effKh = 0, effKw = 0, window = 0;
  std::int64_t rows = 0, cols = 0;  ///< the MAC array's
  std::int64_t lutBytes = 0;
  std::string capacity;
};

/// The ConvSizes of `plan` once its parts and phases are planned.
ConvSizes convSizes(const LoweringContext& ctx, const QConv& conv, const ConvPlan& plan,
                    bool trimmedCols) {
  ConvSizes z;
  z.partKh = plan.parts.front().kh;
  z.partKw = plan.parts.front().kw;
  z.partTaps = z.partKh * z.partKw;
  z.kernelParts = plan.parts.size() > 1;
  z.trimmedCols = trimmedCols;
  const ConvPhase& whole = plan.phases.front();
  z.effKh = partAxis(whole.rows, 0, z.partKh).window;
  z.effKw = partAxis(whole.cols, 0, z.partKw).window;
  z.window = z.effKh * z.effKw;
  z.rows = ctx.config.macRows;
  z.cols = ctx.config.macCols;
  z.lutBytes = conv.params.output.lut ? 256 : 0;
  z.capacity =
      fmt::format("input half {} B, output half {} B, weight half {} B", ctx.slots.inputBytes(),
                  ctx.slots.outputBytes(), ctx.slots.weightBytes());
  return z;
}

/// Plans the work units of a depthwise conv: blocks of channels.
void planDepthwiseUnits(const LoweringContext& ctx, const std::string& name, const ConvSizes& z,
                        ConvPlan& plan) {
  // Channel blocks whose full-width band of one output row fits, as row bands always had;
  // where not even one channel's does, blocks whose one output pixel fits (column tiles).
  const ConvShape& s = plan.s;
  const ConvPhase& whole = plan.phases.front();
  const std::int64_t partTaps = z.partTaps, effKh = z.effKh, window = z.window, cols = z.cols;
  const std::int64_t lutBytes = z.lutBytes;
  const bool kernelParts = z.kernelParts;
  const std::string& capacity = z.capacity;
  const std::int64_t fullCols =
      whole.cols.split ? whole.cols.axis.span(whole.cols.axis.output) : whole.fullCols();
  const std::int64_t fullOut = whole.cols.axis.output;
  auto constantsFit = [&](std::int64_t n) {
    return n * partTaps <= ctx.slots.weightBytes() &&
           12 * n + lutBytes <= ctx.slots.parameterBytes();
  };
  bool band = true;
  auto fits = [&](std::int64_t n) {
    return constantsFit(n) &&
           (band ? effKh * fullCols * n <= ctx.slots.inputBytes() &&
                       fullOut * n <= ctx.slots.outputBytes() && fullCols <= kMaxTileDim
                 : window * n <= ctx.slots.inputBytes() && n <= ctx.slots.outputBytes());
  };
  std::int64_t cb = std::min(s.c, kMaxTileDim);
  while (cb > 1 && !fits(cb)) {
    cb = cb > cols ? std::max(cols, (cb / 2) / cols * cols) : cb / 2;
  }
  if (!fits(cb)) {
    band = false;
    cb = std::min(s.c, kMaxTileDim);
    while (cb > 1 && !fits(cb)) {
      cb = cb > cols ? std::max(cols, (cb / 2) / cols * cols) : cb / 2;
    }
  }
  while (kernelParts && cb > 1 && cb > ctx.slots.accumulatorEntries()) {
    cb = cb > cols ? std::max(cols, (cb / 2) / cols * cols) : cb / 2;
  }
  if (!fits(cb) || (kernelParts && cb > ctx.slots.accumulatorEntries())) {
    fail(ErrorKind::Unsupported, "layer '{}': SRAM too small for one depthwise channel ({})", name,
         capacity);
  }
  for (std::int64_t c0 = 0; c0 < s.c; c0 += cb) {
    plan.units.push_back({c0, std::min(cb, s.c - c0), c0, std::min(cb, s.c - c0), 1});
  }
  plan.icChunk = cb;
}

/// Plans the work units of a dense or grouped conv: output-channel blocks and the input chunk.
void planGroupedUnits(const LoweringContext& ctx, const std::string& name, const ConvSizes& z,
                      ConvPlan& plan) {
  const ConvShape& s = plan.s;
  const std::int64_t partTaps = z.partTaps, window = z.window, rows = z.rows, cols = z.cols;
  const std::int64_t lutBytes = z.lutBytes;
  const bool kernelParts = z.kernelParts;
  const std::string& capacity = z.capacity;
  std::int64_t& icChunk = plan.icChunk;
  std::int64_t ob = std::min(s.kg, kMaxTileDim);
  icChunk = std::min(s.cg, kMaxTileDim);
  auto weightsFit = [&](std::int64_t o, std::int64_t i) {
    return o * partTaps * i <= ctx.slots.weightBytes() &&
           12 * o + lutBytes <= ctx.slots.parameterBytes();
  };
  while (!weightsFit(ob, icChunk) && ob > std::min(cols, s.kg)) {
    ob = std::max(std::min(cols, s.kg), (ob / 2 + cols - 1) / cols * cols);
    if (ob >= s.kg) {
      ob = std::min(cols, s.kg);
    }
  }
  while (!weightsFit(ob, icChunk) && icChunk > 1) {
    icChunk = icChunk > rows ? std::max(rows, (icChunk / 2) / rows * rows) : icChunk / 2;
  }
  while (!weightsFit(ob, icChunk) && ob > 1) {
    ob = shrink(ob, cols);
  }
  if (!weightsFit(ob, icChunk)) {
    fail(ErrorKind::Unsupported, "layer '{}': SRAM too small for one output channel's weights ({})",
         name, capacity);
  }
  // One output pixel: its window of the chunk in the input half, its channels in the output
  // half and, when chunks accumulate, in the accumulator.
  for (;;) {
    const bool split = icChunk < s.cg || kernelParts;
    if (window * icChunk > ctx.slots.inputBytes() && icChunk > 1) {
      icChunk = shrink(icChunk, rows);
    } else if ((ob > ctx.slots.outputBytes() || (split && ob > ctx.slots.accumulatorEntries())) &&
               ob > 1) {
      ob = shrink(ob, cols);
    } else {
      break;
    }
  }
  if (window * icChunk > ctx.slots.inputBytes() || ob > ctx.slots.outputBytes() ||
      ((icChunk < s.cg || kernelParts) && ob > ctx.slots.accumulatorEntries())) {
    fail(ErrorKind::Unsupported, "layer '{}': SRAM too small for one output pixel ({})", name,
         capacity);
  }
  for (std::int64_t g = 0; g < s.groups; ++g) {
    for (std::int64_t o = 0; o < s.kg; o += ob) {
      plan.units.push_back(
          {g * s.cg, s.cg, g * s.kg + o, std::min(ob, s.kg - o), (s.cg + icChunk - 1) / icChunk});
    }
  }
}

/// Plans the tile of output rows x columns of every phase and unit.
void planTiles(const LoweringContext& ctx, const std::string& name, const ConvSizes& z,
               ConvPlan& plan) {
  // Tiles: as many output rows x columns as the input and output halves (and, when input-channel
  // chunks accumulate, the accumulator) hold; full-width row bands where one row fits, column
  // tiles chosen by the cost model where it does not.
  const ConvShape& s = plan.s;
  const std::int64_t partKh = z.partKh, partKw = z.partKw, partTaps = z.partTaps;
  const std::int64_t rows = z.rows, cols = z.cols;
  const bool kernelParts = z.kernelParts, trimmedCols = z.trimmedCols;
  const std::int64_t icChunk = plan.icChunk;
  const auto& config = ctx.config;
  for (ConvPhase& phase : plan.phases) {
    // Tiles are planned for the largest kernel part.
    const WindowAxis rowAxis = partAxis(phase.rows, 0, partKh);
    const WindowAxis colAxis = partAxis(phase.cols, 0, partKw);
    for (const ConvPlan::Unit& unit : plan.units) {
      const std::int64_t chunkWidth = s.depthwise ? unit.icCount : std::min(icChunk, unit.icCount);
      const std::int64_t ocn = unit.ocCount;
      // Whole padded rows for full-width tiles where one such band fits (the programs row
      // bands always gave); the window of the tile otherwise.
      const bool whole = !phase.cols.split && !kernelParts && !trimmedCols &&
                         phase.fullCols() <= kMaxTileDim &&
                         rowAxis.span(1) * phase.fullCols() * chunkWidth <= ctx.slots.inputBytes();
      phase.wholeRows.push_back(whole);
      auto fits = [&](std::int64_t r, std::int64_t c) {
        const std::int64_t inCols =
            whole && c == colAxis.output ? phase.fullCols() : colAxis.span(c);
        return inCols <= kMaxTileDim &&
               rowAxis.span(r) * inCols * chunkWidth <= ctx.slots.inputBytes() &&
               r * c * ocn <= ctx.slots.outputBytes() &&
               (plan.steps(unit) == 1 || r * c * ocn <= ctx.slots.accumulatorEntries());
      };
      const double weightLoad = plan.steps(unit) > 2
                                    ? static_cast<double>(plan.steps(unit)) *
                                          dmaCycles(config, 1, 1, ocn * partTaps * chunkWidth, true)
                                    : 0.0;
      // Rows of a tile are contiguous in DDR only with every channel of unsplit rows.
      const bool contiguous = chunkWidth == s.c && !phase.cols.split;
      auto tileCost = [&](std::int64_t r, std::int64_t c) {
        const double macs = s.depthwise
                                ? static_cast<double>(r * c * ((ocn + cols - 1) / cols) *
                                                      ((partTaps + rows - 1) / rows))
                                : static_cast<double>(r * c * ((ocn + cols - 1) / cols) * partTaps *
                                                      ((chunkWidth + rows - 1) / rows));
        const double compute = static_cast<double>(plan.steps(unit)) * (macs + 4);
        const double load =
            static_cast<double>(plan.steps(unit)) *
            dmaCycles(config, rowAxis.span(r),
                      whole && c == colAxis.output ? phase.fullCols() : colAxis.span(c), chunkWidth,
                      contiguous);
        const double store = dmaCycles(config, r, c, ocn, ocn == s.k && !phase.cols.split);
        return std::max(compute, load + store + weightLoad);
      };
      phase.tiles.push_back(chooseTile(
          name, rowAxis.output, colAxis.output, fits,
          [&](std::int64_t r, std::int64_t c) {
            return planeCost(rowAxis.output, colAxis.output, {r, c}, tileCost);
          },
          z.capacity));
    }
  }
}

/// Plans `conv`; with `mapped` the conv runs over that one phase (rows, columns) instead of its
/// own: no padding, dilation 1, every tap live (lowerMappedConv).
ConvPlan planConv(const LoweringContext& ctx, const QConv& conv,
                  const std::optional<std::pair<PhaseAxis, PhaseAxis>>& mapped = std::nullopt) {
  const auto& p = conv.params;
  ConvPlan plan;
  plan.s = convShape(ctx, conv);
  const std::string& name = conv.name;
  // Dilations past CONV's field become phases of dilation 1 (space-to-batch addressing), and
  // kernels past it parts that accumulate.
  if (!isa::limits::convWindowFits(1, 1, p.strides[0], p.strides[1], 1, 1)) {
    fail(ErrorKind::Unsupported, "layer '{}': stride must be at most {} on the NPU", name,
         isa::limits::kConvStrideH);
  }
  const bool trimmedCols = planPartsAndPhases(conv, mapped, plan);
  const ConvSizes sizes = convSizes(ctx, conv, plan, trimmedCols);
  if (sizes.effKw > kMaxTileDim) {
    fail(ErrorKind::Unsupported, "layer '{}': a window {} columns wide exceeds a tile's {}", name,
         sizes.effKw, kMaxTileDim);
  }
  // Work units: (input channel range, output channel range) per group or channel block, sized so
  // that one output pixel's working set fits: its window of input channels, its weights and
  // parameters, its output (and partial sums) bytes.
  if (plan.s.depthwise) {
    planDepthwiseUnits(ctx, name, sizes, plan);
  } else {
    planGroupedUnits(ctx, name, sizes, plan);
  }
  planTiles(ctx, name, sizes, plan);
  return plan;
}

/// Where one phase of a conv reads and writes in DDR: position j of the phase's input (output)
/// axis is tensor row or column first + step * j.
struct PhaseAddressing {
  std::int64_t inRowStride = 0, inColStride = 0, inBase = 0;
  std::int64_t outRowStride = 0, outColStride = 0, outBase = 0;
};

/// A tile of a phase: output rows [oy, oy + rows) x columns [ox, ox + cols).
struct ConvTile {
  std::int64_t oy = 0, rows = 0, ox = 0, cols = 0;
};

/// One accumulation step of a tile (index = part * chunks + chunk): the input it loads to
/// `inputSram`, input channels [ic0, ic0 + icn).
struct ConvStep {
  std::int64_t index;
  const KernelPart& part;
  std::int64_t chunk;
  AxisSpan rowSpan, colSpan;
  std::int64_t inputSram, ic0, icn;
};

/// Emits one work unit of a ConvPlan: its constants, then per phase its tiles. The members hold
/// what the unit's tiles share, among them whether its parameter block still has to load.
class ConvUnitEmitter {
 public:
  ConvUnitEmitter(LoweringContext& ctx, const QConv& conv, const ConvPlan& plan,
                  const ConvPlan::Unit& unit, bool prefetch)
      : m_ctx(ctx),
        m_conv(conv),
        m_plan(plan),
        m_unit(unit),
        m_unitIndex(static_cast<std::size_t>(&unit - plan.units.data())),
        m_kernelParts(plan.parts.size() > 1),
        m_prefetch(prefetch) {}

  void addConstants();
  void emitPhase(const ConvPhase& phase);

 private:
  [[nodiscard]] PhaseAddressing addressing(const ConvPhase& phase) const;
  void emitTile(const ConvPhase& phase, const PhaseAddressing& at, const ConvTile& tile);
  void emitStep(const ConvPhase& phase, const PhaseAddressing& at, const ConvTile& tile,
                std::int64_t index, std::int64_t& outputSram);
  std::int64_t emitStepLoads(const PhaseAddressing& at, const ConvStep& step);
  [[nodiscard]] isa::Conv stepConv(const ConvPhase& phase, const ConvStep& step,
                                   std::int64_t weightSram, std::int64_t outputSram) const;

  LoweringContext& m_ctx;
  const QConv& m_conv;
  const ConvPlan& m_plan;
  const ConvPlan::Unit& m_unit;
  std::size_t m_unitIndex;
  bool m_kernelParts;
  bool m_prefetch;
  bool m_loadParameters = false;
  std::int64_t m_parameterSram = 0;
  std::vector<std::uint8_t> m_parameters;
  std::uint64_t m_parameterAddress = 0;
  /// Per kernel part and input-channel chunk (step = part * chunks + chunk).
  std::vector<std::uint64_t> m_weightAddress;
};

/// Takes the unit's parameter slot, then adds its parameter and weight blobs to the constants.
void ConvUnitEmitter::addConstants() {
  const ConvShape& s = m_plan.s;
  const std::string& name = m_conv.name;
  // The parameter block of this output-channel range.
  const std::string parameterTag = fmt::format("{}/p{}", name, m_unit.oc0);
  m_parameterSram = m_ctx.slots.parameterSlot(parameterTag, m_loadParameters);
  m_parameters = convParameterBlob(m_conv, m_unit.oc0, m_unit.ocCount);
  m_parameterAddress =
      m_ctx.constants.add(fmt::format("{}.params.oc{}", name, m_unit.oc0), m_parameters);
  for (std::size_t part = 0; part < m_plan.parts.size(); ++part) {
    for (std::int64_t chunk = 0; chunk < m_unit.chunks; ++chunk) {
      const std::int64_t ic0 = s.depthwise ? 0 : chunk * m_plan.icChunk;
      const std::int64_t icn = s.depthwise ? 1 : std::min(m_plan.icChunk, m_unit.icCount - ic0);
      const std::string blobName =
          m_kernelParts ? fmt::format("{}.weights.oc{}.ic{}.k{}", name, m_unit.oc0, ic0, part)
                        : fmt::format("{}.weights.oc{}.ic{}", name, m_unit.oc0, ic0);
      m_weightAddress.push_back(m_ctx.constants.add(
          blobName, weightBlob(m_conv, s, m_unit.oc0, m_unit.ocCount, s.depthwise ? 0 : ic0, icn,
                               m_plan.parts[part])));
    }
  }
}

/// Emits the tiles of `phase`: per tile its accumulation steps and its STORE.
void ConvUnitEmitter::emitPhase(const ConvPhase& phase) {
  const TileShape tile = phase.tiles[m_unitIndex];
  const std::int64_t outH = phase.rows.axis.output;
  const std::int64_t outW = phase.cols.axis.output;
  const PhaseAddressing at = addressing(phase);
  for (std::int64_t oy = 0; oy < outH; oy += tile.rows) {
    const std::int64_t tileRows = std::min(tile.rows, outH - oy);
    for (std::int64_t ox = 0; ox < outW; ox += tile.cols) {
      const std::int64_t tileCols = std::min(tile.cols, outW - ox);
      emitTile(phase, at, {oy, tileRows, ox, tileCols});
    }
  }
}

/// The strides and first addresses of `phase` for this unit.
PhaseAddressing ConvUnitEmitter::addressing(const ConvPhase& phase) const {
  const ConvShape& s = m_plan.s;
  const auto inputAddress = static_cast<std::int64_t>(m_ctx.tensors[m_conv.input].address);
  const auto outputAddress = static_cast<std::int64_t>(m_ctx.tensors[m_conv.output].address);
  PhaseAddressing at;
  // Input pixels are s.c bytes apart, or its source's when the input is a slice read in place.
  const std::int64_t inPixel = pixelStride(m_ctx, m_conv.input);
  at.inRowStride = phase.rows.inStep * s.w * inPixel;
  at.inColStride = phase.cols.inStep * inPixel;
  // Output pixels are s.k bytes apart, or a concat's pixel when stored into it by address.
  const std::int64_t outPixel = pixelStride(m_ctx, m_conv.output);
  at.outRowStride = phase.rows.outStep * s.ow * outPixel;
  at.outColStride = phase.cols.outStep * outPixel;
  at.inBase = inputAddress + (phase.rows.inFirst * s.w + phase.cols.inFirst) * inPixel;
  at.outBase =
      outputAddress + (phase.rows.outFirst * s.ow + phase.cols.outFirst) * outPixel + m_unit.oc0;
  return at;
}

/// Emits a tile's accumulation steps, then the STORE of its output.
void ConvUnitEmitter::emitTile(const ConvPhase& phase, const PhaseAddressing& at,
                               const ConvTile& tile) {
  std::int64_t outputSram = 0;
  const std::int64_t steps = m_plan.steps(m_unit);
  for (std::int64_t step = 0; step < steps; ++step) {
    emitStep(phase, at, tile, step, outputSram);
  }
  m_ctx.store(outputSram, {at.outBase + tile.oy * at.outRowStride + tile.ox * at.outColStride,
                           tile.rows, tile.cols, m_unit.ocCount, at.outRowStride, at.outColStride});
}

/// Emits step `index` of a tile, its LOADs and its CONV; the first step sets `outputSram`.
void ConvUnitEmitter::emitStep(const ConvPhase& phase, const PhaseAddressing& at,
                               const ConvTile& tile, std::int64_t index, std::int64_t& outputSram) {
  const ConvShape& s = m_plan.s;
  const KernelPart& part = m_plan.parts[static_cast<std::size_t>(index / m_unit.chunks)];
  const std::int64_t chunk = index % m_unit.chunks;
  const AxisSpan rowSpan =
      partAxis(phase.rows, part.ky0 - m_plan.tapY0, part.kh).at(tile.oy, tile.rows);
  const AxisSpan colSpan =
      m_kernelParts ? partAxis(phase.cols, part.kx0 - m_plan.tapX0, part.kw).at(tile.ox, tile.cols)
                    : phase.colSpan(tile.ox, tile.cols, phase.wholeRows[m_unitIndex]);
  std::int64_t inputSram = 0;
  std::int64_t outSram = 0;
  // Named variables, not a structured binding: clang before 16 cannot capture one.
  std::tie(inputSram, outSram) = m_ctx.slots.nextStep();
  if (index == 0) {
    outputSram = outSram;
  }
  const std::int64_t ic0 = m_unit.ic0 + (s.depthwise ? 0 : chunk * m_plan.icChunk);
  const std::int64_t icn =
      s.depthwise ? m_unit.icCount : std::min(m_plan.icChunk, m_unit.ic0 + m_unit.icCount - ic0);
  const ConvStep step{index, part, chunk, rowSpan, colSpan, inputSram, ic0, icn};
  const std::int64_t weightSram = emitStepLoads(at, step);
  m_ctx.emit(stepConv(phase, step, weightSram, outputSram));
}

/// Emits a step's input, weight and parameter LOADs; returns the weights' SRAM address.
std::int64_t ConvUnitEmitter::emitStepLoads(const PhaseAddressing& at, const ConvStep& step) {
  const ConvShape& s = m_plan.s;
  const auto& p = m_conv.params;
  const std::string& name = m_conv.name;
  const AxisSpan& rowSpan = step.rowSpan;
  const AxisSpan& colSpan = step.colSpan;
  std::vector<std::vector<isa::Instruction>> loads;
  loads.push_back(m_ctx.capture([&] {
    m_ctx.loadTile(
        step.inputSram,
        {at.inBase + rowSpan.in0 * at.inRowStride + colSpan.in0 * at.inColStride + step.ic0,
         rowSpan.inCount, colSpan.inCount, step.icn, at.inRowStride, at.inColStride},
        {rowSpan.padBefore, rowSpan.padAfter, colSpan.padBefore, colSpan.padAfter,
         p.inputZeroPoint});
  }));
  bool loadWeights = false;
  const std::string weightTag =
      m_kernelParts
          ? fmt::format("{}/w{}/{}/k{}", name, m_unit.oc0, step.chunk, step.index / m_unit.chunks)
          : fmt::format("{}/w{}/{}", name, m_unit.oc0, step.chunk);
  const std::int64_t weightSram = m_ctx.slots.weightSlot(weightTag, loadWeights);
  const std::int64_t weightBytes =
      m_unit.ocCount * step.part.kh * step.part.kw * (s.depthwise ? 1 : step.icn);
  if (loadWeights) {
    loads.push_back(
        {makeLoad(LoadSram::Weight, weightSram,
                  flatBlock(m_weightAddress[static_cast<std::size_t>(step.index)], weightBytes))});
  }
  if (m_loadParameters) {
    loads.push_back(
        {makeLoad(LoadSram::Parameter, m_parameterSram,
                  flatBlock(m_parameterAddress, static_cast<std::int64_t>(m_parameters.size())))});
    m_loadParameters = false;
  }
  if (m_prefetch) {
    m_ctx.emitLoadsInReadyOrder(std::move(loads));
  } else {
    for (const std::vector<isa::Instruction>& group : loads) {
      for (const isa::Instruction& load : group) {
        m_ctx.emit(load);
      }
    }
  }
  return weightSram;
}

/// The CONV of a step: acc_init on its tile's first step, finalize (and the LUT) on its last.
isa::Conv ConvUnitEmitter::stepConv(const ConvPhase& phase, const ConvStep& step,
                                    std::int64_t weightSram, std::int64_t outputSram) const {
  const ConvShape& s = m_plan.s;
  const auto& p = m_conv.params;
  const std::int64_t steps = m_plan.steps(m_unit);
  isa::Conv instruction;
  instruction.inp_addr = step.inputSram;
  instruction.wgt_addr = weightSram;
  instruction.out_addr = outputSram;
  instruction.acc_addr = 0;
  instruction.param_addr = m_parameterSram;
  instruction.lut_addr = m_parameterSram + 12 * m_unit.ocCount;
  instruction.out_h = step.rowSpan.outCount;
  instruction.out_w = step.colSpan.outCount;
  instruction.in_w = step.colSpan.padded();
  instruction.in_c = step.icn;
  instruction.out_c = m_unit.ocCount;
  instruction.kh = step.part.kh;
  instruction.kw = step.part.kw;
  instruction.sh = phase.rows.stride;
  instruction.sw = phase.cols.stride;
  instruction.dh = phase.rows.dilation;
  instruction.dw = phase.cols.dilation;
  instruction.in_zp = p.inputZeroPoint;
  instruction.out_zp = p.output.zeroPoint;
  instruction.clip_lo = p.output.clipLo;
  instruction.clip_hi = p.output.clipHi;
  instruction.depthwise = s.depthwise ? 1 : 0;
  instruction.acc_init = step.index == 0 ? 1 : 0;
  instruction.finalize = step.index + 1 == steps ? 1 : 0;
  instruction.use_lut = p.output.lut && instruction.finalize != 0 ? 1 : 0;
  instruction.double_round = p.output.rounding == golden::Rounding::Double ? 1 : 0;
  return instruction;
}

/// Emits `plan`: per unit its constants, then per tile and input-channel chunk the input LOAD,
/// weight and parameter LOADs where their SRAM half holds something else, the CONV, and the
/// tile's STORE.
void emitConv(LoweringContext& ctx, const QConv& conv, const ConvPlan& plan) {
  // Constants whose data is ready load before the inputs still being written (in ready order)
  // where the layer before computes: its work leaves the DDR port idle for them. After a layer
  // that only moves data (a shuffle, a pool, an add) the port has no such slack: loading the
  // weights early would only hold up that layer's STOREs, not end this one sooner.
  const bool prefetch =
      ctx.op < 1 || leavesPortSlack(ctx.graph.ops[static_cast<std::size_t>(ctx.op - 1)]);
  for (const ConvPlan::Unit& unit : plan.units) {
    ConvUnitEmitter emitter(ctx, conv, plan, unit, prefetch);
    emitter.addConstants();
    for (const ConvPhase& phase : plan.phases) {
      emitter.emitPhase(phase);
    }
  }
}

}  // namespace

void lowerConv(LoweringContext& ctx, const QConv& conv) {
  emitConv(ctx, conv, planConv(ctx, conv));
}

void lowerMappedConv(LoweringContext& ctx, const QConv& conv, const MappedConvAxis& rows,
                     const MappedConvAxis& cols) {
  const auto& w = conv.weights.shape;
  auto phase = [](const MappedConvAxis& a, std::int64_t kernel, bool identity) {
    return PhaseAxis{{a.inputs, a.outputs, a.stride, kernel, 0},
                     a.inFirst,
                     1,
                     a.outFirst,
                     a.outStep,
                     a.stride,
                     1,
                     !identity};
  };
  const auto& in = ctx.graph.tensors[conv.input].shape;
  const auto& out = ctx.graph.tensors[conv.output].shape;
  auto identity = [](const MappedConvAxis& a, std::int64_t input, std::int64_t output) {
    return a.inFirst == 0 && a.inputs == input && a.outFirst == 0 && a.outStep == 1 &&
           a.outputs == output;
  };
  emitConv(ctx, conv,
           planConv(ctx, conv,
                    std::pair{phase(rows, w[1], identity(rows, in[1], out[1])),
                              phase(cols, w[2], identity(cols, in[2], out[2]))}));
}

}  // namespace npu::compiler
