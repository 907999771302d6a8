// Bus: the platform's interconnect, decoding each address to one target and passing the
// transaction on with the target's own offset.
#pragma once

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <vector>

namespace platform {

class Bus : public sc_core::sc_module {
 public:
  /// Initiators (the CPU, the NPU's system-memory socket) bind here.
  tlm_utils::multi_passthrough_target_socket<Bus> in;
  /// Targets bind here, in the order of their map() calls.
  tlm_utils::multi_passthrough_initiator_socket<Bus> out;

  explicit Bus(const sc_core::sc_module_name& name)
      : sc_core::sc_module(name), in("in"), out("out") {
    in.register_b_transport(this, &Bus::transport);
    in.register_transport_dbg(this, &Bus::debugTransport);
  }

  /// Sends [base, base + size) to the next target bound to `out`, at offset address - base.
  void map(std::uint64_t base, std::uint64_t size) { m_windows.push_back({base, size}); }

 private:
  struct Window {
    std::uint64_t base;
    std::uint64_t size;
  };

  /// The window holding the payload's address, or -1.
  int decode(const tlm::tlm_generic_payload& payload) const {
    const std::uint64_t address = payload.get_address();
    for (std::size_t w = 0; w < m_windows.size(); ++w) {
      if (address >= m_windows[w].base && address - m_windows[w].base < m_windows[w].size) {
        return static_cast<int>(w);
      }
    }
    return -1;
  }
  void transport(int /*initiator*/, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    const int w = decode(payload);
    if (w < 0) {
      payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    const std::uint64_t address = payload.get_address();
    payload.set_address(address - m_windows[static_cast<std::size_t>(w)].base);
    out[w]->b_transport(payload, delay);
    payload.set_address(address);
  }
  unsigned debugTransport(int /*initiator*/, tlm::tlm_generic_payload& payload) {
    const int w = decode(payload);
    if (w < 0) {
      return 0;
    }
    const std::uint64_t address = payload.get_address();
    payload.set_address(address - m_windows[static_cast<std::size_t>(w)].base);
    const unsigned bytes = out[w]->transport_dbg(payload);
    payload.set_address(address);
    return bytes;
  }

  std::vector<Window> m_windows;
};

}  // namespace platform
