// DdrMemory: READ and WRITE transactions on the DDR image.
#include "ddr_memory.h"

#include <span>

namespace npu::sim {

DdrMemory::DdrMemory(const sc_core::sc_module_name& name, isa::DdrImage& image)
    : sc_core::sc_module(name), rd("rd"), wr("wr"), m_image(image) {
  for (tlm_utils::simple_target_socket_optional<DdrMemory>* socket : {&rd, &wr}) {
    socket->register_b_transport(this, &DdrMemory::transport);
    socket->register_transport_dbg(this, &DdrMemory::debugTransport);
  }
}

void DdrMemory::transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& /*delay*/) {
  debugTransport(payload);
}

unsigned DdrMemory::debugTransport(tlm::tlm_generic_payload& payload) {
  const std::span<std::uint8_t> bytes(payload.get_data_ptr(), payload.get_data_length());
  if (payload.get_byte_enable_ptr() != nullptr) {
    payload.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return 0;
  }
  if (payload.get_streaming_width() < payload.get_data_length()) {
    payload.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return 0;
  }
  if (payload.is_read()) {
    m_image.read(payload.get_address(), bytes);
  } else if (payload.is_write()) {
    m_image.write(payload.get_address(), bytes);
  } else {
    payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return 0;
  }
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  return payload.get_data_length();
}

}  // namespace npu::sim
