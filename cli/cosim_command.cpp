// `npu cosim PROGRAM.npub [--wave w.fst] [--ddr-out rtl.bin]`: runs the SystemC timed model and the
// RTL (Verilator) on one program, compares the whole final DDR byte for byte and the end cycle of
// every instruction, and prints both cycle counts. Any difference is an error (exit 1).
#include <fmt/format.h>

#include <memory>
#include <string>

#include "commands.h"
#include "npu/isa/program.h"
#include "npu/rtl/cosim.h"
#include "npu/support/error.h"

namespace npu::cli {

void addCosimCommand(CLI::App& app, Action& action) {
  struct Options {
    std::string program;
    std::string wave;
    std::string ddrOut;
    std::uint64_t maxCycles = 1'000'000'000ULL;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command =
      app.add_subcommand("cosim", "Run a program on the SystemC model and the RTL and compare");
  command->add_option("PROGRAM", options->program, "Program file (.npub)")->required();
  command->add_option("--wave", options->wave, "Write an FST waveform of the RTL run here");
  command->add_option("--ddr-out", options->ddrOut, "Write the RTL's final DDR (.bin, or .hex)");
  command->add_option("--max-cycles", options->maxCycles, "RTL watchdog limit in cycles");
  command->callback([&action, options] {
    action = [options] {
      const isa::Program program = isa::readProgramFile(options->program);
      rtl::RtlOptions rtlOptions;
      rtlOptions.waveform = options->wave;
      rtlOptions.maxCycles = options->maxCycles;
      const rtl::CosimReport report = rtl::cosimulate(program, rtlOptions);
      if (!options->ddrOut.empty()) {
        if (options->ddrOut.ends_with(".hex")) {
          report.rtl.ddr.saveHex(options->ddrOut);
        } else {
          report.rtl.ddr.saveBin(options->ddrOut);
        }
      }
      fmt::print("{}: {} instructions\n{}", options->program, program.instructions.size(),
                 report.summary(program));
      if (!report.matches()) {
        fail("co-simulation of {} failed: {}", options->program,
             report.firstDdrDifference ? "the final DDR differs" : "the cycle counts differ");
      }
      return 0;
    };
  });
}

}  // namespace npu::cli
