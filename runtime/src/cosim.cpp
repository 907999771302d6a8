// cosimulate: SystemC timed model and RTL side by side.
#include "npu/runtime/cosim.h"

#include <fmt/format.h>

#include "npu/support/error.h"

namespace npu::runtime {

CosimReport cosimulate(const isa::Program& program, const rtl::RtlOptions& options) {
  CosimReport report;
  report.timed = runOnEngine(program, Engine::Timed);
  if (report.timed.fault) {
    fail(ErrorKind::Verification, "the SystemC model faulted, nothing to compare: {}",
         *report.timed.fault);
  }
  EngineOptions rtlOptions;
  rtlOptions.rtl = options;
  report.rtl = runOnEngine(program, Engine::Rtl, rtlOptions);
  if (report.rtl.fault) {
    fail(ErrorKind::Verification, "{}",
         *report.rtl.fault);  // watchdog, illegal word, DDR bound: nothing to compare
  }
  report.firstDdrDifference = report.timed.ddr.firstDifference(report.rtl.ddr);
  const std::vector<std::uint64_t>& want = report.timed.endCycles;
  const std::vector<std::uint64_t>& got = report.rtl.endCycles;
  for (std::size_t i = 0; i < std::max(want.size(), got.size()); ++i) {
    if (i >= want.size() || i >= got.size() || want[i] != got[i]) {
      report.firstCycleDifference = i;
      break;
    }
  }
  return report;
}

std::string CosimReport::summary(const isa::Program& program) const {
  std::string text;
  if (firstDdrDifference) {
    const std::uint64_t a = *firstDdrDifference;
    text += fmt::format(
        "DDR: RTL != SystemC, first difference at 0x{:x} (SystemC 0x{:02x}, RTL "
        "0x{:02x})\n",
        a, timed.ddr.readByte(a), rtl.ddr.readByte(a));
  } else {
    text += fmt::format("DDR: RTL == SystemC ({} bytes compared)\n", rtl.ddr.size());
  }
  text += fmt::format("cycles: SystemC {}, RTL {} (delta {})\n", timed.totalCycles, rtl.totalCycles,
                      cycleDelta());
  if (firstCycleDifference) {
    const std::size_t i = *firstCycleDifference;
    const auto cyclesOf = [&](const std::vector<std::uint64_t>& ends) {
      return i < ends.size() ? fmt::format("{}", ends[i]) : std::string("-");
    };
    text += fmt::format(
        "first instruction whose end cycle differs: {} ({}): SystemC {}, RTL {}\n", i,
        i < program.instructions.size() ? isa::mnemonicOf(program.instructions[i]) : "?",
        cyclesOf(timed.endCycles), cyclesOf(rtl.endCycles));
  }
  const auto rate = [](std::uint64_t cycles, double seconds) {
    return seconds > 0 ? static_cast<double>(cycles) / seconds : 0.0;
  };
  text += fmt::format(
      "speed: SystemC {:.3f} s ({:.0f} cycles/s), RTL {:.3f} s ({:.0f} cycles/s), CPU time\n",
      timed.seconds, rate(timed.totalCycles, timed.seconds), rtl.seconds,
      rate(rtl.totalCycles, rtl.seconds));
  return text;
}

}  // namespace npu::runtime
