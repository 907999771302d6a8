// TlmNpu: the NPU as a SystemC TLM-2.0 module that a virtual platform instantiates in its own
// elaboration and runs in its own simulation (docs/tlm.md).
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "npu/isa/npu_config.h"
#include "npu/simulator/sim_fault.h"
#include "npu/simulator/simulate.h"

namespace npu::sim {

/// The register file behind TlmNpu::regs: 32-bit little-endian registers at these byte offsets
/// (docs/tlm.md, "Registers").
namespace tlm_regs {
inline constexpr std::uint64_t kId = 0x00;          ///< RO: kIdValue
inline constexpr std::uint64_t kVersion = 0x04;     ///< RO: kVersionValue (of this register map)
inline constexpr std::uint64_t kCodeAddrLo = 0x08;  ///< RW: the program's DDR address, bits 31:0
inline constexpr std::uint64_t kCodeAddrHi = 0x0C;  ///< RW: bits 63:32
inline constexpr std::uint64_t kControl = 0x10;     ///< W: bit 0 START; reads 0
inline constexpr std::uint64_t kStatus = 0x14;      ///< RO: state, START ignored, fault code
inline constexpr std::uint64_t kCyclesLo = 0x18;    ///< RO: cycles of the run, bits 31:0
inline constexpr std::uint64_t kCyclesHi = 0x1C;    ///< RO: bits 63:32
inline constexpr std::uint64_t kIrqStatus = 0x20;   ///< RW1C: bit 0, a run has ended
inline constexpr std::uint64_t kIrqEnable = 0x24;   ///< RW: bit 0 lets IRQ_STATUS drive irq
inline constexpr std::uint64_t kRetired = 0x28;     ///< RO: instructions finished, END included
inline constexpr std::uint64_t kFaultIndex = 0x2C;  ///< RO: faulting instruction, or 0xffffffff
/// Bytes of register space; an access beyond it gets TLM_ADDRESS_ERROR_RESPONSE.
inline constexpr std::uint64_t kSpaceBytes = 0x30;

inline constexpr std::uint32_t kIdValue = 0x4E505530;  // "NPU0"
inline constexpr std::uint32_t kVersionValue = 1;
/// CONTROL bit 0: start a run of the program at CODE_ADDR.
inline constexpr std::uint32_t kControlStart = 1U << 0;
/// STATUS bits 1:0 hold a TlmNpuState.
inline constexpr std::uint32_t kStatusStateMask = 0x3;
/// STATUS bit 2: a START arrived while busy and was ignored (cleared by the next accepted START).
inline constexpr std::uint32_t kStatusStartIgnored = 1U << 2;
/// STATUS bits 15:8: the fault code, 0 for none, else 1 + sim::FaultKind.
inline constexpr unsigned kStatusFaultShift = 8;
}  // namespace tlm_regs

/// STATUS bits 1:0.
enum class TlmNpuState : std::uint8_t {
  Idle = 0,   ///< no run since reset
  Busy = 1,   ///< a run is going
  Done = 2,   ///< the last run reached END and every unit drained its queue
  Fault = 3,  ///< the last run stopped on a fault (STATUS bits 15:8 say which)
};

struct TlmNpuOptions {
  /// Simulated time of one NPU cycle: a run of N cycles (`npu sim --mode timed`'s count) takes
  /// N periods from its START.
  sc_core::sc_time clockPeriod = sc_core::sc_time(1.0, sc_core::SC_NS);
  /// Address on `mem` of the NPU's DDR address 0.
  std::uint64_t ddrBase = 0;
  /// As for simulate(): watchdog, hazard check, debug switches, trace; mode must be Timed.
  SimOptions sim;
};

/// The NPU for a virtual platform. It runs in the caller's simulation context: the caller
/// elaborates it with its own modules, binds its sockets and irq, and calls sc_start; nothing
/// here creates a context or calls sc_start. Inside are the SystemC units of the cycle model
/// (fetch, load, compute, store, the DDR port), idle until a START, so every run takes exactly the
/// cycles `npu sim --mode timed` reports for the same program and DDR contents, and as many runs
/// as the platform starts, one after the other.
class TlmNpu : public sc_core::sc_module {
 public:
  /// Control and status registers (tlm_regs): 4-byte accesses at 4-byte aligned offsets, or
  /// 8-byte ones at 8-byte aligned offsets; errors come back as TLM response statuses.
  tlm_utils::simple_target_socket<TlmNpu> regs;
  /// System memory: the program's words, then the LOAD reads and STORE writes, at
  /// TlmNpuOptions::ddrBase + the DDR address, by blocking transport.
  tlm::tlm_initiator_socket<> mem;
  /// Interrupt: high while IRQ_STATUS and IRQ_ENABLE bit 0 are both set.
  sc_core::sc_out<bool> irq;

  /// `config` is the hardware config the programs were compiled for; it is copied.
  TlmNpu(const sc_core::sc_module_name& name, const isa::NpuConfig& config,
         const TlmNpuOptions& options = {});
  ~TlmNpu() override;
  TlmNpu(const TlmNpu&) = delete;
  TlmNpu& operator=(const TlmNpu&) = delete;

  /// STATUS bits 1:0, as a type.
  [[nodiscard]] TlmNpuState state() const;
  /// The last finished run's fault with its whole message (the registers hold its kind and
  /// instruction), statistics (as `npu sim --stats` writes them), end cycle of each instruction,
  /// and trace spans (when options.sim.collectTrace).
  [[nodiscard]] const std::optional<SimFault>& lastFault() const;
  [[nodiscard]] const SimStats& lastStats() const;
  [[nodiscard]] const std::vector<std::uint64_t>& lastEndCycles() const;
  [[nodiscard]] const std::vector<TraceSpan>& lastTrace() const;

  /// Ends the NPU for the rest of the simulation: a run in progress stops where it is (no
  /// interrupt), every thread of the NPU returns, and a later START is ignored (STATUS bit 2).
  /// Call it from a process once the platform is done with the NPU: SystemC frees a thread that
  /// never returned without unwinding its stack, which AddressSanitizer then misreports against
  /// a later simulation in the same process.
  void shutdown();

 private:
  void registerTransport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  unsigned registerDebugTransport(tlm::tlm_generic_payload& payload);
  /// The thread that takes each START: fetches the program, starts the units, ends the run.
  void control();
  /// Drives irq from IRQ_STATUS and IRQ_ENABLE.
  void driveIrq();

  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace npu::sim
