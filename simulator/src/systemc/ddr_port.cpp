// DdrPort: the arbiter thread settles all activity of the current cycle before it grants, so
// requests made in the same cycle compete however SystemC orders their delta cycles.
#include "ddr_port.h"

#include <algorithm>

namespace npu::sim {

DdrPort::DdrPort(const sc_core::sc_module_name& name, bool serveEveryRun)
    : sc_core::sc_module(name), m_serveEveryRun(serveEveryRun) {
  SC_HAS_PROCESS(DdrPort);
  SC_THREAD(arbitrate);
}

bool DdrPort::acquire(Requester who) {
  m_pending.push_back({sc_core::sc_time_stamp(), who});
  m_requested.notify(sc_core::SC_ZERO_TIME);
  while (m_owner != static_cast<int>(who) && !m_stopping) {
    sc_core::wait(m_granted[who]);
  }
  return !m_stopping;
}

void DdrPort::shutdown() {
  m_stopping = true;
  m_requested.notify(sc_core::SC_ZERO_TIME);
  for (sc_core::sc_event& granted : m_granted) {
    granted.notify(sc_core::SC_ZERO_TIME);
  }
}

void DdrPort::reset() {
  m_pending.clear();
  m_stopping = false;
  m_busy = false;
  m_owner = -1;
  m_requested.cancel();
  for (sc_core::sc_event& granted : m_granted) {
    granted.cancel();
  }
}

void DdrPort::close() {
  m_serveEveryRun = false;
  shutdown();
}

void DdrPort::release() {
  m_busy = false;
  m_owner = -1;
  m_requested.notify(sc_core::SC_ZERO_TIME);
}

void DdrPort::arbitrate() {
  while (m_serveEveryRun || !m_stopping) {
    sc_core::wait(m_requested);
    while (sc_core::sc_pending_activity_at_current_time()) {
      sc_core::wait(sc_core::SC_ZERO_TIME);
    }
    if (m_stopping || m_busy || m_pending.empty()) {
      continue;
    }
    const auto winner = std::min_element(
        m_pending.begin(), m_pending.end(), [](const Request& a, const Request& b) {
          return a.time != b.time ? a.time < b.time : a.who == kStore && b.who == kLoad;
        });
    m_busy = true;
    m_owner = winner->who;
    m_granted[winner->who].notify(sc_core::SC_ZERO_TIME);
    m_pending.erase(winner);
  }
}

}  // namespace npu::sim
