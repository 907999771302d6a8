// The single DDR port shared by the load and store units, reached through DdrPortIf. Arbitration
// is per instruction: a granted LOAD or STORE holds the port for its whole transfer; requests are
// served in the order of the cycle they were made, and a store wins a tie with a load (it frees an
// output buffer).
#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <vector>

namespace npu::sim {

/// What a DMA unit sees of the DDR: the port, granted per instruction (RTL rd_req_* for the load
/// engine, wr_* for the store engine, one arbiter in npu_control).
class DdrPortIf : public virtual sc_core::sc_interface {
 public:
  enum Requester : std::uint8_t { kLoad = 0, kStore = 1 };
  /// Blocks the calling thread until the port is granted to `who`; false when shut down.
  virtual bool acquire(Requester who) = 0;
  /// Gives the port back.
  virtual void release() = 0;
};

/// The arbiter: a hierarchical channel with a thread of its own.
class DdrPort : public sc_core::sc_module, public DdrPortIf {
 public:
  /// `serveEveryRun`: the arbiter outlives shutdown() and serves again after reset() (TlmNpu);
  /// otherwise its thread returns at shutdown() (one run per simulation).
  explicit DdrPort(const sc_core::sc_module_name& name, bool serveEveryRun = false);

  bool acquire(Requester who) override;
  void release() override;
  /// Releases every waiting requester and refuses further requests (end of the run); without
  /// serveEveryRun, also ends the arbiter.
  void shutdown();
  /// Free, with no request pending, for the next run (no requester may be waiting).
  void reset();
  /// shutdown(), and the arbiter's thread returns also with serveEveryRun.
  void close();
  /// The requester holding the port, or -1 when it is free.
  [[nodiscard]] int owner() const { return m_owner; }

 private:
  void arbitrate();

  struct Request {
    sc_core::sc_time time;
    Requester who;
  };
  std::vector<Request> m_pending;
  bool m_serveEveryRun;
  bool m_busy = false;
  bool m_stopping = false;
  int m_owner = -1;
  sc_core::sc_event m_requested;
  std::array<sc_core::sc_event, 2> m_granted;
};

}  // namespace npu::sim
