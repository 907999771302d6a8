// TestbenchCpu: the initiator standing in for the platform's CPU. It loads a bring-up bundle into
// memory, drives the NPU's registers, waits for its interrupt and checks the DDR and the cycles.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "npu/isa/ddr_image.h"
#include "npu/runtime/export_bundle.h"
#include "npu/simulator/tlm_npu.h"

namespace platform {

/// What the CPU is asked to do.
struct CpuJob {
  std::filesystem::path bundleDir;
  const npu::runtime::Bundle* bundle = nullptr;
  /// Bus addresses of the NPU's DDR (the memory) and of its registers.
  std::uint64_t memoryBase = 0;
  std::uint64_t registersBase = 0;
  /// The NPU's clock period, to check the interrupt's time against the cycle count.
  sc_core::sc_time clockPeriod;
  /// CODE_ADDR (the bundle's code address unless overridden).
  std::uint64_t codeAddress = 0;
  /// Runs, each on a freshly loaded DDR.
  int runs = 1;
  /// Fault injection: this DDR byte is inverted after loading, before each START.
  std::optional<std::uint64_t> flipAddress;
};

/// How the job went: every run's cycles and, on failure, what failed first.
struct CpuOutcome {
  bool finished = false;
  bool passed = false;
  std::string failure;
  std::vector<std::uint64_t> cycles;
  sc_core::sc_time interruptAfter;
};

class TestbenchCpu : public sc_core::sc_module {
 public:
  /// To the bus.
  tlm_utils::simple_initiator_socket<TestbenchCpu> bus;
  /// The NPU's interrupt line.
  sc_core::sc_in<bool> irq;

  /// `npu` lends its fault message to failure reports (a debugger's view; the CPU sees the
  /// registers), and is shut down when the job is over, so every thread ends.
  TestbenchCpu(const sc_core::sc_module_name& name, const CpuJob& job, npu::sim::TlmNpu& npu);

  [[nodiscard]] const CpuOutcome& outcome() const { return m_outcome; }

 private:
  void run();
  /// Reads ID and VERSION and checks that an access past the register map gets an address error.
  void probeRegisters();
  /// Loads the DDR, starts the NPU, waits for the interrupt and checks; returns the cycles.
  std::uint64_t runOnce(int index);

  /// One blocking transaction at bus address `address`; its response status.
  tlm::tlm_response_status transport(tlm::tlm_command command, std::uint64_t address,
                                     std::span<std::uint8_t> data);
  std::uint32_t readRegister(std::uint64_t offset);
  void writeRegister(std::uint64_t offset, std::uint32_t value);
  void writeDdr(const npu::isa::DdrImage& image);
  npu::isa::DdrImage readDdr();

  CpuJob m_job;
  npu::sim::TlmNpu& m_npu;
  npu::isa::DdrImage m_initial;
  npu::isa::DdrImage m_expected;
  CpuOutcome m_outcome;
};

}  // namespace platform
