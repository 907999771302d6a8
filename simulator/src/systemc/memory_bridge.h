// MemoryBridge: the NPU's three DDR channels (fetch's instruction reads, the load engine's rd_*,
// the store engine's wr_*) onto the one system-memory initiator socket of a TlmNpu, with the NPU's
// DDR address 0 at a base address of the system's.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <span>

namespace npu::sim {

/// Forwards every transaction unchanged but for its address (DDR address + base), and returns it
/// with the DDR address restored. The memory's annotated delay is passed back to the caller, which
/// does not add it: the cycle formulas already count the DDR's latency and bandwidth.
class MemoryBridge : public sc_core::sc_module {
 public:
  /// The load engine's reads (bound to NpuTop::rd).
  tlm_utils::simple_target_socket<MemoryBridge> rd;
  /// The store engine's writes (bound to NpuTop::wr).
  tlm_utils::simple_target_socket<MemoryBridge> wr;
  /// Towards system memory (bound to TlmNpu::mem).
  tlm_utils::simple_initiator_socket<MemoryBridge> mem;

  MemoryBridge(const sc_core::sc_module_name& name, std::uint64_t base);

  /// Fetch's read of `out.size()` bytes at DDR address `address`, a blocking transport of its own
  /// (the RTL's if_* port); throws DdrBusError when the memory refuses it.
  void read(std::uint64_t address, std::span<std::uint8_t> out);

 private:
  void transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  unsigned debugTransport(tlm::tlm_generic_payload& payload);
  std::uint64_t m_base;
};

}  // namespace npu::sim
