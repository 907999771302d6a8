// Footprints of every instruction: which bytes of which memory it reads and writes.
#include "npu/isa/footprint.h"

#include <fmt/format.h>

namespace npu::isa {
namespace {

using u64 = std::uint64_t;

Access contiguous(MemorySpace space, bool write, u64 base, u64 bytes) {
  Access access;
  access.space = space;
  access.write = write;
  access.base = base;
  access.run = bytes;
  return access;
}

MemorySpace loadTarget(std::int64_t buf) {
  switch (buf) {
    case 0:
      return MemorySpace::Input;
    case 1:
      return MemorySpace::Weight;
    default:
      return MemorySpace::Parameter;
  }
}

std::vector<Access> accessesOf(const Load& load) {
  Access ddr;
  ddr.space = MemorySpace::Ddr;
  ddr.base = static_cast<u64>(load.ddr_addr);
  ddr.yCount = static_cast<u64>(load.y_size);
  ddr.yStride = static_cast<u64>(load.ddr_row_stride);
  ddr.xCount = static_cast<u64>(load.x_size);
  ddr.xStride = static_cast<u64>(load.ddr_col_stride);
  ddr.run = static_cast<u64>(load.c_bytes);
  const u64 rows = static_cast<u64>(load.pad_top + load.y_size + load.pad_bottom);
  const u64 cols = static_cast<u64>(load.pad_left + load.x_size + load.pad_right);
  Access sram = contiguous(loadTarget(load.buf), true, static_cast<u64>(load.sram_addr),
                           rows * cols * static_cast<u64>(load.c_bytes));
  if (load.sram_row_stride != 0) {  // unpadded rows of x_size * c_bytes, sram_row_stride apart
    sram.run = static_cast<u64>(load.x_size * load.c_bytes);
    sram.yCount = static_cast<u64>(load.y_size);
    sram.yStride = static_cast<u64>(load.sram_row_stride);
  }
  return {ddr, sram};
}

std::vector<Access> accessesOf(const Store& store) {
  Access ddr;
  ddr.space = MemorySpace::Ddr;
  ddr.write = true;
  ddr.base = static_cast<u64>(store.ddr_addr);
  ddr.yCount = static_cast<u64>(store.y_size);
  ddr.yStride = static_cast<u64>(store.ddr_row_stride);
  ddr.xCount = static_cast<u64>(store.x_size);
  ddr.xStride = static_cast<u64>(store.ddr_col_stride);
  ddr.run = static_cast<u64>(store.c_bytes);
  const u64 rowBytes = static_cast<u64>(store.x_size * store.c_bytes);
  Access sram = contiguous(MemorySpace::Output, false, static_cast<u64>(store.sram_addr),
                           static_cast<u64>(store.y_size) * rowBytes);
  if (store.sram_row_stride != 0) {  // rows of x_size * c_bytes bytes, sram_row_stride apart
    sram.yCount = static_cast<u64>(store.y_size);
    sram.yStride = static_cast<u64>(store.sram_row_stride);
    sram.run = rowBytes;
  }
  return {sram, ddr};
}

std::vector<Access> accessesOf(const Conv& conv) {
  const u64 inH = static_cast<u64>((conv.out_h - 1) * conv.sh + (conv.kh - 1) * conv.dh + 1);
  const u64 outElems = static_cast<u64>(conv.out_h * conv.out_w * conv.out_c);
  const u64 weightBytes =
      static_cast<u64>(conv.out_c * conv.kh * conv.kw * (conv.depthwise != 0 ? 1 : conv.in_c));
  std::vector<Access> accesses = {
      contiguous(MemorySpace::Input, false, static_cast<u64>(conv.inp_addr),
                 inH * static_cast<u64>(conv.in_w * conv.in_c)),
      contiguous(MemorySpace::Weight, false, static_cast<u64>(conv.wgt_addr), weightBytes),
  };
  if (conv.acc_init != 0 || conv.finalize != 0) {
    accesses.push_back(contiguous(MemorySpace::Parameter, false, static_cast<u64>(conv.param_addr),
                                  12 * static_cast<u64>(conv.out_c)));
  }
  if (conv.acc_init == 0) {
    accesses.push_back(contiguous(MemorySpace::Accumulator, false,
                                  4 * static_cast<u64>(conv.acc_addr), 4 * outElems));
  }
  if (conv.finalize != 0) {
    if (conv.use_lut != 0) {
      accesses.push_back(
          contiguous(MemorySpace::Parameter, false, static_cast<u64>(conv.lut_addr), 256));
    }
    // Pixels out_c * (1 + out_gap) bytes apart: out_c-byte runs, one per pixel.
    Access out = contiguous(conv.out_buf != 0 ? MemorySpace::Input : MemorySpace::Output, true,
                            static_cast<u64>(conv.out_addr), outElems);
    if (conv.out_gap != 0) {
      out.yCount = static_cast<u64>(conv.out_h * conv.out_w);
      out.yStride = static_cast<u64>(conv.out_c * (1 + conv.out_gap));
      out.run = static_cast<u64>(conv.out_c);
    }
    accesses.push_back(out);
  } else {
    accesses.push_back(contiguous(MemorySpace::Accumulator, true,
                                  4 * static_cast<u64>(conv.acc_addr), 4 * outElems));
  }
  return accesses;
}

std::vector<Access> accessesOf(const Eltwise& eltwise) {
  const u64 count = static_cast<u64>(eltwise.count);
  std::vector<Access> accesses = {
      contiguous(MemorySpace::Input, false, static_cast<u64>(eltwise.a_addr), count)};
  const bool isLut = eltwise.op == kEltwiseLut;
  if (!isLut) {
    accesses.push_back(
        contiguous(MemorySpace::Input, false, static_cast<u64>(eltwise.b_addr), count));
    accesses.push_back(
        contiguous(MemorySpace::Parameter, false, static_cast<u64>(eltwise.param_addr), 24));
  }
  if (isLut || eltwise.use_lut != 0) {
    accesses.push_back(
        contiguous(MemorySpace::Parameter, false, static_cast<u64>(eltwise.lut_addr), 256));
  }
  accesses.push_back(contiguous(eltwise.out_buf != 0 ? MemorySpace::Input : MemorySpace::Output,
                                true, static_cast<u64>(eltwise.out_addr), count));
  return accesses;
}

std::vector<Access> accessesOf(const Pool& pool) {
  const u64 inH = static_cast<u64>((pool.out_h - 1) * pool.sh + pool.kh);
  return {contiguous(MemorySpace::Input, false, static_cast<u64>(pool.in_addr),
                     inH * static_cast<u64>(pool.in_w * pool.channels)),
          contiguous(MemorySpace::Output, true, static_cast<u64>(pool.out_addr),
                     static_cast<u64>(pool.out_h * pool.out_w * pool.channels))};
}

std::vector<Access> accessesOf(const Norm& norm) {
  const u64 values = static_cast<u64>(norm.rows) * static_cast<u64>(norm.length);
  // Softmax: 256 uint16 exp entries; LayerNorm: the uint64 epsilon term, then one 12-byte
  // record per position (or one for all).
  const u64 records = norm.one_record != 0 ? 1 : static_cast<u64>(norm.length);
  const u64 paramBytes = norm.op == kNormSoftmax ? 512 : 8 + 12 * records;
  return {contiguous(MemorySpace::Input, false, static_cast<u64>(norm.in_addr), values),
          contiguous(MemorySpace::Parameter, false, static_cast<u64>(norm.param_addr), paramBytes),
          contiguous(MemorySpace::Output, true, static_cast<u64>(norm.out_addr), values)};
}

template <typename T>
std::vector<Access> accessesOf(const T& /*sync or end*/) {
  return {};
}

}  // namespace

std::vector<Access> footprint(const Instruction& instruction) {
  return std::visit([](const auto& typed) { return accessesOf(typed); }, instruction);
}

std::string_view memorySpaceName(MemorySpace space) {
  switch (space) {
    case MemorySpace::Input:
      return "input SRAM";
    case MemorySpace::Weight:
      return "weight SRAM";
    case MemorySpace::Parameter:
      return "parameter SRAM";
    case MemorySpace::Output:
      return "output SRAM";
    case MemorySpace::Accumulator:
      return "accumulator SRAM";
    case MemorySpace::Ddr:
      return "DDR";
  }
  return "?";
}

std::uint64_t spaceBytes(const NpuConfig& config, MemorySpace space) {
  switch (space) {
    case MemorySpace::Input:
      return static_cast<u64>(config.inputSramBytes);
    case MemorySpace::Weight:
      return static_cast<u64>(config.weightSramBytes);
    case MemorySpace::Parameter:
      return static_cast<u64>(config.parameterSramBytes);
    case MemorySpace::Output:
      return static_cast<u64>(config.outputSramBytes);
    case MemorySpace::Accumulator:
      return static_cast<u64>(config.accumulatorSramBytes);
    case MemorySpace::Ddr:
      return static_cast<u64>(config.ddrBytes);
  }
  return 0;
}

}  // namespace npu::isa
