// executeDatapath dispatch, and the DMA kernels (LOAD, STORE).
#include "npu/simulator/datapath.h"

#include <algorithm>
#include <cstring>

#include "datapath_ops.h"
#include "npu/support/overloaded.h"

namespace npu::sim {
namespace {

/// DdrAccess straight to the image.
class ImageAccess final : public DdrAccess {
 public:
  explicit ImageAccess(isa::DdrImage& image) : m_image(image) {}
  void read(std::uint64_t address, std::span<std::uint8_t> out) override {
    m_image.read(address, out);
  }
  void write(std::uint64_t address, std::span<const std::uint8_t> in) override {
    m_image.write(address, in);
  }
  [[nodiscard]] bool takesWholeRows() const override { return true; }

 private:
  isa::DdrImage& m_image;
};

}  // namespace

void executeLoad(const isa::Load& load, SramState& sram, DdrAccess& ddr) {
  std::uint8_t* target = nullptr;
  switch (load.buf) {
    case 0:
      target = reinterpret_cast<std::uint8_t*>(sram.input.data());
      break;
    case 1:
      target = reinterpret_cast<std::uint8_t*>(sram.weight.data());
      break;
    default:
      target = sram.parameter.data();
      break;
  }
  const auto c = static_cast<std::size_t>(load.c_bytes);
  const auto rows = static_cast<std::size_t>(load.pad_top + load.y_size + load.pad_bottom);
  const auto cols = static_cast<std::size_t>(load.pad_left + load.x_size + load.pad_right);
  const auto pad = static_cast<std::uint8_t>(load.pad_value);
  std::uint8_t* out = target + load.sram_addr;
  // The padded rows in SRAM: dense, or sram_row_stride apart (then without padding, a rule).
  const std::size_t sramRow =
      load.sram_row_stride != 0 ? static_cast<std::size_t>(load.sram_row_stride) : cols * c;
  // A row of pixels that lie back to back in DDR is one contiguous run on both sides.
  const bool wholeRows = ddr.takesWholeRows() && load.ddr_col_stride == load.c_bytes;
  for (std::size_t y = 0; y < rows; ++y) {
    const bool rowInside = y >= static_cast<std::size_t>(load.pad_top) &&
                           y < static_cast<std::size_t>(load.pad_top + load.y_size);
    if (rowInside && wholeRows) {
      std::uint8_t* row = out + y * sramRow;
      const auto left = static_cast<std::size_t>(load.pad_left);
      const auto inner = static_cast<std::size_t>(load.x_size);
      std::memset(row, pad, left * c);
      ddr.read(static_cast<std::uint64_t>(load.ddr_addr) +
                   (y - load.pad_top) * static_cast<std::uint64_t>(load.ddr_row_stride),
               std::span(row + left * c, inner * c));
      std::memset(row + (left + inner) * c, pad, (cols - left - inner) * c);
      continue;
    }
    for (std::size_t x = 0; x < cols; ++x) {
      std::uint8_t* dst = out + y * sramRow + x * c;
      const bool inside = rowInside && x >= static_cast<std::size_t>(load.pad_left) &&
                          x < static_cast<std::size_t>(load.pad_left + load.x_size);
      if (inside) {
        const std::uint64_t src =
            static_cast<std::uint64_t>(load.ddr_addr) +
            (y - load.pad_top) * static_cast<std::uint64_t>(load.ddr_row_stride) +
            (x - load.pad_left) * static_cast<std::uint64_t>(load.ddr_col_stride);
        ddr.read(src, std::span(dst, c));
      } else {
        std::memset(dst, pad, c);
      }
    }
  }
}

void executeStore(const isa::Store& store, const SramState& sram, DdrAccess& ddr) {
  const auto c = static_cast<std::size_t>(store.c_bytes);
  const auto* in = reinterpret_cast<const std::uint8_t*>(sram.output.data()) + store.sram_addr;
  // The block's rows in SRAM: dense, or sram_row_stride apart.
  const auto rowBytes = static_cast<std::size_t>(store.x_size) * c;
  const std::size_t sramRow =
      store.sram_row_stride != 0 ? static_cast<std::size_t>(store.sram_row_stride) : rowBytes;
  // A row of pixels that go back to back in DDR is one contiguous run on both sides.
  if (ddr.takesWholeRows() && store.ddr_col_stride == store.c_bytes) {
    for (std::int64_t y = 0; y < store.y_size; ++y) {
      ddr.write(static_cast<std::uint64_t>(store.ddr_addr) +
                    static_cast<std::uint64_t>(y * store.ddr_row_stride),
                std::span(in + static_cast<std::size_t>(y) * sramRow, rowBytes));
    }
    return;
  }
  for (std::int64_t y = 0; y < store.y_size; ++y) {
    for (std::int64_t x = 0; x < store.x_size; ++x) {
      const std::uint64_t dst = static_cast<std::uint64_t>(store.ddr_addr) +
                                static_cast<std::uint64_t>(y * store.ddr_row_stride) +
                                static_cast<std::uint64_t>(x * store.ddr_col_stride);
      ddr.write(dst, std::span(in + static_cast<std::size_t>(y) * sramRow +
                                   static_cast<std::size_t>(x) * c,
                               c));
    }
  }
}

void executeDatapath(const isa::Instruction& instruction, SramState& sram, isa::DdrImage& ddr,
                     unsigned threads) {
  ImageAccess access(ddr);
  executeDatapath(instruction, sram, access, threads);
}

void executeDatapath(const isa::Instruction& instruction, SramState& sram, DdrAccess& ddr,
                     unsigned threads) {
  // One lambda per instruction: a new one must say what its datapath does.
  std::visit(Overloaded{
                 [&](const isa::Load& load) { executeLoad(load, sram, ddr); },
                 [&](const isa::Store& store) { executeStore(store, sram, ddr); },
                 [&](const isa::Conv& conv) { executeConv(conv, sram, threads); },
                 [&](const isa::Eltwise& eltwise) { executeEltwise(eltwise, sram); },
                 [&](const isa::Pool& pool) { executePool(pool, sram); },
                 [&](const isa::Norm& norm) { executeNorm(norm, sram); },
                 [](const isa::Sync&) {},  // tokens only: no data moves
                 [](const isa::End&) {},   // stops the fetch unit: no data moves
             },
             instruction);
}

}  // namespace npu::sim
