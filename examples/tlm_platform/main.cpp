// tlm_platform: a small SystemC virtual platform around the TLM NPU (docs/tlm.md). A testbench
// CPU, a memory and the NPU share a bus; the CPU loads a bring-up bundle (`npu export`) into the
// memory, starts the NPU, waits for its interrupt and checks every region and the cycle count.
//
//   tlm_platform BUNDLE_DIR [--runs N] [--period-ns T] [--code-address A] [--flip A]
//
// One line on stdout, PASS or FAIL. Exit status 0 on PASS, 1 when a check fails, 2 on a usage
// error, 3 when the bundle cannot be read.
#include <systemc>

#include <fmt/format.h>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "bus.h"
#include "cpu.h"
#include "memory.h"
#include "npu/runtime/export_bundle.h"
#include "npu/simulator/tlm_npu.h"
#include "npu/support/error.h"

namespace {

/// The platform's address map: DRAM (the NPU's DDR) and a 4 KiB page for the NPU's registers.
constexpr std::uint64_t kMemoryBase = 0x80000000;
constexpr std::uint64_t kRegistersBase = 0x10000000;
constexpr std::uint64_t kRegistersWindow = 0x1000;

struct Arguments {
  std::string bundle;
  int runs = 1;
  double periodNs = 1.0;
  std::optional<std::uint64_t> codeAddress;
  std::optional<std::uint64_t> flip;
};

/// A decimal or 0x-prefixed hexadecimal integer, or nullopt.
std::optional<std::uint64_t> parseInteger(std::string_view text) {
  int base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    text.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::optional<Arguments> parseArguments(int argc, char* argv[], std::string& problem) {
  Arguments args;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool hasValue = i + 1 < argc;
    if (arg == "--runs" || arg == "--period-ns" || arg == "--code-address" || arg == "--flip") {
      if (!hasValue) {
        problem = fmt::format("{} needs a value", arg);
        return std::nullopt;
      }
      const std::string_view value = argv[++i];
      if (arg == "--period-ns") {
        char* end = nullptr;
        const std::string text(value);
        args.periodNs = std::strtod(text.c_str(), &end);
        if (end != text.c_str() + text.size() || !(args.periodNs > 0)) {
          problem = fmt::format("--period-ns {}: not a positive number", value);
          return std::nullopt;
        }
        continue;
      }
      const std::optional<std::uint64_t> number = parseInteger(value);
      if (!number || (arg == "--runs" && (*number < 1 || *number > 1000))) {
        problem = fmt::format("{} {}: not {}", arg, value,
                              arg == "--runs" ? "a count from 1 to 1000" : "an address");
        return std::nullopt;
      }
      if (arg == "--runs") {
        args.runs = static_cast<int>(*number);
      } else if (arg == "--code-address") {
        args.codeAddress = number;
      } else {
        args.flip = number;
      }
    } else if (arg.starts_with("-") || !args.bundle.empty()) {
      problem = fmt::format("unexpected argument '{}'", arg);
      return std::nullopt;
    } else {
      args.bundle = arg;
    }
  }
  if (args.bundle.empty()) {
    problem = "no bundle folder given";
    return std::nullopt;
  }
  return args;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  std::string problem;
  const std::optional<Arguments> args = parseArguments(argc, argv, problem);
  if (!args) {
    std::fprintf(stderr,
                 "tlm_platform: %s\nusage: tlm_platform BUNDLE_DIR [--runs N] [--period-ns T] "
                 "[--code-address A] [--flip A]\n",
                 problem.c_str());
    return 2;
  }
  npu::runtime::Bundle bundle;
  try {
    bundle = npu::runtime::readBundle(args->bundle);
  } catch (const npu::Error& e) {
    std::fprintf(stderr, "tlm_platform: %s\n", e.what());
    return 3;
  }
  const npu::isa::NpuConfig& config = bundle.program.config;
  const sc_core::sc_time period(args->periodNs, sc_core::SC_NS);

  // Elaboration: the bus, the memory behind it, the NPU (its registers behind the bus, its
  // system-memory socket in front of it), the CPU and the interrupt line.
  platform::Bus bus("bus");
  platform::Memory memory("memory", config.ddrBytes, sc_core::sc_time(10, sc_core::SC_NS));
  npu::sim::TlmNpuOptions npuOptions;
  npuOptions.clockPeriod = period;
  npuOptions.ddrBase = kMemoryBase;
  npu::sim::TlmNpu npu("npu", config, npuOptions);
  platform::CpuJob job;
  job.bundleDir = args->bundle;
  job.bundle = &bundle;
  job.memoryBase = kMemoryBase;
  job.registersBase = kRegistersBase;
  job.clockPeriod = period;
  job.codeAddress = args->codeAddress.value_or(bundle.codeAddress);
  job.runs = args->runs;
  job.flipAddress = args->flip;
  std::optional<platform::TestbenchCpu> cpu;
  try {
    cpu.emplace("cpu", job, npu);
  } catch (const npu::Error& e) {
    std::fprintf(stderr, "tlm_platform: %s\n", e.what());
    return 3;
  }
  sc_core::sc_signal<bool> irq("irq");
  cpu->bus.bind(bus.in);
  npu.mem.bind(bus.in);
  bus.out.bind(memory.socket);
  bus.map(kMemoryBase, config.ddrBytes);
  bus.out.bind(npu.regs);
  bus.map(kRegistersBase, kRegistersWindow);
  npu.irq.bind(irq);
  cpu->irq.bind(irq);

  sc_core::sc_start();

  const platform::CpuOutcome& outcome = cpu->outcome();
  if (!outcome.finished) {
    std::printf("FAIL: %s: the simulation ended at %s before the CPU finished\n",
                args->bundle.c_str(), sc_core::sc_time_stamp().to_string().c_str());
    return 1;
  }
  if (!outcome.passed) {
    std::printf("FAIL: %s\n", outcome.failure.c_str());
    return 1;
  }
  std::printf(
      "PASS: %s: %d run%s of %llu cycles%s (expected_cycles %llu), interrupt %s after "
      "START at %s per cycle, %zu regions bit-exact, nothing else written\n",
      args->bundle.c_str(), args->runs, args->runs == 1 ? "" : "s",
      static_cast<unsigned long long>(outcome.cycles.front()), args->runs == 1 ? "" : " each",
      static_cast<unsigned long long>(bundle.expectedCycles),
      outcome.interruptAfter.to_string().c_str(), period.to_string().c_str(),
      bundle.regions.size());
  return 0;
}
