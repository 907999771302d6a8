// The single DDR port shared by the load and store units. Arbitration is per instruction: a
// granted LOAD or STORE holds the port for its whole transfer; requests are served in the order
// of the cycle they were made, and a store wins a tie with a load (it frees an output buffer).
#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <vector>

namespace npu::sim {

class DdrPort : public sc_core::sc_module {
 public:
  enum Requester : std::uint8_t { kLoad = 0, kStore = 1 };

  explicit DdrPort(const sc_core::sc_module_name& name);

  /// Blocks the calling thread until the port is granted to `who`; false when shut down.
  bool acquire(Requester who);
  /// Ends the arbiter and releases every waiting requester (end of the run).
  void shutdown();
  /// Gives the port back.
  void release();
  /// The requester holding the port, or -1 when it is free.
  [[nodiscard]] int owner() const { return m_owner; }

 private:
  void arbitrate();

  struct Request {
    std::uint64_t cycle;
    Requester who;
  };
  std::vector<Request> m_pending;
  bool m_busy = false;
  bool m_stopping = false;
  int m_owner = -1;
  sc_core::sc_event m_requested;
  std::array<sc_core::sc_event, 2> m_granted;
};

}  // namespace npu::sim
