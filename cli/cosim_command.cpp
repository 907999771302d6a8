// `npu cosim PROGRAM.npub|BUNDLE_DIR [--wave w.fst] [--ddr-out rtl.bin]`: runs the SystemC timed
// model and the RTL (Verilator) on one program, compares the whole final DDR byte for byte and the
// end cycle of every instruction, and prints both cycle counts. Given an export bundle (`npu
// export`), it first checks the bundle (readBundle: every file's CRC, every manifest field against
// the program), then also compares the RTL's final DDR with each region's expected image and its
// cycle count with the bundle's expected cycles. Any difference is an error (exit 1).
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "console.h"
#include "npu/isa/npu_config.h"
#include "npu/isa/program.h"
#include "npu/runtime/cosim.h"
#include "npu/runtime/export_bundle.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::cli {

void addCosimCommand(CLI::App& app, Action& action) {
  struct Options {
    std::string program;
    std::string wave;
    std::string ddrOut;
    std::uint64_t maxCycles = 1'000'000'000ULL;
    OutputOptions output;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command =
      app.add_subcommand("cosim", "Run a program on the SystemC model and the RTL and compare");
  command
      ->add_option("PROGRAM", options->program, "Program file (.npub) or export bundle directory")
      ->required();
  command->add_option("--wave", options->wave, "Write an FST waveform of the RTL run here");
  command->add_option("--ddr-out", options->ddrOut, "Write the RTL's final DDR (.bin, or .hex)");
  command->add_option("--max-cycles", options->maxCycles, "RTL watchdog limit in cycles");
  addOutputOptions(command, options->output);
  command->callback([&action, options] {
    action = [options] {
      const Console console(options->output, isStandardOutput(options->ddrOut));
      const std::filesystem::path input(options->program);
      std::optional<runtime::Bundle> bundle;
      if (std::filesystem::is_directory(input)) {
        bundle = runtime::readBundle(input);
      }
      const isa::Program program = bundle ? bundle->program : isa::readProgramFile(input);
      rtl::RtlOptions rtlOptions;
      rtlOptions.waveform = options->wave;
      rtlOptions.maxCycles = options->maxCycles;
      const runtime::CosimReport report = runtime::cosimulate(program, rtlOptions);
      if (!options->ddrOut.empty()) {
        if (options->ddrOut.ends_with(".hex")) {
          report.rtl.ddr.saveHex(options->ddrOut);
        } else {
          report.rtl.ddr.saveBin(options->ddrOut);
        }
      }
      fmt::print(console.out(), "{}: {} instructions\n{}", options->program,
                 program.instructions.size(), report.summary(program));
      nlohmann::ordered_json summary =
          summaryJson("cosim", reportProvenance(isa::toYaml(program.config)));
      summary["program"] = options->program;
      summary["instructions"] = program.instructions.size();
      summary["matches"] = report.matches();
      summary["simulator_cycles"] = report.timed.totalCycles;
      summary["rtl_cycles"] = report.rtl.totalCycles;
      summary["cycle_delta"] = report.cycleDelta();
      summary["first_ddr_difference"] = report.firstDdrDifference
                                            ? nlohmann::ordered_json(*report.firstDdrDifference)
                                            : nlohmann::ordered_json();
      summary["bundle"] =
          bundle ? nlohmann::ordered_json(input.string()) : nlohmann::ordered_json();
      if (!report.matches()) {
        console.printJson(summary.dump(2) + "\n");
      }
      if (bundle) {
        runtime::checkRunAgainstBundle(input, *bundle, report.rtl.ddr, report.rtl.totalCycles,
                                       "the RTL");
        fmt::print(console.out(),
                   "bundle {}: {} regions equal to the expected images; expected cycles {}, RTL "
                   "{}\n",
                   input.string(), bundle->regions.size(), bundle->expectedCycles,
                   report.rtl.totalCycles);
      }
      if (!report.matches()) {
        fail(ErrorKind::Verification, "co-simulation of {} failed: {}", options->program,
             report.firstDdrDifference ? "the final DDR differs" : "the cycle counts differ");
      }
      console.printJson(summary.dump(2) + "\n");
      return 0;
    };
  });
}

}  // namespace npu::cli
