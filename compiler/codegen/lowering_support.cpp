// Constant pool, SRAM slots and row-band arithmetic shared by the lowerings.
#include <fmt/format.h>

#include <algorithm>

#include "lowering.h"
#include "npu/support/error.h"

namespace npu::compiler {

std::uint64_t ConstantPool::add(const std::string& name, const std::vector<std::uint8_t>& blob) {
  bytes.resize((bytes.size() + alignment - 1) / alignment * alignment);
  const std::uint64_t address = base + bytes.size();
  bytes.insert(bytes.end(), blob.begin(), blob.end());
  isa::Region region;
  region.name = name;
  region.kind = isa::RegionKind::Weights;
  region.base = address;
  region.size = blob.size();
  regions.push_back(region);
  return address;
}

SramSlots::SramSlots(const isa::NpuConfig& config)
    : m_input(config.inputSramBytes / 2),
      m_output(config.outputSramBytes / 2),
      m_weight(config.weightSramBytes / 2),
      m_parameter(config.parameterSramBytes / 2),
      m_accumulator(config.accumulatorSramBytes / 4) {}

std::pair<std::int64_t, std::int64_t> SramSlots::nextStep() {
  const std::int64_t half = m_step++ % 2;
  return {half * m_input, half * m_output};
}

std::int64_t SramSlots::pick(std::array<std::string, 2>& tags, int& last, std::int64_t half,
                             const std::string& tag, bool& load) {
  for (int s = 0; s < 2; ++s) {
    if (tags[static_cast<std::size_t>(s)] == tag) {
      load = false;
      last = s;
      return s * half;
    }
  }
  last = 1 - last;
  tags[static_cast<std::size_t>(last)] = tag;
  load = true;
  return last * half;
}

std::int64_t SramSlots::weightSlot(const std::string& tag, bool& load) {
  return pick(m_weightTags, m_lastWeight, m_weight, tag, load);
}

std::int64_t SramSlots::parameterSlot(const std::string& tag, bool& load) {
  return pick(m_parameterTags, m_lastParameter, m_parameter, tag, load);
}

DdrBlock flatBlock(std::uint64_t address, std::int64_t bytes) {
  return {static_cast<std::int64_t>(address), 1, 1, bytes, 0, 0};
}

DdrBlock channelBand(std::uint64_t address, std::int64_t row, std::int64_t rows, std::int64_t width,
                     std::int64_t channels, std::int64_t c0, std::int64_t cn) {
  return {static_cast<std::int64_t>(address) + row * width * channels + c0,
          rows,
          width,
          cn,
          width * channels,
          channels};
}

void LoweringContext::load(std::int64_t buf, std::int64_t sramAddress, const DdrBlock& block,
                           const LoadPadding& padding) {
  isa::Load load;
  load.buf = buf;
  load.sram_addr = sramAddress;
  load.ddr_addr = block.address;
  load.y_size = block.rows;
  load.x_size = block.cols;
  load.c_bytes = block.bytes;
  load.ddr_row_stride = block.rowStride;
  load.ddr_col_stride = block.colStride;
  load.pad_top = padding.top;
  load.pad_bottom = padding.bottom;
  load.pad_left = padding.left;
  load.pad_right = padding.right;
  load.pad_value = padding.value;
  emit(load);
}

void LoweringContext::store(std::int64_t sramAddress, const DdrBlock& block) {
  isa::Store store;
  store.sram_addr = sramAddress;
  store.ddr_addr = block.address;
  store.y_size = block.rows;
  store.x_size = block.cols;
  store.c_bytes = block.bytes;
  store.ddr_row_stride = block.rowStride;
  store.ddr_col_stride = block.colStride;
  emit(store);
}

void appendInt32(std::vector<std::uint8_t>& blob, std::int32_t value) {
  for (int i = 0; i < 4; ++i) {
    blob.push_back(static_cast<std::uint8_t>(static_cast<std::uint32_t>(value) >> (8 * i)));
  }
}

RowBand rowBand(std::int64_t outRow, std::int64_t outRows, std::int64_t stride, std::int64_t window,
                std::int64_t padTop, std::int64_t inputHeight) {
  RowBand band;
  band.outRow = outRow;
  band.outRows = outRows;
  const std::int64_t first = outRow * stride - padTop;                          // padded -> real
  const std::int64_t last = (outRow + outRows - 1) * stride + window - padTop;  // exclusive
  band.padTop = std::max<std::int64_t>(0, -first);
  band.padBottom = std::max<std::int64_t>(0, last - inputHeight);
  band.inRow = std::max<std::int64_t>(0, first);
  band.inRows = std::min(last, inputHeight) - band.inRow;
  return band;
}

void checkTileWidth(const std::string& layer, std::int64_t inputWidth, std::int64_t outputWidth) {
  if (inputWidth > kMaxTileDim || outputWidth > kMaxTileDim) {
    fail(ErrorKind::Unsupported,
         "layer '{}': a row of {} input / {} output columns exceeds the {} columns a tile can "
         "hold (no column tiling yet)",
         layer, inputWidth, outputWidth, kMaxTileDim);
  }
}

std::int64_t maxRows(const std::string& layer, std::int64_t outHeight,
                     const std::function<bool(std::int64_t)>& fits, const std::string& what) {
  if (!fits(1)) {
    fail(ErrorKind::Unsupported, "layer '{}': SRAM too small for any tile ({})", layer, what);
  }
  // Tile sizes travel in 12-bit instruction fields.
  std::int64_t rows = 1;
  while (rows < std::min<std::int64_t>(outHeight, kMaxTileDim) && fits(rows + 1)) {
    ++rows;
  }
  return rows;
}

}  // namespace npu::compiler
