// Shared state of the per-op lowerings: the emitter, SRAM slots, and the constant pool.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fusion_plan.h"
#include "npu/compiler/codegen/codegen.h"
#include "npu/compiler/codegen/shuffle_plan.h"
#include "npu/compiler/codegen/token_emitter.h"
#include "npu/isa/limits.h"

namespace npu::compiler {

/// Constants (weights, parameter records, LUTs) appended after the activation arena.
struct ConstantPool {
  std::uint64_t base = 0;
  /// Every blob starts on a multiple of this (64 bytes or the DDR burst, the larger).
  std::uint64_t alignment = 64;
  std::vector<std::uint8_t> bytes;
  std::vector<isa::Region> regions;

  /// Appends a blob at the next multiple of `alignment` and returns its DDR address.
  std::uint64_t add(const std::string& name, const std::vector<std::uint8_t>& blob);
  /// The DDR address of at least `count` bytes that all hold `value`: what a LOAD with zero
  /// strides reads to fill SRAM with padding its own padding fields cannot express.
  std::uint64_t padRun(std::int8_t value, std::int64_t count);

 private:
  /// Per pad value: the address and length of the longest run added so far.
  std::map<std::int8_t, std::pair<std::uint64_t, std::int64_t>> m_padRuns;
};

/// Each SRAM is split in two halves. Input and output halves alternate every tile step so that a
/// tile's loads overlap the previous tile's compute and store; weight and parameter halves hold
/// tagged contents and are reloaded only when the tag changes.
class SramSlots {
 public:
  explicit SramSlots(const isa::NpuConfig& config);
  std::int64_t inputBytes() const { return m_input; }
  std::int64_t outputBytes() const { return m_output; }
  std::int64_t weightBytes() const { return m_weight; }
  std::int64_t parameterBytes() const { return m_parameter; }
  std::int64_t accumulatorEntries() const { return m_accumulator; }

  /// Advances to the next tile step and returns the input and output base addresses for it.
  std::pair<std::int64_t, std::int64_t> nextStep();

  /// Base address of a half holding `tag`; `load` says whether it must be (re)loaded.
  std::int64_t weightSlot(const std::string& tag, bool& load);
  std::int64_t parameterSlot(const std::string& tag, bool& load);
  /// Forgets what the weight and parameter halves hold: a lowering that placed its own
  /// constants anywhere in those SRAMs (a cascade) calls this, so the next layer reloads.
  void forget();
  /// Alternates between cascades (false, true, false, ...): a cascade places its buffers from
  /// the other end of each SRAM than the one before, so its first loads need not wait for the
  /// previous cascade's last CONVs.
  bool nextCascadeMirrored() { return (m_cascades++ % 2) == 1; }

 private:
  static std::int64_t pick(std::array<std::string, 2>& tags, int& last, std::int64_t half,
                           const std::string& tag, bool& load);
  std::int64_t m_input;
  std::int64_t m_output;
  std::int64_t m_weight;
  std::int64_t m_parameter;
  std::int64_t m_accumulator;
  std::int64_t m_step = 0;
  std::array<std::string, 2> m_weightTags;
  std::array<std::string, 2> m_parameterTags;
  int m_lastWeight = 1;
  int m_lastParameter = 1;
  std::int64_t m_cascades = 0;
};

/// The SRAM a LOAD fills: the values of its `buf` field (isa/instructions.def).
enum class LoadSram : std::int64_t { Input = 0, Weight = 1, Parameter = 2 };
static_assert(static_cast<std::int64_t>(LoadSram::Parameter) == isa::fieldMax<&isa::Load::buf>(),
              "LoadSram lists every SRAM a LOAD's buf field can name");

/// A block of bytes in DDR as LOAD and STORE address it: `rows` x `cols` runs of `bytes`
/// consecutive bytes, the first at `address`, runs `colStride` and rows `rowStride` bytes apart.
struct DdrBlock {
  std::int64_t address = 0;
  std::int64_t rows = 1;
  std::int64_t cols = 1;
  std::int64_t bytes = 0;
  std::int64_t rowStride = 0;
  std::int64_t colStride = 0;
};

/// `bytes` consecutive bytes from `address`.
DdrBlock flatBlock(std::uint64_t address, std::int64_t bytes);

/// Rows [row, row + rows) of channels [c0, c0 + cn) of the NHWC tensor at `address` whose rows
/// are `width` pixels of `channels` channels: the band a conv, pool or store reads or writes.
DdrBlock channelBand(std::uint64_t address, std::int64_t row, std::int64_t rows, std::int64_t width,
                     std::int64_t channels, std::int64_t c0, std::int64_t cn);

/// The padding a LOAD adds around its block, filled with `value`.
struct LoadPadding {
  std::int64_t top = 0;
  std::int64_t bottom = 0;
  std::int64_t left = 0;
  std::int64_t right = 0;
  std::int64_t value = 0;
};

struct LoweringContext {
  const isa::NpuConfig& config;
  const QuantizedGraph& graph;
  const std::vector<TensorPlacement>& tensors;
  TokenEmitter& emitter;
  ConstantPool& constants;
  SramSlots& slots;
  const ShufflePlans& shuffles;
  std::int64_t op = 0;
  /// While set (by capture), emit collects instructions here instead of emitting them.
  std::vector<isa::Instruction>* captured = nullptr;

  void emit(const isa::Instruction& instruction) {
    if (captured != nullptr) {
      captured->push_back(instruction);
    } else {
      emitter.emit(instruction, op);
    }
  }
  /// The instructions `lower` would emit, collected instead of emitted.
  std::vector<isa::Instruction> capture(const std::function<void()>& lower);
  /// Emits groups of LOADs (each kept in its order; the groups touch disjoint SRAM and only read
  /// DDR) in the order their data is ready, by the newest instruction each group would wait for:
  /// the load unit runs its LOADs in order, so none that could run waits behind one that cannot
  /// (a layer's weights behind the input waiting for the previous layer's last STORE).
  void emitLoadsInReadyOrder(std::vector<std::vector<isa::Instruction>> groups);
  /// A LOAD of `block` into SRAM `buf` at `sramAddress`.
  void load(LoadSram buf, std::int64_t sramAddress, const DdrBlock& block,
            const LoadPadding& padding = {});
  /// A flat LOAD of `bytes` bytes from DDR into SRAM `buf`.
  void loadFlat(LoadSram buf, std::int64_t sramAddress, std::uint64_t ddrAddress,
                std::int64_t bytes) {
    load(buf, sramAddress, flatBlock(ddrAddress, bytes));
  }
  /// A STORE of the output SRAM at `sramAddress` to `block`; the block's rows are dense in
  /// SRAM, or `sramRowStride` bytes apart.
  void store(std::int64_t sramAddress, const DdrBlock& block, std::int64_t sramRowStride = 0);
  /// LOADs a padded tile into the input SRAM at `sramAddress`: `block` (rows or cols may be 0:
  /// only padding) framed by `padding`, rows (padding.left + block.cols + padding.right) pixels
  /// of block.bytes apart. One LOAD when the padding fits its fields; padding beyond them, or a
  /// tile of only padding, is filled from a run of pad bytes in DDR (ConstantPool::padRun) by
  /// LOADs with zero strides, before the real part is loaded over it.
  void loadTile(std::int64_t sramAddress, const DdrBlock& block, const LoadPadding& padding);
  /// Fills the first `bytes` bytes of `rows` input-SRAM rows, `rowPitch` bytes apart from
  /// `sramAddress`, with `value`: LOADs into strided SRAM rows re-reading one run of pad bytes,
  /// so a tile's padding columns cost their own bytes, not the whole tile's.
  void fillColumns(std::int64_t sramAddress, std::int64_t rows, std::int64_t rowPitch,
                   std::int64_t bytes, std::int8_t value);
};

/// Whether `op` computes long enough per byte it moves to leave the DDR port idle part of the
/// time (a convolution, a matrix product, a NORM's three passes and serial arithmetic a row):
/// the next layer's constants may load during it. After a layer that only moves data they
/// would only hold up its STOREs, moving port time into its span.
bool leavesPortSlack(const QOp& op);

/// The 256-byte LUT that maps every byte to itself (ELTWISE op 2 maps v to LUT[v + 128]).
std::vector<std::uint8_t> identityLut();

/// A copy of `count` bytes by the vector unit through the identity LUT at parameter SRAM
/// `lutAddress`, from input SRAM `from` to `to` in the input SRAM (`outBuf` 1) or the output
/// SRAM (0); overlapped, to run beside the MAC side's CONVs (the emitter drops that on a
/// conflict).
isa::Eltwise lutCopy(std::int64_t from, std::int64_t to, std::int64_t count, std::int64_t outBuf,
                     std::int64_t lutAddress);

/// The LOAD of `block` into SRAM `buf` at `sramAddress`.
isa::Load makeLoad(LoadSram buf, std::int64_t sramAddress, const DdrBlock& block,
                   const LoadPadding& padding = {});

/// Software pipelining by one tile in emission order: a tile's compute and STORE are emitted
/// after the next tile's LOADs. A LOAD waiting for an earlier layer's STORE gets its SYNC on
/// compute before the previous tile's compute, not after it, so it overlaps that compute (the
/// tiles alternate SRAM halves, so the LOAD never overwrites what that compute reads).
class TileLag {
 public:
  /// Emits the pending tile's compute (after this tile's LOADs were emitted) and keeps `emit`.
  void next(std::function<void()> emit) {
    flush();
    m_pending = std::move(emit);
  }
  /// Emits the pending tile's compute, if any.
  void flush() {
    if (m_pending) {
      std::exchange(m_pending, nullptr)();
    }
  }

 private:
  std::function<void()> m_pending;
};

/// Appends little-endian int32s.
void appendInt32(std::vector<std::uint8_t>& blob, std::int32_t value);

/// The parameter records of `channels` channels of a global average pool over an h x w plane
/// summed by all-ones depthwise CONVs: bias 0 and the pool's reciprocal (single rounding, no
/// zero point: the arithmetic of the golden pool).
std::vector<std::uint8_t> globalSumRecords(std::int64_t h, std::int64_t w, std::int64_t channels);

/// Whether `tensor` is read by exactly one op and is not a graph output: only then can a fused
/// lowering keep it in SRAM instead of storing it.
bool singleUse(const QuantizedGraph& graph, TensorId tensor);

/// Per tensor: the op that makes it and the ops that read it (once per operand); what the
/// by-address and shuffle planners ask of the graph.
struct TensorUses {
  explicit TensorUses(const QuantizedGraph& g);
  /// A graph input or output (its DDR space is pinned).
  [[nodiscard]] bool isGraphTensor(TensorId id) const;
  const QuantizedGraph& graph;
  std::vector<const QOp*> producer;
  std::vector<std::vector<const QOp*>> readers;
};

/// Whether NHWC tensors `a` and `b` have the same rows, columns, scale and zero point: a concat,
/// slice or shuffle moves bytes unchanged, so a tensor stored into another or read in place as
/// another's bytes must share them.
bool sameLayout(const QuantizedGraph& graph, TensorId a, TensorId b);

/// The CONV parameter records {bias, multiplier, shift} of output channels [oc0, oc0 + ob),
/// followed by the 256-byte LUT when the conv has one.
std::vector<std::uint8_t> convParameterBlob(const QConv& conv, std::int64_t oc0, std::int64_t ob);

/// The input one axis of a window op reads for outputs [out0, out0 + outCount): real input
/// positions [in0, in0 + inCount) framed by `padBefore` and `padAfter` padding positions.
/// `inCount` is 0 when those outputs read only padding (then `padBefore` covers the whole span).
struct AxisSpan {
  std::int64_t out0 = 0;
  std::int64_t outCount = 0;
  std::int64_t in0 = 0;
  std::int64_t inCount = 0;
  std::int64_t padBefore = 0;
  std::int64_t padAfter = 0;
  /// Input positions of the padded tile along this axis.
  [[nodiscard]] std::int64_t padded() const { return padBefore + inCount + padAfter; }
};

/// One axis of a window op: `window` is the dilated window extent ((k - 1) * d + 1).
struct WindowAxis {
  std::int64_t input = 0;
  std::int64_t output = 0;
  std::int64_t stride = 1;
  std::int64_t window = 1;
  std::int64_t padBefore = 0;
  /// Padded input positions a tile of `outputs` outputs reads.
  [[nodiscard]] std::int64_t span(std::int64_t outputs) const {
    return (outputs - 1) * stride + window;
  }
  /// The input span of outputs [out0, out0 + count).
  [[nodiscard]] AxisSpan at(std::int64_t out0, std::int64_t count) const;
};

/// Largest tile extent (rows, columns, channels) the CONV/POOL size fields can carry.
inline constexpr std::int64_t kMaxTileDim = isa::limits::kTileExtent;

/// A tile: output rows x output columns.
struct TileShape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};

/// Picks the tile of an `outH` x `outW` output plane. `fits(rows, cols)` says whether a tile
/// fits every SRAM half and field (monotone: a smaller tile of a fitting one fits);
/// `cost(rows, cols)` estimates the cycles of the whole plane tiled that way. A full-width band
/// is taken when one row of it fits (rows as many as fit: the layouts stay contiguous); otherwise
/// the cost model picks among, per tile width, the tallest fitting tile. Throws naming the layer
/// (and `what`) when not even one output pixel fits.
TileShape chooseTile(const std::string& layer, std::int64_t outH, std::int64_t outW,
                     const std::function<bool(std::int64_t, std::int64_t)>& fits,
                     const std::function<double(std::int64_t, std::int64_t)>& cost,
                     const std::string& what);

/// Estimated cycles of one LOAD or STORE of `rows` x `cols` runs of `bytes` (rows contiguous
/// when `rowContiguous`), by docs/timing.md's burst rule with unknown alignment.
double dmaCycles(const isa::NpuConfig& config, std::int64_t rows, std::int64_t cols,
                 std::int64_t bytes, bool rowContiguous);

/// Sums `tileCost(rows, cols)` over the tiles of an `outH` x `outW` plane cut into `shape` tiles
/// (the last row and column of tiles may be smaller).
double planeCost(std::int64_t outH, std::int64_t outW, TileShape shape,
                 const std::function<double(std::int64_t, std::int64_t)>& tileCost);

/// Where a concat's input is stored by address: channels [channelOffset, + its channels) of
/// every pixel of `concatOutput`, whose pixels are `channels` bytes.
struct ConcatSlot {
  TensorId concatOutput = 0;
  std::int64_t channelOffset = 0;
  std::int64_t channels = 0;
  /// The concat's index in the graph's ops: its output lives at least until then.
  std::size_t concatOp = 0;
};

/// Per tensor of `graph`: the concat output it is stored straight into, for every input of a
/// channel concat that only the concat reads, made by a conv or a slice (whose lowerings store
/// at a channel offset) with the concat's scale and zero point; nullopt for every other tensor.
std::vector<std::optional<ConcatSlot>> planConcatByAddress(const QuantizedGraph& graph,
                                                           const ShufflePlans& shuffles,
                                                           const FusionPlan& fusion);

/// Splits stored into a concat (YOLOv8's C2f: cv1's output X, split in two, both halves
/// concatenated first): where consecutive inputs of a channel concat are the channel slices of
/// a conv's output X in order, covering it, and X has no other reader, X's conv stores it into
/// the concat and each slice is its channels there (slots for X and the slices, added to
/// `slots`), read in place by any conv, or add or multiply lowered on its own (not in a fused
/// group of `fusion`), that reads it too; the slices move no bytes.
void planSplitsIntoConcats(const QuantizedGraph& graph, const ShufflePlans& shuffles,
                           const FusionPlan& fusion, std::vector<std::optional<ConcatSlot>>& slots);

/// A channel slice read in place: channels [channelOffset, + its channels) of `source`, pixels
/// `pixelStride` bytes apart (0: the source's channels); or an alias's copy read in place, the
/// source's bytes under another NHWC shape (its own channels as the pixel stride).
struct SliceView {
  TensorId source = 0;
  std::int64_t channelOffset = 0;
  std::int64_t pixelStride = 0;
};

/// Concats whose input lists are prefixes of one root concat's (DenseNet's dense blocks): each
/// such member is a view of the root's first channels (`views`, read by convs only), and an
/// input that only the family reads is stored by its producer into the root (`slots`, with
/// planConcatByAddress's slots). The first member to list an input no producer stores copies
/// it into the root; the others copy nothing (docs/main-job.md, "Concat by address").
struct ConcatFamilies {
  std::vector<std::optional<ConcatSlot>> slots;
  std::vector<std::optional<SliceView>> views;
};
ConcatFamilies planConcatFamilies(const QuantizedGraph& graph, const ShufflePlans& shuffles,
                                  const FusionPlan& fusion);

/// The copy of an alias made in place (docs/main-job.md, "Concat by address"): an alias whose
/// output Y has another NHWC shape than its input X is realized as a row concat of one input
/// holding all of Y's bytes (realize's reshapeCopy). Where both are dense and in no other
/// tensor: when X has a producer that stores it densely (not a concat), only the copy reads it
/// and it is no graph input or output, X's producer stores it straight into Y (a slot at offset
/// 0 with X's own pixel stride, added to `slots`); otherwise, unless Y is a graph output, Y is
/// read where X is (a view with Y's own pixel stride, added to `views`). Either way the copy
/// moves no bytes. Neither is taken for a tensor a channel shuffle reads or writes; the copy
/// moves bytes only when neither is open (Y a graph output and X not storable into it).
void planAliasCopiesInPlace(const QuantizedGraph& graph, const ShufflePlans& shuffles,
                            std::vector<std::optional<ConcatSlot>>& slots,
                            std::vector<std::optional<SliceView>>& views);

/// Per tensor of `graph`: the source it is a view of, for every output of a channel slice (no
/// row or column steps) whose only reader is a conv, of a source that owns its DDR space (not in
/// `concatSlots`, not a view itself); nullopt for every other tensor.
std::vector<std::optional<SliceView>> planSliceViews(
    const QuantizedGraph& graph, const std::vector<std::optional<ConcatSlot>>& concatSlots,
    const ShufflePlans& shuffles);

/// Bytes between consecutive pixels of `tensor` in DDR: its channels, or the channels of the
/// concat it is stored into.
std::int64_t pixelStride(const LoweringContext& ctx, TensorId tensor);

/// Rows [row, row + rows) of all of `tensor`'s channels in DDR, W pixels each: one contiguous run
/// for a dense tensor, runs of its channels `pixelStride` apart when stored into a concat.
DdrBlock tensorRows(const LoweringContext& ctx, TensorId tensor, std::int64_t row,
                    std::int64_t rows);

/// Bytes [at, at + count) of `tensor` in NHWC order (whole pixels where the tensor is stored in
/// a concat's channels): one run for a dense tensor, else count / C runs of its C channels
/// `pixelStride` apart.
DdrBlock tensorPixels(const LoweringContext& ctx, TensorId tensor, std::int64_t at,
                      std::int64_t count);

void lowerConv(LoweringContext& ctx, const QConv& conv);

/// One axis of a conv whose positions are given explicitly: CONV position j (j < outputs) reads
/// tensor positions inFirst + stride * j + tap and writes tensor position outFirst + outStep * j.
struct MappedConvAxis {
  std::int64_t inFirst = 0;
  std::int64_t inputs = 0;  ///< tensor positions from inFirst the CONVs may read
  std::int64_t outputs = 0;
  std::int64_t outFirst = 0;
  std::int64_t outStep = 1;
  std::int64_t stride = 1;
};

/// Lowers `conv` (no padding, dilation 1, kernel within CONV's fields) over the outputs the two
/// axes map, tiled like any conv: the strided scatter of a resize's runs of positions.
void lowerMappedConv(LoweringContext& ctx, const QConv& conv, const MappedConvAxis& rows,
                     const MappedConvAxis& cols);
/// Lowers a linear resize along one axis as two-tap depthwise CONVs (lower_resize.cpp).
void lowerResizeLinear(LoweringContext& ctx, const QResizeLinear& op);
/// Lowers a planned cascade (fusion_plan.h, docs/cascade.md): [expand 1x1] -> depthwise ->
/// project 1x1 band by band, the intermediate tensors kept in the input SRAM.
void lowerCascade(LoweringContext& ctx, const Cascade& cascade);
/// Lowers a planned gate multiply together with the project 1x1 conv after it (and a residual
/// add after that) (docs/cascade.md, "Gated project").
void lowerGatedProject(LoweringContext& ctx, const GatedProject& gated);
/// What one element-wise op asks of the ELTWISE instructions: its operands, the instruction's
/// fixed fields and the parameter record (three multipliers, then the LUT if any).
struct EltwiseJob {
  const std::string* name = nullptr;
  std::vector<TensorId> inputs;
  TensorId output = 0;
  isa::Eltwise base;
  std::vector<std::uint8_t> parameters;
};
/// The job of an add or a multiply: {a_mult, a_shift, b_mult, b_shift, out_mult, out_shift}
/// (a multiply's first four 0) then the output stage's LUT, as ELTWISE reads them; the gated
/// project's multiply and add use them too (lower_eltwise.cpp).
EltwiseJob eltwiseJob(const QAdd& add);
EltwiseJob eltwiseJob(const QSub& sub);
EltwiseJob eltwiseJob(const QMul& mul);
/// ELTWISE over flat chunks (lower_eltwise.cpp): add, mul, and a stand-alone LUT.
void lowerEltwise(LoweringContext& ctx, const QAdd& op);
void lowerEltwise(LoweringContext& ctx, const QSub& op);
void lowerEltwise(LoweringContext& ctx, const QMul& op);
void lowerEltwise(LoweringContext& ctx, const QLut& op);
/// POOL over padded tiles, or a global average as sums on the MAC array (lower_pool.cpp).
void lowerPool(LoweringContext& ctx, const QMaxPool& op);
void lowerPool(LoweringContext& ctx, const QAvgPool& op);
void lowerPool(LoweringContext& ctx, const QGlobalAvgPool& op);
/// Byte moves placed by STORE addressing (lower_data_movement.cpp).
void lowerConcat(LoweringContext& ctx, const QConcat& op);
void lowerSlice(LoweringContext& ctx, const QSlice& op);
void lowerShuffle(LoweringContext& ctx, const QShuffle& op);
void lowerUpsample(LoweringContext& ctx, const QUpsample& op);
void lowerMatMul(LoweringContext& ctx, const QMatMul& op);
void lowerReduce(LoweringContext& ctx, const QReduce& op);
/// NORM (softmax or LayerNorm over channels): whole rows of C bytes per tile.
void lowerNorm(LoweringContext& ctx, const QNorm& op);

/// The lowering of each QOp type, as the op registry names it (target/npu_ops.def): one
/// overload per NPU_QOP row, so codegen's std::visit over a QOp does not compile while a type
/// lacks its row or a row names a lowering that does not exist.
#define NPU_QOP(Type, Lowering)                               \
  inline void lowerOp(LoweringContext& ctx, const Type& op) { \
    Lowering(ctx, op);                                        \
  }
#include "npu/compiler/target/npu_ops.def"
#undef NPU_QOP

}  // namespace npu::compiler
