// The virtual DDR as a TLM-2.0 target: a read socket for the load engine and a write socket for
// the store engine (RTL npu_top's rd_* and wr_* ports), both over one DdrImage.
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "npu/isa/ddr_image.h"

namespace npu::sim {

/// Either socket may stay unbound (a unit test binds one engine). Serves blocking transports with
/// no added delay: a DMA unit holds the DDR port (DdrPortIf) for
/// its whole instruction and waits the instruction's cycles (docs/timing.md), so the timing stays
/// in the unit; the memory only moves bytes.
class DdrMemory : public sc_core::sc_module {
 public:
  /// Reads (the load engine's rd_req_*/rd_*).
  tlm_utils::simple_target_socket_optional<DdrMemory> rd;
  /// Writes (the store engine's wr_*).
  tlm_utils::simple_target_socket_optional<DdrMemory> wr;

  DdrMemory(const sc_core::sc_module_name& name, isa::DdrImage& image);

 private:
  void transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  unsigned debugTransport(tlm::tlm_generic_payload& payload);
  isa::DdrImage& m_image;
};

}  // namespace npu::sim
