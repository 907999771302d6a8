// Memory: the platform's DRAM, a TLM-2.0 target over a byte array.
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <cstring>
#include <vector>

namespace platform {

/// `size` bytes from address 0 of its socket (the bus subtracts the base). Serves blocking and
/// debug transports; every access annotates `latency`, as a loosely-timed memory does. An access
/// past the end gets TLM_ADDRESS_ERROR_RESPONSE, a streaming one TLM_BURST_ERROR_RESPONSE; byte
/// enables are honoured.
class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> socket;

  Memory(const sc_core::sc_module_name& name, std::uint64_t size, const sc_core::sc_time& latency)
      : sc_core::sc_module(name), socket("socket"), m_bytes(size), m_latency(latency) {
    socket.register_b_transport(this, &Memory::transport);
    socket.register_transport_dbg(this, &Memory::debugTransport);
  }

 private:
  void transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    if (access(payload) > 0) {
      delay += m_latency;
    }
  }
  unsigned debugTransport(tlm::tlm_generic_payload& payload) { return access(payload); }

  /// Moves the payload's bytes; the bytes moved (0 on an error response).
  unsigned access(tlm::tlm_generic_payload& payload) {
    const std::uint64_t address = payload.get_address();
    const unsigned length = payload.get_data_length();
    if (address > m_bytes.size() || m_bytes.size() - address < length) {
      payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return 0;
    }
    if (payload.get_streaming_width() < length) {
      payload.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
      return 0;
    }
    unsigned char* data = payload.get_data_ptr();
    const unsigned char* enables = payload.get_byte_enable_ptr();
    const unsigned enableLength = payload.get_byte_enable_length();
    for (unsigned b = 0; b < length; ++b) {
      if (enables != nullptr && enables[b % enableLength] != TLM_BYTE_ENABLED) {
        continue;
      }
      if (payload.is_read()) {
        data[b] = m_bytes[address + b];
      } else if (payload.is_write()) {
        m_bytes[address + b] = data[b];
      }
    }
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    return length;
  }

  std::vector<std::uint8_t> m_bytes;
  sc_core::sc_time m_latency;
};

}  // namespace platform
