// `npu cosim PROGRAM.npub|BUNDLE_DIR [--wave w.fst] [--ddr-out rtl.bin]`: runs the SystemC timed
// model and the RTL (Verilator) on one program, compares the whole final DDR byte for byte and the
// end cycle of every instruction, and prints both cycle counts. Given an export bundle (`npu
// export`), it first re-checks every CRC of the bundle, then also compares the RTL's final DDR
// with each region's expected image and its cycle count with the bundle's expected cycles. Any
// difference is an error (exit 1).
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "npu/isa/program.h"
#include "npu/runtime/cosim.h"
#include "npu/runtime/export_bundle.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::cli {

namespace {

/// The RTL's final DDR against the bundle's expected region images and cycle count.
void checkAgainstBundle(const std::filesystem::path& dir, const runtime::Bundle& bundle,
                        const runtime::CosimReport& report) {
  for (const runtime::BundleRegion& region : bundle.regions) {
    const std::vector<std::uint8_t> expected = readBinaryFile(dir / region.expectedFile);
    const std::vector<std::uint8_t> actual = report.rtl.ddr.readRange(region.base, region.size);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (expected[i] != actual[i]) {
        fail(ErrorKind::Verification,
             "{}: region '{}' differs at 0x{:x} (offset {}): expected 0x{:02x}, the RTL wrote "
             "0x{:02x}",
             dir.string(), region.name, region.base + i, i, expected[i], actual[i]);
      }
    }
  }
  fmt::print("bundle {}: {} regions equal to the expected images; expected cycles {}, RTL {}\n",
             dir.string(), bundle.regions.size(), bundle.expectedCycles, report.rtl.totalCycles);
  if (report.rtl.totalCycles != bundle.expectedCycles) {
    fail(ErrorKind::Verification, "{}: the RTL ran {} cycles, the bundle expects {}", dir.string(),
         report.rtl.totalCycles, bundle.expectedCycles);
  }
}

}  // namespace

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
  command
      ->add_option("PROGRAM", options->program, "Program file (.npub) or export bundle directory")
      ->required();
  command->add_option("--wave", options->wave, "Write an FST waveform of the RTL run here");
  command->add_option("--ddr-out", options->ddrOut, "Write the RTL's final DDR (.bin, or .hex)");
  command->add_option("--max-cycles", options->maxCycles, "RTL watchdog limit in cycles");
  command->callback([&action, options] {
    action = [options] {
      const std::filesystem::path input(options->program);
      std::optional<runtime::Bundle> bundle;
      if (std::filesystem::is_directory(input)) {
        bundle = runtime::readBundle(input);
      }
      const isa::Program program =
          isa::readProgramFile(bundle ? input / bundle->programFile : input);
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
      fmt::print("{}: {} instructions\n{}", options->program, program.instructions.size(),
                 report.summary(program));
      if (bundle) {
        checkAgainstBundle(input, *bundle, report);
      }
      if (!report.matches()) {
        fail(ErrorKind::Verification, "co-simulation of {} failed: {}", options->program,
             report.firstDdrDifference ? "the final DDR differs" : "the cycle counts differ");
      }
      return 0;
    };
  });
}

}  // namespace npu::cli
