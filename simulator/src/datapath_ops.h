// Per-opcode datapath kernels behind executeDatapath.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>

#include "npu/isa/ddr_image.h"
#include "npu/isa/instruction.h"
#include "npu/simulator/sram_state.h"

namespace npu::sim {

/// The DDR side of LOAD and STORE: reads and writes of contiguous byte runs, one per pixel of
/// `c_bytes` (or per row of pixels, takesWholeRows) (the image itself, or the SystemC DMA units'
/// TLM socket to the DDR model). An access the memory refuses throws DdrBusError.
class DdrAccess {
 public:
  virtual ~DdrAccess() = default;
  virtual void read(std::uint64_t address, std::span<std::uint8_t> out) = 0;
  virtual void write(std::uint64_t address, std::span<const std::uint8_t> in) = 0;
  /// Whether a row of pixels contiguous in DDR may go as one access. The TLM sockets of the timed
  /// model keep one transaction per pixel, as the DMA units issue them to a memory model.
  [[nodiscard]] virtual bool takesWholeRows() const { return false; }
};

/// A transfer the memory behind a DdrAccess refused (a TLM error response); the message says
/// which transfer and what the memory answered.
class DdrBusError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void executeLoad(const isa::Load& load, SramState& sram, DdrAccess& ddr);
void executeStore(const isa::Store& store, const SramState& sram, DdrAccess& ddr);
/// executeDatapath with the DDR reached through `ddr`.
void executeDatapath(const isa::Instruction& instruction, SramState& sram, DdrAccess& ddr,
                     unsigned threads);
/// `threads` > 1 splits a large conv's output rows over that many threads (same results).
void executeConv(const isa::Conv& conv, SramState& sram, unsigned threads);
void executeEltwise(const isa::Eltwise& eltwise, SramState& sram);
void executePool(const isa::Pool& pool, SramState& sram);
void executeNorm(const isa::Norm& norm, SramState& sram);

/// Little-endian int32 from the parameter SRAM.
inline std::int32_t readParam(const std::vector<std::uint8_t>& parameter, std::int64_t address) {
  std::uint32_t value = 0;
  std::memcpy(&value, parameter.data() + address, 4);
  return static_cast<std::int32_t>(value);
}

/// LUT lookup: entry v + 128 of the 256-byte table at `address`.
inline std::int8_t lookup(const std::vector<std::uint8_t>& parameter, std::int64_t address,
                          std::int32_t value) {
  return static_cast<std::int8_t>(parameter[static_cast<std::size_t>(address + value + 128)]);
}

}  // namespace npu::sim
