// Shared state of the per-op lowerings: the emitter, SRAM slots, and the constant pool.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu/compiler/codegen/codegen.h"
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
};

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
  std::int64_t op = 0;

  void emit(const isa::Instruction& instruction) { emitter.emit(instruction, op); }
  /// A LOAD of `block` into SRAM `buf` (0 input, 1 weight, 2 parameter) at `sramAddress`.
  void load(std::int64_t buf, std::int64_t sramAddress, const DdrBlock& block,
            const LoadPadding& padding = {});
  /// A flat LOAD of `bytes` bytes from DDR into an SRAM (0 input, 1 weight, 2 parameter).
  void loadFlat(std::int64_t buf, std::int64_t sramAddress, std::uint64_t ddrAddress,
                std::int64_t bytes) {
    load(buf, sramAddress, flatBlock(ddrAddress, bytes));
  }
  /// A STORE of the output SRAM at `sramAddress` to `block`.
  void store(std::int64_t sramAddress, const DdrBlock& block);
};

/// Appends little-endian int32s.
void appendInt32(std::vector<std::uint8_t>& blob, std::int32_t value);

/// A band of output rows and the input rows (with padding) it needs.
struct RowBand {
  std::int64_t outRow = 0;
  std::int64_t outRows = 0;
  std::int64_t inRow = 0;  // first real input row read
  std::int64_t inRows = 0;
  std::int64_t padTop = 0;
  std::int64_t padBottom = 0;
};

/// The input band of output rows [outRow, outRow + outRows) of a window op.
RowBand rowBand(std::int64_t outRow, std::int64_t outRows, std::int64_t stride, std::int64_t window,
                std::int64_t padTop, std::int64_t inputHeight);

/// Largest tile extent (rows, columns, channels) the CONV/POOL size fields can carry.
inline constexpr std::int64_t kMaxTileDim = isa::limits::kTileExtent;

/// Throws naming the layer when a full-width tile row cannot be expressed (no column tiling).
void checkTileWidth(const std::string& layer, std::int64_t inputWidth, std::int64_t outputWidth);

/// Largest output-row count whose tile fits: bytes(rows) <= limit; throws naming the layer.
std::int64_t maxRows(const std::string& layer, std::int64_t outHeight,
                     const std::function<bool(std::int64_t)>& fits, const std::string& what);

void lowerConv(LoweringContext& ctx, const QConv& conv);
void lowerEltwise(LoweringContext& ctx, const QOp& op);
void lowerPool(LoweringContext& ctx, const QOp& op);
void lowerDataMovement(LoweringContext& ctx, const QOp& op);

}  // namespace npu::compiler
