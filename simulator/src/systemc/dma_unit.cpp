// DmaUnit: LOAD or STORE (and SYNC on this unit), holding the DDR port for a whole transfer.
#include "dma_unit.h"

#include <fmt/format.h>

#include <span>
#include <stdexcept>

#include "npu/simulator/timing.h"

namespace npu::sim {
namespace {

/// DdrAccess through the unit's TLM socket.
class SocketAccess final : public DdrAccess {
 public:
  explicit SocketAccess(tlm_utils::simple_initiator_socket<DmaUnit>& socket) : m_socket(socket) {}
  void read(std::uint64_t address, std::span<std::uint8_t> out) override {
    transport(tlm::TLM_READ_COMMAND, address, out.data(), out.size());
  }
  void write(std::uint64_t address, std::span<const std::uint8_t> in) override {
    // TLM's payload points at mutable bytes; a WRITE only reads them.
    transport(tlm::TLM_WRITE_COMMAND, address, const_cast<std::uint8_t*>(in.data()), in.size());
  }

 private:
  void transport(tlm::tlm_command command, std::uint64_t address, std::uint8_t* data,
                 std::size_t length) {
    tlm::tlm_generic_payload& payload = m_payload;
    payload.set_command(command);
    payload.set_address(address);
    payload.set_data_ptr(data);
    payload.set_data_length(static_cast<unsigned>(length));
    payload.set_streaming_width(static_cast<unsigned>(length));
    payload.set_byte_enable_ptr(nullptr);
    payload.set_dmi_allowed(false);
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    m_socket->b_transport(payload, delay);
    if (payload.is_response_error()) {
      throw DdrBusError(fmt::format(
          "the memory answered {} to a {} of {} bytes at DDR 0x{:x}", payload.get_response_string(),
          command == tlm::TLM_READ_COMMAND ? "read" : "write", length, address));
    }
  }
  tlm_utils::simple_initiator_socket<DmaUnit>& m_socket;
  tlm::tlm_generic_payload m_payload;
};

}  // namespace

DmaUnit::DmaUnit(const sc_core::sc_module_name& name, TimedContext& context, isa::Unit unit)
    : ExecutingUnit(name, context, unit), ddr_port("ddr_port"), ddr("ddr") {
  if (unit != isa::Unit::Load && unit != isa::Unit::Store) {
    throw std::logic_error("a DMA unit is the load or the store unit");
  }
  SC_HAS_PROCESS(DmaUnit);
  SC_THREAD(run);
}

void DmaUnit::run() {
  m_context.serveRuns([this] { runProgram(); });
}

void DmaUnit::runProgram() {
  TimedContext& ctx = m_context;
  const DdrPortIf::Requester requester =
      m_unit == isa::Unit::Load ? DdrPortIf::kLoad : DdrPortIf::kStore;
  SocketAccess access(ddr);
  while (const auto next = waitForCommand()) {
    const std::size_t i = *next;
    if (!popTokens(i)) {
      return;
    }
    const bool transfers = !std::holds_alternative<isa::Sync>(ctx.stream[i]);
    if (transfers) {
      const std::uint64_t since = ctx.now();
      m_state = UnitState(UnitState::Activity::DdrPort, i);
      // The port shuts down a delta cycle after the run stops; a grant in between is refused.
      if (!ddr_port->acquire(requester) || ctx.stopping) {
        return;
      }
      ctx.addStall(m_name, "ddr_port", ctx.now() - since);
    }
    const std::uint64_t start = ctx.now();
    if (!ctx.execute(i, access)) {
      return;
    }
    const std::uint64_t duration = instructionCycles(ctx.stream[i], ctx.config);
    markBusy(i, duration);
    // The instruction ends `duration` cycles after its start, also when the memory spent
    // simulated time inside its transports (the cycle formulas already count the DDR's time).
    ctx.waitUntil(start + duration);
    if (ctx.stopping) {
      return;
    }
    if (transfers) {
      ddr_port->release();
    }
    const std::uint64_t end = ctx.now();
    if (!pushTokens(i)) {
      return;
    }
    ctx.finish(m_name, i, start, end);
    ctx.advanceSerial(i);
  }
  markFinished();
}

}  // namespace npu::sim
