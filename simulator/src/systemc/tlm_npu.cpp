// TlmNpu: the register file, the START protocol around the cycle model's units, and the
// interrupt.
#include "npu/simulator/tlm_npu.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "../datapath_ops.h"
#include "../engine_common.h"
#include "memory_bridge.h"
#include "npu/isa/encoding.h"
#include "npu/simulator/timing.h"
#include "npu/support/error.h"
#include "npu_top.h"
#include "timed_context.h"

namespace npu::sim {
namespace {

/// Whether register `offset` (a multiple of 4 inside the space) accepts writes.
bool writable(std::uint64_t offset) {
  return offset == tlm_regs::kCodeAddrLo || offset == tlm_regs::kCodeAddrHi ||
         offset == tlm_regs::kControl || offset == tlm_regs::kIrqStatus ||
         offset == tlm_regs::kIrqEnable;
}

/// The response a register access of `length` bytes at `offset` gets before it touches anything
/// (TLM_OK_RESPONSE when it may go ahead).
tlm::tlm_response_status checkAccess(const tlm::tlm_generic_payload& payload) {
  const std::uint64_t offset = payload.get_address();
  const unsigned length = payload.get_data_length();
  if (const unsigned char* enables = payload.get_byte_enable_ptr()) {
    const unsigned enableLength = payload.get_byte_enable_length();
    if (enableLength == 0) {
      return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
    }
    for (unsigned b = 0; b < length; ++b) {
      if (enables[b % enableLength] != TLM_BYTE_ENABLED) {
        return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
      }
    }
  }
  if ((length != 4 && length != 8) || payload.get_streaming_width() < length) {
    return tlm::TLM_BURST_ERROR_RESPONSE;
  }
  if (offset % length != 0 || offset >= tlm_regs::kSpaceBytes ||
      tlm_regs::kSpaceBytes - offset < length) {
    return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  }
  if (payload.is_write()) {
    for (std::uint64_t reg = offset; reg < offset + length; reg += 4) {
      if (!writable(reg)) {
        return tlm::TLM_COMMAND_ERROR_RESPONSE;
      }
    }
  }
  return tlm::TLM_OK_RESPONSE;
}

std::uint32_t loadWord(const unsigned char* bytes) {
  return static_cast<std::uint32_t>(bytes[0]) | (static_cast<std::uint32_t>(bytes[1]) << 8) |
         (static_cast<std::uint32_t>(bytes[2]) << 16) |
         (static_cast<std::uint32_t>(bytes[3]) << 24);
}

void storeWord(unsigned char* bytes, std::uint32_t value) {
  for (unsigned b = 0; b < 4; ++b) {
    bytes[b] = static_cast<unsigned char>(value >> (8 * b));
  }
}

std::uint32_t low(std::uint64_t value) {
  return static_cast<std::uint32_t>(value);
}

std::uint32_t high(std::uint64_t value) {
  return static_cast<std::uint32_t>(value >> 32);
}

}  // namespace

struct TlmNpu::Impl {
  Impl(TlmNpu& owner, const isa::NpuConfig& hardware, const TlmNpuOptions& tlmOptions)
      : config(hardware),
        options(tlmOptions),
        context(config, stream, options.sim, RunMode::EachStart, options.clockPeriod),
        core("core", context),
        bridge("bridge", options.ddrBase) {
    core.rd.bind(bridge.rd);
    core.wr.bind(bridge.wr);
    bridge.mem.bind(owner.mem);
    lastStats.mode = "timed";
  }

  /// The value of register `offset` now (reads have no side effects).
  [[nodiscard]] std::uint32_t read(std::uint64_t offset) const;
  /// A write of `value` to writable register `offset`.
  void write(std::uint64_t offset, std::uint32_t value);
  /// One run, from the START to the interrupt.
  void run();
  /// Fetches the program at codeAddress through `mem` into `stream` and checks it as the timed
  /// engine does before a run; the fault that prevents the run, if any.
  std::optional<SimFault> prepare();
  /// Ends the run: the registers, the last run's results, the interrupt.
  void finish();

  isa::NpuConfig config;
  TlmNpuOptions options;
  /// The program of the current run, refilled at every START.
  std::vector<isa::Instruction> stream;
  TimedContext context;
  NpuTop core;
  MemoryBridge bridge;

  // Registers.
  std::uint64_t codeAddress = 0;
  TlmNpuState state = TlmNpuState::Idle;
  bool startIgnored = false;
  std::uint32_t faultCode = 0;
  std::uint32_t faultIndex = 0xffffffffU;
  std::uint64_t cycles = 0;
  std::uint64_t retired = 0;
  bool irqPending = false;
  bool irqEnabled = false;
  /// Whether the units of the current run have started (CYCLES and RETIRED count live then).
  bool unitsStarted = false;
  /// The code address latched by the accepted START.
  std::uint64_t runCodeAddress = 0;
  /// Set by TlmNpu::shutdown(): no run follows.
  bool shutDown = false;

  sc_core::sc_event startRequested;
  sc_core::sc_event irqChanged;

  std::optional<SimFault> lastFault;
  SimStats lastStats;
  std::vector<std::uint64_t> lastEndCycles;
  std::vector<TraceSpan> lastTrace;
};

std::uint32_t TlmNpu::Impl::read(std::uint64_t offset) const {
  const bool live = state == TlmNpuState::Busy;
  const std::uint64_t cycleCount = live ? (unitsStarted ? context.now() : 0) : cycles;
  const std::uint64_t retiredCount = live ? (unitsStarted ? context.retired : 0) : retired;
  switch (offset) {
    case tlm_regs::kId:
      return tlm_regs::kIdValue;
    case tlm_regs::kVersion:
      return tlm_regs::kVersionValue;
    case tlm_regs::kCodeAddrLo:
      return low(codeAddress);
    case tlm_regs::kCodeAddrHi:
      return high(codeAddress);
    case tlm_regs::kStatus:
      return static_cast<std::uint32_t>(state) |
             (startIgnored ? tlm_regs::kStatusStartIgnored : 0U) |
             (faultCode << tlm_regs::kStatusFaultShift);
    case tlm_regs::kCyclesLo:
      return low(cycleCount);
    case tlm_regs::kCyclesHi:
      return high(cycleCount);
    case tlm_regs::kIrqStatus:
      return irqPending ? 1U : 0U;
    case tlm_regs::kIrqEnable:
      return irqEnabled ? 1U : 0U;
    case tlm_regs::kRetired:
      return low(std::min<std::uint64_t>(retiredCount, 0xffffffffU));
    case tlm_regs::kFaultIndex:
      return faultIndex;
    default:  // CONTROL reads 0
      return 0;
  }
}

void TlmNpu::Impl::write(std::uint64_t offset, std::uint32_t value) {
  switch (offset) {
    case tlm_regs::kCodeAddrLo:
      codeAddress = (codeAddress & ~std::uint64_t{0xffffffffU}) | value;
      break;
    case tlm_regs::kCodeAddrHi:
      codeAddress = (codeAddress & 0xffffffffU) | (std::uint64_t{value} << 32);
      break;
    case tlm_regs::kControl:
      if ((value & tlm_regs::kControlStart) == 0) {
        break;
      }
      if (state == TlmNpuState::Busy || shutDown) {
        startIgnored = true;
        break;
      }
      state = TlmNpuState::Busy;
      startIgnored = false;
      faultCode = 0;
      faultIndex = 0xffffffffU;
      runCodeAddress = codeAddress;
      startRequested.notify(sc_core::SC_ZERO_TIME);
      break;
    case tlm_regs::kIrqStatus:
      if ((value & 1U) != 0) {
        irqPending = false;
        irqChanged.notify(sc_core::SC_ZERO_TIME);
      }
      break;
    case tlm_regs::kIrqEnable:
      irqEnabled = (value & 1U) != 0;
      irqChanged.notify(sc_core::SC_ZERO_TIME);
      break;
    default:
      break;
  }
}

std::optional<SimFault> TlmNpu::Impl::prepare() {
  stream.clear();
  try {
    const std::uint64_t base = runCodeAddress;
    stream = fetchStream(
        config.ddrBytes, base, [this, base](std::uint64_t address, std::span<std::uint8_t> out) {
          try {
            bridge.read(address, out);
          } catch (const DdrBusError& e) {
            const std::uint64_t index = (address - base) / isa::kWordBytes;
            throw SimFault(FaultKind::DdrOutOfRange, static_cast<std::int64_t>(index),
                           fmt::format("ddr-out-of-range fault at instruction {} "
                                       "(fetch unit, DDR 0x{:x}): {}",
                                       index, address, e.what()));
          }
        });
    checkBeforeTimedRun(stream, config, options.sim);
  } catch (const SimFault& fault) {
    stream.clear();
    return fault;
  }
  return std::nullopt;
}

void TlmNpu::Impl::run() {
  if (std::optional<SimFault> fault = prepare()) {
    // Nothing ran: no cycles, as simulate() reports a program it cannot start.
    context.fault = std::move(fault);
    context.stats = SimStats{};
    context.endCycles.clear();
    context.trace.clear();
    context.retired = 0;
    context.stopCycle = 0;
    finish();
    return;
  }
  core.reset();
  context.begin();
  unitsStarted = true;
  const std::uint64_t limit =
      options.sim.maxCycles != 0 ? options.sim.maxCycles : cycleBudget(stream, config);
  sc_core::wait(context.cycles(limit), context.runEnded);
  if (context.unitsRunning()) {
    // Still going at the limit: the watchdog. (The token analysis has ruled out deadlocks; one
    // it could not see would end here too.)
    if (!context.stopping) {
      context.fault = core.unfinishedFault(limit, true, limit);
      context.stop();
    }
    while (context.unitsRunning()) {
      sc_core::wait(context.runEnded);
    }
  }
  if (shutDown) {
    return;  // abandoned by TlmNpu::shutdown()
  }
  context.closeStats();
  finish();
}

void TlmNpu::Impl::finish() {
  lastFault = context.fault;
  lastStats = context.stats;
  lastStats.mode = "timed";
  lastEndCycles = context.endCycles;
  lastTrace = context.trace;
  cycles = lastStats.totalCycles;
  retired = context.retired;
  unitsStarted = false;
  if (lastFault) {
    state = TlmNpuState::Fault;
    faultCode = 1U + static_cast<std::uint32_t>(lastFault->kind());
    faultIndex = lastFault->instruction() < 0 ? 0xffffffffU
                                              : static_cast<std::uint32_t>(std::min<std::int64_t>(
                                                    lastFault->instruction(), 0xfffffffe));
  } else {
    state = TlmNpuState::Done;
  }
  irqPending = true;
  irqChanged.notify(sc_core::SC_ZERO_TIME);
}

TlmNpu::TlmNpu(const sc_core::sc_module_name& name, const isa::NpuConfig& config,
               const TlmNpuOptions& options)
    : sc_core::sc_module(name), regs("regs"), mem("mem"), irq("irq") {
  if (options.sim.mode != SimMode::Timed) {
    fail("TlmNpu runs the timed model: TlmNpuOptions::sim.mode must be SimMode::Timed");
  }
  if (options.clockPeriod <= sc_core::SC_ZERO_TIME) {
    fail("TlmNpu: the clock period must be longer than zero");
  }
  m_impl = std::make_unique<Impl>(*this, config, options);
  regs.register_b_transport(this, &TlmNpu::registerTransport);
  regs.register_transport_dbg(this, &TlmNpu::registerDebugTransport);
  SC_HAS_PROCESS(TlmNpu);
  SC_THREAD(control);
  SC_METHOD(driveIrq);
  sensitive << m_impl->irqChanged;
}

TlmNpu::~TlmNpu() = default;

TlmNpuState TlmNpu::state() const {
  return m_impl->state;
}

const std::optional<SimFault>& TlmNpu::lastFault() const {
  return m_impl->lastFault;
}

const SimStats& TlmNpu::lastStats() const {
  return m_impl->lastStats;
}

const std::vector<std::uint64_t>& TlmNpu::lastEndCycles() const {
  return m_impl->lastEndCycles;
}

const std::vector<TraceSpan>& TlmNpu::lastTrace() const {
  return m_impl->lastTrace;
}

void TlmNpu::registerTransport(tlm::tlm_generic_payload& payload, sc_core::sc_time& /*delay*/) {
  payload.set_dmi_allowed(false);
  const tlm::tlm_response_status status = checkAccess(payload);
  if (status != tlm::TLM_OK_RESPONSE || payload.get_command() == tlm::TLM_IGNORE_COMMAND) {
    payload.set_response_status(status);
    return;
  }
  const std::uint64_t offset = payload.get_address();
  unsigned char* data = payload.get_data_ptr();
  for (unsigned b = 0; b < payload.get_data_length(); b += 4) {
    if (payload.is_read()) {
      storeWord(data + b, m_impl->read(offset + b));
    } else {
      m_impl->write(offset + b, loadWord(data + b));
    }
  }
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned TlmNpu::registerDebugTransport(tlm::tlm_generic_payload& payload) {
  // Debug reads see every register without side effects; debug writes change nothing.
  const std::uint64_t offset = payload.get_address();
  const unsigned length = payload.get_data_length();
  if (!payload.is_read() || offset % 4 != 0 || length % 4 != 0 || offset >= tlm_regs::kSpaceBytes ||
      tlm_regs::kSpaceBytes - offset < length) {
    return 0;
  }
  for (unsigned b = 0; b < length; b += 4) {
    storeWord(payload.get_data_ptr() + b, m_impl->read(offset + b));
  }
  return length;
}

void TlmNpu::control() {
  while (!m_impl->shutDown) {
    sc_core::wait(m_impl->startRequested);
    if (m_impl->shutDown) {
      return;
    }
    m_impl->run();
  }
}

void TlmNpu::shutdown() {
  Impl& impl = *m_impl;
  if (impl.shutDown) {
    return;
  }
  impl.shutDown = true;
  impl.context.close();
  impl.core.close();
  impl.startRequested.notify(sc_core::SC_ZERO_TIME);
}

void TlmNpu::driveIrq() {
  irq.write(m_impl->irqPending && m_impl->irqEnabled);
}

}  // namespace npu::sim
