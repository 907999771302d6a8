// MemoryBridge: address translation on the way to system memory.
#include "memory_bridge.h"

#include <fmt/format.h>

#include "../datapath_ops.h"

namespace npu::sim {

MemoryBridge::MemoryBridge(const sc_core::sc_module_name& name, std::uint64_t base)
    : sc_core::sc_module(name), rd("rd"), wr("wr"), mem("mem"), m_base(base) {
  for (tlm_utils::simple_target_socket<MemoryBridge>* socket : {&rd, &wr}) {
    socket->register_b_transport(this, &MemoryBridge::transport);
    socket->register_transport_dbg(this, &MemoryBridge::debugTransport);
  }
}

void MemoryBridge::transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const std::uint64_t address = payload.get_address();
  payload.set_address(m_base + address);
  mem->b_transport(payload, delay);
  payload.set_address(address);
}

unsigned MemoryBridge::debugTransport(tlm::tlm_generic_payload& payload) {
  const std::uint64_t address = payload.get_address();
  payload.set_address(m_base + address);
  const unsigned bytes = mem->transport_dbg(payload);
  payload.set_address(address);
  return bytes;
}

void MemoryBridge::read(std::uint64_t address, std::span<std::uint8_t> out) {
  tlm::tlm_generic_payload payload;
  payload.set_command(tlm::TLM_READ_COMMAND);
  payload.set_address(m_base + address);
  payload.set_data_ptr(out.data());
  payload.set_data_length(static_cast<unsigned>(out.size()));
  payload.set_streaming_width(static_cast<unsigned>(out.size()));
  payload.set_byte_enable_ptr(nullptr);
  payload.set_dmi_allowed(false);
  payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  mem->b_transport(payload, delay);
  if (payload.is_response_error()) {
    throw DdrBusError(fmt::format("the memory answered {} to a read of {} bytes at DDR 0x{:x}",
                                  payload.get_response_string(), out.size(), address));
  }
}

}  // namespace npu::sim
