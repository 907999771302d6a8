// TestbenchCpu: the bring-up sequence of one bundle on the TLM NPU.
#include "cpu.h"

#include <array>
#include <cstring>

#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace platform {
namespace {

namespace regs = npu::sim::tlm_regs;
using npu::ErrorKind;
using npu::sim::TlmNpuState;

/// Bytes per memory transaction when loading or reading back the DDR.
constexpr std::uint64_t kChunkBytes = 65536;

TlmNpuState stateOf(std::uint32_t status) {
  return static_cast<TlmNpuState>(status & regs::kStatusStateMask);
}

/// "TLM_ADDRESS_ERROR_RESPONSE".
std::string responseName(tlm::tlm_response_status status) {
  tlm::tlm_generic_payload payload;
  payload.set_response_status(status);
  return payload.get_response_string();
}

}  // namespace

TestbenchCpu::TestbenchCpu(const sc_core::sc_module_name& name, const CpuJob& job,
                           npu::sim::TlmNpu& npu)
    : sc_core::sc_module(name),
      bus("bus"),
      irq("irq"),
      m_job(job),
      m_npu(npu),
      m_initial(job.bundle->program.config.ddrBytes),
      m_expected(job.bundle->program.config.ddrBytes) {
  // A run starts from the fill pattern (the bundle's ddr_fill rule, which DdrImage follows) with
  // every region's initial image on top, and must end with every region's expected image and
  // nothing else changed.
  for (const npu::runtime::BundleRegion& region : job.bundle->regions) {
    m_initial.write(region.base, npu::readBinaryFile(job.bundleDir / region.initFile));
  }
  m_expected = m_initial;
  for (const npu::runtime::BundleRegion& region : job.bundle->regions) {
    m_expected.write(region.base, npu::readBinaryFile(job.bundleDir / region.expectedFile));
  }
  SC_HAS_PROCESS(TestbenchCpu);
  SC_THREAD(run);
}

void TestbenchCpu::run() {
  try {
    probeRegisters();
    for (int r = 1; r <= m_job.runs; ++r) {
      m_outcome.cycles.push_back(runOnce(r));
    }
    m_outcome.passed = true;
  } catch (const npu::Error& e) {
    m_outcome.failure = e.what();
  }
  m_outcome.finished = true;
  m_npu.shutdown();
}

void TestbenchCpu::probeRegisters() {
  const std::uint32_t id = readRegister(regs::kId);
  const std::uint32_t version = readRegister(regs::kVersion);
  if (id != regs::kIdValue || version != regs::kVersionValue) {
    npu::fail(ErrorKind::Verification,
              "the NPU's ID and VERSION read 0x{:08x} and {}, not 0x{:08x} and {}", id, version,
              regs::kIdValue, regs::kVersionValue);
  }
  // Inside the bus window but past the register map: the NPU itself refuses it.
  std::array<std::uint8_t, 4> word{};
  const tlm::tlm_response_status past =
      transport(tlm::TLM_READ_COMMAND, m_job.registersBase + regs::kSpaceBytes, word);
  if (past != tlm::TLM_ADDRESS_ERROR_RESPONSE) {
    npu::fail(ErrorKind::Verification,
              "a read at register offset 0x{:x} (past the map) got {}, not "
              "TLM_ADDRESS_ERROR_RESPONSE",
              regs::kSpaceBytes, responseName(past));
  }
}

std::uint64_t TestbenchCpu::runOnce(int index) {
  writeDdr(m_initial);
  if (m_job.flipAddress) {
    std::array<std::uint8_t, 1> byte{};
    const std::uint64_t address = m_job.memoryBase + *m_job.flipAddress;
    if (transport(tlm::TLM_READ_COMMAND, address, byte) != tlm::TLM_OK_RESPONSE) {
      npu::fail("--flip 0x{:x}: no memory there", *m_job.flipAddress);
    }
    byte[0] = static_cast<std::uint8_t>(~byte[0]);
    transport(tlm::TLM_WRITE_COMMAND, address, byte);
  }

  writeRegister(regs::kCodeAddrLo, static_cast<std::uint32_t>(m_job.codeAddress));
  writeRegister(regs::kCodeAddrHi, static_cast<std::uint32_t>(m_job.codeAddress >> 32));
  writeRegister(regs::kIrqEnable, 1);
  writeRegister(regs::kControl, regs::kControlStart);
  const sc_core::sc_time started = sc_core::sc_time_stamp();
  // A second START while the run is going is ignored and flagged in STATUS (docs/tlm.md).
  writeRegister(regs::kControl, regs::kControlStart);
  const std::uint32_t busy = readRegister(regs::kStatus);
  if (stateOf(busy) != TlmNpuState::Busy || (busy & regs::kStatusStartIgnored) == 0) {
    npu::fail(ErrorKind::Verification,
              "run {}: STATUS reads 0x{:08x} after a second START, not busy with START ignored",
              index, busy);
  }

  while (!irq.read()) {
    sc_core::wait(irq.value_changed_event());
  }
  const sc_core::sc_time elapsed = sc_core::sc_time_stamp() - started;
  const std::uint32_t status = readRegister(regs::kStatus);
  const std::uint64_t cycles =
      readRegister(regs::kCyclesLo) | (std::uint64_t{readRegister(regs::kCyclesHi)} << 32);
  const std::uint32_t retired = readRegister(regs::kRetired);
  const std::uint32_t faultIndex = readRegister(regs::kFaultIndex);
  writeRegister(regs::kIrqStatus, 1);
  while (irq.read()) {
    sc_core::wait(irq.value_changed_event());
  }

  if (stateOf(status) != TlmNpuState::Done) {
    npu::fail(ErrorKind::Verification,
              "run {}: STATUS 0x{:08x}, fault code {} at instruction {} after {} cycles: {}", index,
              status, (status >> regs::kStatusFaultShift) & 0xffU,
              static_cast<std::int32_t>(faultIndex), cycles,
              m_npu.lastFault() ? m_npu.lastFault()->what() : "(no fault message)");
  }
  if (elapsed != m_job.clockPeriod * static_cast<double>(cycles)) {
    npu::fail(ErrorKind::Verification,
              "run {}: the interrupt came {} after START, not CYCLES ({}) clock periods", index,
              elapsed.to_string(), cycles);
  }
  if (retired != m_job.bundle->instructions) {
    npu::fail(ErrorKind::Verification, "run {}: RETIRED reads {}, the program has {} instructions",
              index, retired, m_job.bundle->instructions);
  }
  const npu::isa::DdrImage after = readDdr();
  try {
    npu::runtime::checkRunAgainstBundle(m_job.bundleDir, *m_job.bundle, after, cycles,
                                        "the TLM NPU");
  } catch (const npu::Error& e) {
    npu::fail(ErrorKind::Verification, "run {}: {}", index, e.what());
  }
  if (const std::optional<std::uint64_t> stray = after.firstDifference(m_expected)) {
    npu::fail(ErrorKind::Verification,
              "run {}: DDR 0x{:x}, outside every region, changed from 0x{:02x} to 0x{:02x}", index,
              *stray, m_expected.readByte(*stray), after.readByte(*stray));
  }
  m_outcome.interruptAfter = elapsed;
  return cycles;
}

tlm::tlm_response_status TestbenchCpu::transport(tlm::tlm_command command, std::uint64_t address,
                                                 std::span<std::uint8_t> data) {
  tlm::tlm_generic_payload payload;
  payload.set_command(command);
  payload.set_address(address);
  payload.set_data_ptr(data.data());
  payload.set_data_length(static_cast<unsigned>(data.size()));
  payload.set_streaming_width(static_cast<unsigned>(data.size()));
  payload.set_byte_enable_ptr(nullptr);
  payload.set_dmi_allowed(false);
  payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  bus->b_transport(payload, delay);
  // A loosely-timed CPU: it waits out the time each target annotated (the memory's latency).
  if (delay > sc_core::SC_ZERO_TIME) {
    sc_core::wait(delay);
  }
  return payload.get_response_status();
}

std::uint32_t TestbenchCpu::readRegister(std::uint64_t offset) {
  std::array<std::uint8_t, 4> word{};
  const tlm::tlm_response_status status =
      transport(tlm::TLM_READ_COMMAND, m_job.registersBase + offset, word);
  if (status != tlm::TLM_OK_RESPONSE) {
    npu::fail(ErrorKind::Internal, "reading NPU register 0x{:x} got {}", offset,
              responseName(status));
  }
  std::uint32_t value = 0;
  for (std::size_t b = 0; b < word.size(); ++b) {
    value |= std::uint32_t{word[b]} << (8 * b);
  }
  return value;
}

void TestbenchCpu::writeRegister(std::uint64_t offset, std::uint32_t value) {
  std::array<std::uint8_t, 4> word{};
  for (std::size_t b = 0; b < word.size(); ++b) {
    word[b] = static_cast<std::uint8_t>(value >> (8 * b));
  }
  const tlm::tlm_response_status status =
      transport(tlm::TLM_WRITE_COMMAND, m_job.registersBase + offset, word);
  if (status != tlm::TLM_OK_RESPONSE) {
    npu::fail(ErrorKind::Internal, "writing NPU register 0x{:x} got {}", offset,
              responseName(status));
  }
}

void TestbenchCpu::writeDdr(const npu::isa::DdrImage& image) {
  for (std::uint64_t offset = 0; offset < image.size(); offset += kChunkBytes) {
    std::vector<std::uint8_t> chunk =
        image.readRange(offset, std::min(kChunkBytes, image.size() - offset));
    if (transport(tlm::TLM_WRITE_COMMAND, m_job.memoryBase + offset, chunk) !=
        tlm::TLM_OK_RESPONSE) {
      npu::fail(ErrorKind::Internal, "loading DDR 0x{:x} failed", offset);
    }
  }
}

npu::isa::DdrImage TestbenchCpu::readDdr() {
  npu::isa::DdrImage image(m_initial.size());
  std::vector<std::uint8_t> chunk;
  for (std::uint64_t offset = 0; offset < image.size(); offset += kChunkBytes) {
    chunk.resize(std::min(kChunkBytes, image.size() - offset));
    if (transport(tlm::TLM_READ_COMMAND, m_job.memoryBase + offset, chunk) !=
        tlm::TLM_OK_RESPONSE) {
      npu::fail(ErrorKind::Internal, "reading back DDR 0x{:x} failed", offset);
    }
    image.write(offset, chunk);
  }
  return image;
}

}  // namespace platform
