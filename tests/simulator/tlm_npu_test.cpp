// TlmNpu on a small platform each test elaborates in a simulation context of its own (a testbench
// CPU on the register socket, a memory on the system socket, the interrupt on a signal): runs take
// the timed engine's cycles and end with its DDR, at any clock period, DDR base and start time,
// and again on a second START; START while busy is ignored; bad register accesses get TLM error
// responses; bad code addresses, a memory refusing an access and the watchdog end as faults in
// STATUS; a run after a fault is whole again.
#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <array>
#include <cstring>
#include <filesystem>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "npu/isa/assembly.h"
#include "npu/simulator/tlm_npu.h"
#include "random_program.h"
#include "sim_test_util.h"
#include "systemc/simulation_context.h"

namespace npu::sim {
namespace {

namespace regs = tlm_regs;

/// System memory: a DDR image at `base`, served by blocking transport with an annotated delay
/// (which the NPU must not add to its cycles); an access beyond `limit` bytes of the image gets
/// TLM_ADDRESS_ERROR_RESPONSE.
class TestMemory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<TestMemory> socket;

  TestMemory(const sc_core::sc_module_name& name, isa::DdrImage& image, std::uint64_t base)
      : sc_core::sc_module(name),
        socket("socket"),
        limit(image.size()),
        m_image(image),
        m_base(base) {
    socket.register_b_transport(this, &TestMemory::transport);
  }
  std::uint64_t limit;
  std::uint64_t transactions = 0;

 private:
  void transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    ++transactions;
    const std::uint64_t address = payload.get_address();
    const std::uint64_t length = payload.get_data_length();
    if (address < m_base || address - m_base > limit || limit - (address - m_base) < length) {
      payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    const std::span<std::uint8_t> bytes(payload.get_data_ptr(), length);
    if (payload.is_read()) {
      m_image.read(address - m_base, bytes);
    } else {
      m_image.write(address - m_base, bytes);
    }
    delay += sc_core::sc_time(5, sc_core::SC_NS);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  isa::DdrImage& m_image;
  std::uint64_t m_base;
};

class TestCpu;
using Script = std::function<void(TestCpu&)>;

/// The testbench CPU: runs a script in its thread, reaching the registers through `bus`.
class TestCpu : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TestCpu> bus;
  sc_core::sc_in<bool> irq;
  /// The NPU on the bus, for what registers do not show (fault messages, per-instruction cycles).
  TlmNpu* npu = nullptr;

  TestCpu(const sc_core::sc_module_name& name, Script script)
      : sc_core::sc_module(name), bus("bus"), irq("irq"), m_script(std::move(script)) {
    SC_HAS_PROCESS(TestCpu);
    SC_THREAD(run);
  }

  /// One register transaction; its response status.
  tlm::tlm_response_status access(tlm::tlm_command command, std::uint64_t offset,
                                  unsigned char* data, unsigned length,
                                  unsigned char* enables = nullptr, unsigned enableLength = 0,
                                  unsigned streamingWidth = 0) {
    tlm::tlm_generic_payload payload;
    payload.set_command(command);
    payload.set_address(offset);
    payload.set_data_ptr(data);
    payload.set_data_length(length);
    payload.set_streaming_width(streamingWidth != 0 ? streamingWidth : length);
    payload.set_byte_enable_ptr(enables);
    payload.set_byte_enable_length(enableLength);
    payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    bus->b_transport(payload, delay);
    return payload.get_response_status();
  }
  std::uint32_t read(std::uint64_t offset) {
    std::array<unsigned char, 4> bytes{};
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, offset, bytes.data(), 4), tlm::TLM_OK_RESPONSE)
        << offset;
    std::uint32_t value = 0;
    std::memcpy(&value, bytes.data(), 4);
    return value;
  }
  std::uint64_t read64(std::uint64_t offset) {
    std::array<unsigned char, 8> bytes{};
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, offset, bytes.data(), 8), tlm::TLM_OK_RESPONSE)
        << offset;
    std::uint64_t value = 0;
    std::memcpy(&value, bytes.data(), 8);
    return value;
  }
  void write(std::uint64_t offset, std::uint32_t value) {
    std::array<unsigned char, 4> bytes{};
    std::memcpy(bytes.data(), &value, 4);
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, offset, bytes.data(), 4), tlm::TLM_OK_RESPONSE)
        << offset;
  }
  /// Programs CODE_ADDR, enables the interrupt and writes START.
  void start(std::uint64_t codeAddress) {
    write(regs::kCodeAddrLo, static_cast<std::uint32_t>(codeAddress));
    write(regs::kCodeAddrHi, static_cast<std::uint32_t>(codeAddress >> 32));
    write(regs::kIrqEnable, 1);
    write(regs::kControl, regs::kControlStart);
  }
  /// Waits for the interrupt, then clears it and waits for the line to fall (a delta cycle or
  /// two).
  void waitForIrq() {
    while (!irq.read()) {
      sc_core::wait(irq.value_changed_event());
    }
    write(regs::kIrqStatus, 1);
    while (irq.read()) {
      sc_core::wait(irq.value_changed_event());
    }
  }
  [[nodiscard]] static TlmNpuState stateOf(std::uint32_t status) {
    return static_cast<TlmNpuState>(status & regs::kStatusStateMask);
  }

 private:
  void run() {
    m_script(*this);
    npu->shutdown();
  }
  Script m_script;
};

/// The platform's settings: plain numbers, so that no SystemC object exists outside the
/// simulation context of the platform (an sc_time made outside one creates a default context).
struct PlatformOptions {
  /// The NPU's clock period in picoseconds.
  std::uint64_t periodPs = 1000;
  /// Address of the memory (and of the NPU's DDR) on the system bus.
  std::uint64_t memoryBase = 0;
  /// TlmNpuOptions::sim.maxCycles.
  std::uint64_t maxCycles = 0;
};

/// Elaborates memory, NPU and CPU over `ddr` in a fresh simulation context on a thread of its own,
/// runs `script` to its end, then hands the NPU and memory to `after`.
void runPlatform(isa::DdrImage& ddr, const isa::NpuConfig& config, const PlatformOptions& options,
                 const Script& script,
                 const std::function<void(TlmNpu&, TestMemory&)>& after = nullptr) {
  std::thread([&] {
    const SimulationContext simulationContext;
    TestMemory memory("memory", ddr, options.memoryBase);
    TlmNpuOptions npuOptions;
    npuOptions.clockPeriod =
        sc_core::sc_time(static_cast<double>(options.periodPs), sc_core::SC_PS);
    npuOptions.ddrBase = options.memoryBase;
    npuOptions.sim.maxCycles = options.maxCycles;
    TlmNpu npu("npu", config, npuOptions);
    sc_core::sc_signal<bool> irq("irq");
    TestCpu cpu("cpu", script);
    npu.mem.bind(memory.socket);
    cpu.bus.bind(npu.regs);
    npu.irq.bind(irq);
    cpu.irq.bind(irq);
    cpu.npu = &npu;
    sc_core::sc_start();
    if (after) {
      after(npu, memory);
    }
  }).join();
}

/// What one run on the platform reported.
struct PlatformRun {
  std::uint32_t status = 0;
  std::uint64_t cycles = 0;
  std::uint32_t retired = 0;
  /// Simulated times of the START and of the interrupt, in picoseconds.
  std::uint64_t startedPs = 0;
  std::uint64_t interruptedPs = 0;
  [[nodiscard]] std::uint64_t elapsedPs() const { return interruptedPs - startedPs; }
};

/// The current simulated time in picoseconds (SystemC's default resolution).
std::uint64_t nowPs() {
  return sc_core::sc_time_stamp().value();
}

/// Starts the program at `codeAddress` and waits for its interrupt.
PlatformRun runOnce(TestCpu& cpu, std::uint64_t codeAddress) {
  PlatformRun run;
  cpu.start(codeAddress);
  run.startedPs = nowPs();
  cpu.waitForIrq();
  run.interruptedPs = nowPs();
  run.status = cpu.read(regs::kStatus);
  run.cycles = cpu.read64(regs::kCyclesLo);
  run.retired = cpu.read(regs::kRetired);
  return run;
}

std::vector<isa::Program> programsUnderTest() {
  std::vector<isa::Program> programs;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(NPU_SOURCE_DIR) / "tests/data/sim")) {
    if (entry.path().extension() == ".s") {
      programs.push_back(isa::assembleFile(entry.path()));
    }
  }
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    programs.push_back(
        testing::randomTileProgram(testing::smallConfig(), seed, 2 + static_cast<int>(seed)));
  }
  return programs;
}

TEST(TlmNpu, RunsTakeTheTimedEnginesCyclesAndEndWithItsDdr) {
  const std::vector<isa::Program> programs = programsUnderTest();
  ASSERT_GE(programs.size(), 20U);
  for (std::size_t p = 0; p < programs.size(); ++p) {
    const isa::Program& program = programs[p];
    const SimResult reference = testing::run(program, SimMode::Timed);
    ASSERT_FALSE(reference.fault) << p << ": " << testing::faultMessage(reference);
    // Odd clock periods, start times and memory bases: none of them changes a cycle.
    PlatformOptions options;
    options.periodPs = p % 2 == 0 ? 1000 : 2500;
    options.memoryBase = p % 3 == 0 ? 0x80000000ULL : 0;
    isa::DdrImage ddr = isa::DdrImage::fromProgram(program);
    PlatformRun run;
    runPlatform(
        ddr, program.config, options,
        [&](TestCpu& cpu) {
          sc_core::wait(sc_core::sc_time(static_cast<double>(37 * p), sc_core::SC_NS));
          run = runOnce(cpu, program.codeAddress);
        },
        [&](TlmNpu& npu, TestMemory& /*memory*/) {
          EXPECT_FALSE(npu.lastFault()) << p;
          EXPECT_EQ(npu.lastEndCycles(), reference.endCycles) << p;
          EXPECT_EQ(statsToJson(npu.lastStats(), std::nullopt, {}),
                    statsToJson(reference.stats, std::nullopt, {}))
              << p;
        });
    EXPECT_EQ(TestCpu::stateOf(run.status), TlmNpuState::Done) << p;
    EXPECT_EQ(run.cycles, reference.stats.totalCycles) << p;
    EXPECT_EQ(run.retired, program.instructions.size()) << p;
    // The interrupt rises exactly `cycles` clock periods after the START.
    EXPECT_EQ(run.elapsedPs(), options.periodPs * reference.stats.totalCycles) << p;
    EXPECT_EQ(ddr, reference.ddr) << p << ": first difference at 0x" << std::hex
                                  << ddr.firstDifference(reference.ddr).value_or(0);
  }
}

TEST(TlmNpu, RunsAgainAndAgainInOneSimulation) {
  const isa::Program program = testing::randomTileProgram(testing::smallConfig(), 21, 6);
  const SimResult reference = testing::run(program, SimMode::Timed);
  const isa::DdrImage initial = isa::DdrImage::fromProgram(program);
  isa::DdrImage ddr = initial;
  std::vector<PlatformRun> runs;
  std::vector<std::vector<std::uint64_t>> endCycles;
  runPlatform(ddr, program.config, {}, [&](TestCpu& cpu) {
    for (int r = 0; r < 3; ++r) {
      ddr = initial;  // the loader puts the inputs back
      runs.push_back(runOnce(cpu, program.codeAddress));
      endCycles.push_back(cpu.npu->lastEndCycles());
      sc_core::wait(sc_core::sc_time(100, sc_core::SC_NS));
    }
  });
  ASSERT_EQ(runs.size(), 3U);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    EXPECT_EQ(TestCpu::stateOf(runs[r].status), TlmNpuState::Done) << r;
    EXPECT_EQ(runs[r].cycles, reference.stats.totalCycles) << r;
    EXPECT_EQ(runs[r].elapsedPs(), 1000 * reference.stats.totalCycles) << r;
    EXPECT_EQ(endCycles[r], reference.endCycles) << r;
  }
  EXPECT_EQ(ddr, reference.ddr);
}

TEST(TlmNpu, StartWhileBusyIsIgnoredAndFlagged) {
  const isa::Program program = testing::randomTileProgram(testing::smallConfig(), 4, 4);
  const SimResult reference = testing::run(program, SimMode::Timed);
  isa::DdrImage ddr = isa::DdrImage::fromProgram(program);
  std::uint32_t busyStatus = 0;
  std::uint32_t afterRestart = 0;
  PlatformRun run;
  runPlatform(ddr, program.config, {}, [&](TestCpu& cpu) {
    cpu.start(program.codeAddress);
    const std::uint64_t started = nowPs();
    sc_core::wait(sc_core::sc_time(50, sc_core::SC_NS));
    cpu.write(regs::kControl, regs::kControlStart);
    busyStatus = cpu.read(regs::kStatus);
    cpu.waitForIrq();
    run.interruptedPs = nowPs();
    run.startedPs = started;
    run.status = cpu.read(regs::kStatus);
    run.cycles = cpu.read64(regs::kCyclesLo);
    // The next accepted START clears the flag.
    cpu.write(regs::kControl, regs::kControlStart);
    afterRestart = cpu.read(regs::kStatus);
    cpu.waitForIrq();
  });
  EXPECT_EQ(TestCpu::stateOf(busyStatus), TlmNpuState::Busy);
  EXPECT_NE(busyStatus & regs::kStatusStartIgnored, 0U);
  // The ignored START changed nothing: same cycles, interrupt at the first START's end.
  EXPECT_EQ(TestCpu::stateOf(run.status), TlmNpuState::Done);
  EXPECT_NE(run.status & regs::kStatusStartIgnored, 0U);
  EXPECT_EQ(run.cycles, reference.stats.totalCycles);
  EXPECT_EQ(run.elapsedPs(), 1000 * reference.stats.totalCycles);
  EXPECT_EQ(afterRestart, static_cast<std::uint32_t>(TlmNpuState::Busy));
}

TEST(TlmNpu, RegisterAccessesOutsideTheMapGetErrorResponses) {
  const isa::Program program = testing::assembleProgram("END\n");
  isa::DdrImage ddr = isa::DdrImage::fromProgram(program);
  runPlatform(ddr, program.config, {}, [&](TestCpu& cpu) {
    EXPECT_EQ(cpu.read(regs::kId), regs::kIdValue);
    EXPECT_EQ(cpu.read(regs::kVersion), regs::kVersionValue);
    EXPECT_EQ(cpu.read(regs::kStatus), static_cast<std::uint32_t>(TlmNpuState::Idle));
    EXPECT_EQ(cpu.read(regs::kFaultIndex), 0xffffffffU);
    std::array<unsigned char, 8> bytes{};
    const auto read = tlm::TLM_READ_COMMAND;
    const auto write = tlm::TLM_WRITE_COMMAND;
    // Past the map, misaligned, or a length other than 4 or 8.
    EXPECT_EQ(cpu.access(read, regs::kSpaceBytes, bytes.data(), 4),
              tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(cpu.access(read, 0x1000, bytes.data(), 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(cpu.access(read, 0x2, bytes.data(), 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(cpu.access(read, regs::kCyclesHi, bytes.data(), 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(cpu.access(read, regs::kSpaceBytes - 4, bytes.data(), 8),
              tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(cpu.access(read, regs::kId, bytes.data(), 2), tlm::TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(cpu.access(read, regs::kId, bytes.data(), 8, nullptr, 0, 4),
              tlm::TLM_BURST_ERROR_RESPONSE);
    // Byte enables must enable every byte.
    std::array<unsigned char, 4> enables{0xff, 0x00, 0xff, 0xff};
    EXPECT_EQ(cpu.access(write, regs::kCodeAddrLo, bytes.data(), 4, enables.data(), 4),
              tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    enables = {0xff, 0xff, 0xff, 0xff};
    EXPECT_EQ(cpu.access(read, regs::kId, bytes.data(), 8, enables.data(), 4),
              tlm::TLM_OK_RESPONSE);
    // Read-only registers refuse writes, also as half of an 8-byte write; nothing happens.
    EXPECT_EQ(cpu.access(write, regs::kStatus, bytes.data(), 4), tlm::TLM_COMMAND_ERROR_RESPONSE);
    EXPECT_EQ(cpu.access(write, regs::kId, bytes.data(), 4), tlm::TLM_COMMAND_ERROR_RESPONSE);
    bytes = {1, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(cpu.access(write, regs::kControl, bytes.data(), 8), tlm::TLM_COMMAND_ERROR_RESPONSE);
    sc_core::wait(sc_core::sc_time(10, sc_core::SC_NS));
    EXPECT_EQ(cpu.read(regs::kStatus), static_cast<std::uint32_t>(TlmNpuState::Idle));
    // An 8-byte write and read of CODE_ADDR; CONTROL reads 0.
    const std::uint64_t address = 0x0000001234567890ULL;
    std::memcpy(bytes.data(), &address, 8);
    EXPECT_EQ(cpu.access(write, regs::kCodeAddrLo, bytes.data(), 8), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(cpu.read(regs::kCodeAddrLo), 0x34567890U);
    EXPECT_EQ(cpu.read(regs::kCodeAddrHi), 0x12U);
    EXPECT_EQ(cpu.read64(regs::kCodeAddrLo), address);
    EXPECT_EQ(cpu.read(regs::kControl), 0U);
    // IGNORE commands are accepted and do nothing.
    EXPECT_EQ(cpu.access(tlm::TLM_IGNORE_COMMAND, regs::kControl, bytes.data(), 4),
              tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(cpu.read(regs::kStatus), static_cast<std::uint32_t>(TlmNpuState::Idle));
  });
}

/// The fault a START of the program at `codeAddress` ends with: STATUS, CYCLES, FAULT_INDEX, the
/// message, and whether the interrupt came.
struct FaultSeen {
  PlatformRun run;
  std::uint32_t faultIndex = 0;
  std::string message;
};

FaultSeen startAndReadFault(TestCpu& cpu, std::uint64_t codeAddress) {
  FaultSeen seen;
  seen.run = runOnce(cpu, codeAddress);
  seen.faultIndex = cpu.read(regs::kFaultIndex);
  seen.message = cpu.npu->lastFault() ? cpu.npu->lastFault()->what() : "(no fault)";
  return seen;
}

std::uint32_t faultCode(FaultKind kind) {
  return (1U + static_cast<std::uint32_t>(kind)) << regs::kStatusFaultShift;
}

TEST(TlmNpu, BadCodeAddressesEndInFaults) {
  const isa::Program program = testing::randomTileProgram(testing::smallConfig(), 3, 3);
  const SimResult reference = testing::run(program, SimMode::Timed);
  isa::DdrImage ddr = isa::DdrImage::fromProgram(program);
  std::vector<FaultSeen> faults;
  PlatformRun good;
  runPlatform(ddr, program.config, {}, [&](TestCpu& cpu) {
    // A word crossing the end of DDR, and a word of the fill pattern (not an instruction).
    faults.push_back(startAndReadFault(cpu, program.config.ddrBytes - 8));
    faults.push_back(startAndReadFault(cpu, program.config.ddrBytes - 0x100000));
    good = runOnce(cpu, program.codeAddress);
  });
  ASSERT_EQ(faults.size(), 2U);
  const std::uint32_t faultState = static_cast<std::uint32_t>(TlmNpuState::Fault);
  EXPECT_EQ(faults[0].run.status, faultState | faultCode(FaultKind::DdrOutOfRange))
      << faults[0].message;
  EXPECT_NE(faults[0].message.find("ddr-out-of-range fault at instruction 0 (fetch unit)"),
            std::string::npos)
      << faults[0].message;
  EXPECT_EQ(faults[1].run.status, faultState | faultCode(FaultKind::IllegalWord))
      << faults[1].message;
  EXPECT_NE(faults[1].message.find("illegal-word fault at instruction 0"), std::string::npos)
      << faults[1].message;
  for (const FaultSeen& fault : faults) {
    // Nothing ran: no cycles, the interrupt at once.
    EXPECT_EQ(fault.faultIndex, 0U);
    EXPECT_EQ(fault.run.cycles, 0U);
    EXPECT_EQ(fault.run.retired, 0U);
    EXPECT_EQ(fault.run.elapsedPs(), 0U);
  }
  EXPECT_EQ(TestCpu::stateOf(good.status), TlmNpuState::Done);
  EXPECT_EQ(good.cycles, reference.stats.totalCycles);
}

TEST(TlmNpu, AMemoryRefusingATransferFaultsTheRunAndTheNextRunIsWhole) {
  // The STORE's write lands past the end of a memory smaller than the hardware's DDR.
  const isa::Program program = testing::assembleProgram(
      "LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "STORE ddr_addr=0x20000 y_size=1 x_size=1 c_bytes=16\n"
      "END\n");
  const SimResult reference = testing::run(program, SimMode::Timed);
  isa::DdrImage ddr = isa::DdrImage::fromProgram(program);
  FaultSeen refused;
  PlatformRun good;
  runPlatform(ddr, program.config, {}, [&](TestCpu& cpu) {
    TestMemory& memory = *dynamic_cast<TestMemory*>(sc_core::sc_find_object("memory"));
    memory.limit = 0x10000;
    refused = startAndReadFault(cpu, program.codeAddress);
    memory.limit = ddr.size();
    good = runOnce(cpu, program.codeAddress);
  });
  EXPECT_EQ(refused.run.status,
            static_cast<std::uint32_t>(TlmNpuState::Fault) | faultCode(FaultKind::DdrOutOfRange));
  EXPECT_EQ(refused.faultIndex, 1U);
  EXPECT_NE(refused.message.find("ddr-out-of-range fault at instruction 1 (STORE, store unit): "
                                 "the memory answered TLM_ADDRESS_ERROR_RESPONSE to a write of "
                                 "16 bytes at DDR 0x20000"),
            std::string::npos)
      << refused.message;
  // The LOAD, and END (retired when fetch reaches it).
  EXPECT_EQ(refused.run.retired, 2U);
  EXPECT_EQ(TestCpu::stateOf(good.status), TlmNpuState::Done);
  EXPECT_EQ(good.cycles, reference.stats.totalCycles);
  EXPECT_EQ(ddr, reference.ddr);
}

TEST(TlmNpu, TheWatchdogStopsARunAtItsLimit) {
  const isa::Program program = testing::randomTileProgram(testing::smallConfig(), 8, 4);
  SimOptions timed;
  timed.maxCycles = 300;
  const SimResult reference = testing::run(program, SimMode::Timed, timed);
  ASSERT_TRUE(reference.fault);
  PlatformOptions options;
  options.maxCycles = 300;
  isa::DdrImage ddr = isa::DdrImage::fromProgram(program);
  FaultSeen first;
  FaultSeen second;
  runPlatform(ddr, program.config, options, [&](TestCpu& cpu) {
    first = startAndReadFault(cpu, program.codeAddress);
    second = startAndReadFault(cpu, program.codeAddress);
  });
  for (const FaultSeen* seen : {&first, &second}) {
    EXPECT_EQ(seen->run.status,
              static_cast<std::uint32_t>(TlmNpuState::Fault) | faultCode(FaultKind::Watchdog));
    EXPECT_EQ(seen->run.cycles, 300U);
    EXPECT_EQ(seen->run.cycles, reference.stats.totalCycles);
    EXPECT_EQ(seen->message, std::string(reference.fault->what()));
    EXPECT_EQ(seen->run.elapsedPs(), 300U * 1000U);
  }
}

TEST(TlmNpu, WithoutIrqEnableTheLineStaysLowAndStatusShowsTheEnd) {
  const isa::Program program = testing::randomTileProgram(testing::smallConfig(), 5, 2);
  const SimResult reference = testing::run(program, SimMode::Timed);
  isa::DdrImage ddr = isa::DdrImage::fromProgram(program);
  bool lineRose = false;
  std::uint32_t status = 0;
  std::uint32_t irqStatus = 0;
  std::uint64_t cycles = 0;
  runPlatform(ddr, program.config, {}, [&](TestCpu& cpu) {
    cpu.write(regs::kCodeAddrLo, static_cast<std::uint32_t>(program.codeAddress));
    cpu.write(regs::kControl, regs::kControlStart);
    // Poll STATUS as a driver without interrupts would.
    while (TestCpu::stateOf(status = cpu.read(regs::kStatus)) == TlmNpuState::Busy) {
      lineRose = lineRose || cpu.irq.read();
      sc_core::wait(sc_core::sc_time(7, sc_core::SC_NS));
    }
    irqStatus = cpu.read(regs::kIrqStatus);
    cycles = cpu.read64(regs::kCyclesLo);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    lineRose = lineRose || cpu.irq.read();
    // Enabling it now raises the line for the run that ended; clearing lowers it.
    cpu.write(regs::kIrqEnable, 1);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(cpu.irq.read());
    cpu.write(regs::kIrqStatus, 1);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_FALSE(cpu.irq.read());
  });
  EXPECT_FALSE(lineRose);
  EXPECT_EQ(TestCpu::stateOf(status), TlmNpuState::Done);
  EXPECT_EQ(irqStatus, 1U);
  EXPECT_EQ(cycles, reference.stats.totalCycles);
}

/// Every SystemC thread below `object`.
std::vector<sc_core::sc_process_handle> threadsUnder(const sc_core::sc_object& object) {
  std::vector<sc_core::sc_process_handle> threads;
  for (sc_core::sc_object* child : object.get_child_objects()) {
    const sc_core::sc_process_handle handle(child);
    if (handle.valid() && handle.proc_kind() == sc_core::SC_THREAD_PROC_) {
      threads.push_back(handle);
    }
    for (const sc_core::sc_process_handle& inner : threadsUnder(*child)) {
      threads.push_back(inner);
    }
  }
  return threads;
}

TEST(TlmNpu, ShutdownEndsEveryThreadAlsoMidRun) {
  const isa::Program program = testing::randomTileProgram(testing::smallConfig(), 6, 4);
  isa::DdrImage ddr = isa::DdrImage::fromProgram(program);
  std::size_t threads = 0;
  std::size_t alive = 0;
  std::uint32_t status = 0;
  bool interrupted = false;
  runPlatform(
      ddr, program.config, {},
      [&](TestCpu& cpu) {
        cpu.start(program.codeAddress);
        sc_core::wait(sc_core::sc_time(200, sc_core::SC_NS));
        threads = threadsUnder(*cpu.npu).size();
        cpu.npu->shutdown();
        sc_core::wait(sc_core::sc_time(10, sc_core::SC_US));
        interrupted = cpu.irq.read();
        cpu.write(regs::kControl, regs::kControlStart);
        status = cpu.read(regs::kStatus);
      },
      [&](TlmNpu& npu, TestMemory& /*memory*/) {
        for (const sc_core::sc_process_handle& thread : threadsUnder(npu)) {
          alive += thread.terminated() ? 0 : 1;
        }
      });
  // control, fetch, load, compute (its dispatcher and two sides), store and the DDR port's
  // arbiter.
  EXPECT_EQ(threads, 8U);
  EXPECT_EQ(alive, 0U);
  EXPECT_FALSE(interrupted);
  EXPECT_EQ(status, static_cast<std::uint32_t>(TlmNpuState::Busy) | regs::kStatusStartIgnored);
}

TEST(TlmNpu, RefusesTheFunctionalMode) {
  const isa::NpuConfig config = testing::smallConfig();
  std::thread([&] {
    const SimulationContext simulationContext;
    TlmNpuOptions options;
    options.sim.mode = SimMode::Functional;
    EXPECT_THROW(TlmNpu("npu", config, options), Error);
  }).join();
}

}  // namespace
}  // namespace npu::sim
