// Constant pool, SRAM slots and row-band arithmetic shared by the lowerings.
#include <fmt/format.h>
#include <numeric>
#include <utility>

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

std::uint64_t ConstantPool::padRun(std::int8_t value, std::int64_t count) {
  auto it = m_padRuns.find(value);
  if (it != m_padRuns.end() && it->second.second >= count) {
    return it->second.first;
  }
  // A longer run replaces the shorter one for later fills (at least one burst-aligned block).
  const std::int64_t length = std::max<std::int64_t>(count, static_cast<std::int64_t>(alignment));
  const std::uint64_t address = add(fmt::format("pad.{}.{}", static_cast<int>(value), length),
                                    std::vector<std::uint8_t>(static_cast<std::size_t>(length),
                                                              static_cast<std::uint8_t>(value)));
  m_padRuns[value] = {address, length};
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

void LoweringContext::load(LoadSram buf, std::int64_t sramAddress, const DdrBlock& block,
                           const LoadPadding& padding) {
  emit(makeLoad(buf, sramAddress, block, padding));
}

std::vector<isa::Instruction> LoweringContext::capture(const std::function<void()>& lower) {
  std::vector<isa::Instruction> instructions;
  std::vector<isa::Instruction>* const outer = std::exchange(captured, &instructions);
  lower();
  captured = outer;
  return instructions;
}

void LoweringContext::emitLoadsInReadyOrder(std::vector<std::vector<isa::Instruction>> groups) {
  std::vector<std::int64_t> ready;
  for (const std::vector<isa::Instruction>& group : groups) {
    std::int64_t newest = -1;
    for (const isa::Instruction& instruction : group) {
      newest = std::max(newest, emitter.newestProducer(instruction));
    }
    ready.push_back(newest);
  }
  std::vector<std::size_t> order(groups.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ready[a] < ready[b]; });
  for (const std::size_t k : order) {
    for (const isa::Instruction& instruction : groups[k]) {
      emit(instruction);
    }
  }
}

bool leavesPortSlack(const QOp& op) {
  return std::holds_alternative<QConv>(op) || std::holds_alternative<QMatMul>(op) ||
         std::holds_alternative<QNorm>(op);
}

std::vector<std::uint8_t> identityLut() {
  std::vector<std::uint8_t> identity(256);
  std::iota(identity.begin(), identity.end(), std::uint8_t{128});
  return identity;
}

isa::Eltwise lutCopy(std::int64_t from, std::int64_t to, std::int64_t count, std::int64_t outBuf,
                     std::int64_t lutAddress) {
  isa::Eltwise copy;
  copy.op = isa::kEltwiseLut;
  copy.a_addr = from;
  copy.out_addr = to;
  copy.out_buf = outBuf;
  copy.lut_addr = lutAddress;
  copy.count = count;
  copy.clip_lo = -128;
  copy.clip_hi = 127;
  copy.overlap = 1;
  return copy;
}

isa::Load makeLoad(LoadSram buf, std::int64_t sramAddress, const DdrBlock& block,
                   const LoadPadding& padding) {
  isa::Load load;
  load.buf = static_cast<std::int64_t>(buf);
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
  return load;
}

void LoweringContext::store(std::int64_t sramAddress, const DdrBlock& block,
                            std::int64_t sramRowStride) {
  isa::Store store;
  store.sram_addr = sramAddress;
  store.sram_row_stride = sramRowStride;
  store.ddr_addr = block.address;
  store.y_size = block.rows;
  store.x_size = block.cols;
  store.c_bytes = block.bytes;
  store.ddr_row_stride = block.rowStride;
  store.ddr_col_stride = block.colStride;
  emit(store);
}

void LoweringContext::loadTile(std::int64_t sramAddress, const DdrBlock& block,
                               const LoadPadding& padding) {
  const std::int64_t c = block.bytes;
  const std::int64_t rows = padding.top + block.rows + padding.bottom;
  const std::int64_t cols = padding.left + block.cols + padding.right;
  const std::int64_t pitch = cols * c;
  const bool empty = block.rows < 1 || block.cols < 1;
  if (!empty &&
      isa::limits::paddingFits(padding.top, padding.left, padding.bottom, padding.right)) {
    load(LoadSram::Input, sramAddress, block, padding);
    return;
  }
  // Rows [row0, row0 + n) of the tile, all padding: one run of pad bytes per tile row (or per
  // pixel when a row is longer than one LOAD run), read again and again with zero strides.
  auto fill = [&](std::int64_t row0, std::int64_t n) {
    if (n < 1) {
      return;
    }
    const bool wholeRows = pitch <= isa::limits::kLoadRunBytes;
    const std::int64_t run = wholeRows ? pitch : c;
    const auto address =
        static_cast<std::int64_t>(constants.padRun(static_cast<std::int8_t>(padding.value), run));
    for (std::int64_t r = 0; r < n; r += isa::limits::kLoadRows) {
      const std::int64_t m = std::min(n - r, isa::limits::kLoadRows);
      load(LoadSram::Input, sramAddress + (row0 + r) * pitch,
           DdrBlock{address, m, wholeRows ? 1 : cols, run, 0, 0});
    }
  };
  if (empty) {
    fill(0, rows);
    return;
  }
  if (padding.left <= isa::limits::kPadLeft && padding.right <= isa::limits::kPadRight) {
    // Only rows of padding exceed the fields: fill them, then the real rows with their columns
    // of padding.
    LoadPadding rest = padding;
    if (padding.top > isa::limits::kPadTop) {
      fill(0, padding.top);
      rest.top = 0;
    }
    if (padding.bottom > isa::limits::kPadBottom) {
      fill(padding.top + block.rows, padding.bottom);
      rest.bottom = 0;
    }
    load(LoadSram::Input, sramAddress + (padding.top - rest.top) * pitch, block, rest);
    return;
  }
  // Columns of padding beyond the fields: fill the whole tile, then each real row on its own
  // (a one-row LOAD has no row pitch to match).
  fill(0, rows);
  for (std::int64_t r = 0; r < block.rows; ++r) {
    DdrBlock row = block;
    row.address = block.address + r * block.rowStride;
    row.rows = 1;
    load(LoadSram::Input, sramAddress + ((padding.top + r) * cols + padding.left) * c, row);
  }
}

void LoweringContext::fillColumns(std::int64_t sramAddress, std::int64_t rows,
                                  std::int64_t rowPitch, std::int64_t bytes, std::int8_t value) {
  if (rows < 1 || bytes < 1) {
    return;
  }
  const auto address = static_cast<std::int64_t>(constants.padRun(value, bytes));
  for (std::int64_t r = 0; r < rows; r += isa::limits::kLoadRows) {
    isa::Load load;
    load.sram_addr = sramAddress + r * rowPitch;
    load.ddr_addr = address;
    load.y_size = std::min(rows - r, isa::limits::kLoadRows);
    load.x_size = 1;
    load.c_bytes = bytes;
    load.sram_row_stride = rowPitch;
    emit(load);
  }
}

void appendInt32(std::vector<std::uint8_t>& blob, std::int32_t value) {
  for (int i = 0; i < 4; ++i) {
    blob.push_back(static_cast<std::uint8_t>(static_cast<std::uint32_t>(value) >> (8 * i)));
  }
}

bool singleUse(const QuantizedGraph& graph, TensorId tensor) {
  if (std::find(graph.outputs.begin(), graph.outputs.end(), tensor) != graph.outputs.end()) {
    return false;
  }
  std::int64_t readers = 0;
  for (const QOp& op : graph.ops) {
    for (const TensorId input : opInputs(op)) {
      readers += input == tensor ? 1 : 0;
    }
  }
  return readers == 1;
}

TensorUses::TensorUses(const QuantizedGraph& g)
    : graph(g), producer(g.tensors.size(), nullptr), readers(g.tensors.size()) {
  for (const QOp& op : g.ops) {
    producer[opOutput(op)] = &op;
    for (const TensorId id : opInputs(op)) {
      readers[id].push_back(&op);
    }
  }
}

bool TensorUses::isGraphTensor(TensorId id) const {
  return std::find(graph.inputs.begin(), graph.inputs.end(), id) != graph.inputs.end() ||
         std::find(graph.outputs.begin(), graph.outputs.end(), id) != graph.outputs.end();
}

bool sameLayout(const QuantizedGraph& graph, TensorId a, TensorId b) {
  const QTensor& x = graph.tensors[a];
  const QTensor& y = graph.tensors[b];
  return x.shape.size() == 4 && y.shape.size() == 4 && x.shape[1] == y.shape[1] &&
         x.shape[2] == y.shape[2] && x.scale == y.scale && x.zeroPoint == y.zeroPoint;
}

std::vector<std::uint8_t> globalSumRecords(std::int64_t h, std::int64_t w, std::int64_t channels) {
  const golden::QuantizedMultiplier reciprocal = golden::averagePoolMultiplier(h, w);
  std::vector<std::uint8_t> records;
  for (std::int64_t k = 0; k < channels; ++k) {
    appendInt32(records, 0);
    appendInt32(records, reciprocal.multiplier);
    appendInt32(records, reciprocal.shift);
  }
  return records;
}

std::int64_t pixelStride(const LoweringContext& ctx, TensorId tensor) {
  const std::int64_t stride = ctx.tensors[tensor].pixelStride;
  return stride > 0 ? stride : ctx.graph.tensors[tensor].shape[3];
}

DdrBlock tensorRows(const LoweringContext& ctx, TensorId tensor, std::int64_t row,
                    std::int64_t rows) {
  const auto& shape = ctx.graph.tensors[tensor].shape;
  const std::int64_t w = shape[2], c = shape[3], pixel = pixelStride(ctx, tensor);
  const auto first = static_cast<std::int64_t>(ctx.tensors[tensor].address) + row * w * pixel;
  if (pixel == c) {
    return flatBlock(static_cast<std::uint64_t>(first), rows * w * c);
  }
  return {first, rows, w, c, w * pixel, pixel};
}

DdrBlock tensorPixels(const LoweringContext& ctx, TensorId tensor, std::int64_t at,
                      std::int64_t count) {
  const std::int64_t c = ctx.graph.tensors[tensor].shape.back();
  const std::int64_t pixel = pixelStride(ctx, tensor);
  const auto address = static_cast<std::int64_t>(ctx.tensors[tensor].address);
  if (pixel == c) {
    return flatBlock(static_cast<std::uint64_t>(address + at), count);
  }
  if (at % c != 0 || count % c != 0) {
    fail("codegen: bytes [{}, {}) of '{}' are not whole pixels of a tensor stored in a concat", at,
         at + count, ctx.graph.tensors[tensor].name);
  }
  return {address + at / c * pixel, 1, count / c, c, 0, pixel};
}

std::vector<std::uint8_t> convParameterBlob(const QConv& conv, std::int64_t oc0, std::int64_t ob) {
  std::vector<std::uint8_t> blob;
  const auto& p = conv.params;
  for (std::int64_t o = oc0; o < oc0 + ob; ++o) {
    const auto& m =
        p.multipliers.size() == 1 ? p.multipliers[0] : p.multipliers[static_cast<std::size_t>(o)];
    appendInt32(blob, p.bias.empty() ? 0 : p.bias[static_cast<std::size_t>(o)]);
    appendInt32(blob, m.multiplier);
    appendInt32(blob, m.shift);
  }
  if (p.output.lut) {
    for (const std::int8_t v : *p.output.lut) {
      blob.push_back(static_cast<std::uint8_t>(v));
    }
  }
  return blob;
}

void SramSlots::forget() {
  m_weightTags = {};
  m_parameterTags = {};
}

AxisSpan WindowAxis::at(std::int64_t out0, std::int64_t count) const {
  AxisSpan span;
  span.out0 = out0;
  span.outCount = count;
  const std::int64_t first = out0 * stride - padBefore;                        // padded -> real
  const std::int64_t last = (out0 + count - 1) * stride + window - padBefore;  // exclusive
  if (last <= 0 || first >= input) {
    span.padBefore = last - first;  // only padding
    return span;
  }
  span.padBefore = std::max<std::int64_t>(0, -first);
  span.padAfter = std::max<std::int64_t>(0, last - input);
  span.in0 = std::max<std::int64_t>(0, first);
  span.inCount = std::min(last, input) - span.in0;
  return span;
}

double dmaCycles(const isa::NpuConfig& config, std::int64_t rows, std::int64_t cols,
                 std::int64_t bytes, bool rowContiguous) {
  const auto burst = static_cast<double>(config.ddrBurstBytes);
  const double beatsPerBurst = burst / static_cast<double>(config.ddrBytesPerCycle);
  // A run of n bytes at a uniformly random offset touches 1 + (n - 1) / B bursts on average.
  auto runBeats = [&](double n) { return (1.0 + (n - 1.0) / burst) * beatsPerBurst; };
  const double runs = rowContiguous ? static_cast<double>(rows)
                                    : static_cast<double>(rows) * static_cast<double>(cols);
  const double runBytes =
      rowContiguous ? static_cast<double>(cols * bytes) : static_cast<double>(bytes);
  return static_cast<double>(config.ddrLatencyCycles) + runs * runBeats(runBytes);
}

double planeCost(std::int64_t outH, std::int64_t outW, TileShape shape,
                 const std::function<double(std::int64_t, std::int64_t)>& tileCost) {
  const std::int64_t fullRows = outH / shape.rows;
  const std::int64_t fullCols = outW / shape.cols;
  const std::int64_t lastRows = outH % shape.rows;
  const std::int64_t lastCols = outW % shape.cols;
  double total = 0;
  for (const auto& [rows, rowCount] :
       {std::pair{shape.rows, fullRows}, std::pair{lastRows, std::int64_t{lastRows > 0 ? 1 : 0}}}) {
    for (const auto& [cols, colCount] : {std::pair{shape.cols, fullCols},
                                         std::pair{lastCols, std::int64_t{lastCols > 0 ? 1 : 0}}}) {
      if (rowCount > 0 && colCount > 0) {
        total += static_cast<double>(rowCount * colCount) * tileCost(rows, cols);
      }
    }
  }
  return total;
}

TileShape chooseTile(const std::string& layer, std::int64_t outH, std::int64_t outW,
                     const std::function<bool(std::int64_t, std::int64_t)>& fits,
                     const std::function<double(std::int64_t, std::int64_t)>& cost,
                     const std::string& what) {
  if (!fits(1, 1)) {
    fail(ErrorKind::Unsupported, "layer '{}': SRAM too small for one output pixel ({})", layer,
         what);
  }
  const std::int64_t maxH = std::min(outH, kMaxTileDim);
  const std::int64_t maxW = std::min(outW, kMaxTileDim);
  // The tallest fitting tile `cols` wide, given that `upTo` rows are known to be enough.
  auto tallest = [&](std::int64_t cols, std::int64_t upTo) {
    std::int64_t lo = 1;
    std::int64_t hi = upTo;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi + 1) / 2;
      if (fits(mid, cols)) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  };
  if (maxW == outW && fits(1, outW)) {
    return {tallest(outW, maxH), outW};
  }
  // Column tiles: per width the tallest tile (heights only shrink as tiles widen).
  TileShape best{1, 1};
  double bestCost = -1;
  std::int64_t rows = maxH;
  for (std::int64_t cols = 1; cols <= maxW; ++cols) {
    if (!fits(1, cols)) {
      break;
    }
    rows = tallest(cols, rows);
    const double c = cost(rows, cols);
    if (bestCost < 0 || c < bestCost) {
      bestCost = c;
      best = {rows, cols};
    }
  }
  return best;
}

}  // namespace npu::compiler
