// `npu sim PROGRAM.npub [--mode functional|timed] [--stats s.json] [--trace t.json] [--wave w.vcd]
// [--ddr-out final.bin|final.hex] [--quiet|--verbose] [--json]`: runs a program and writes what was
// asked, even after a fault.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <thread>

#include "commands.h"
#include "console.h"
#include "npu/isa/npu_config.h"
#include "npu/isa/program.h"
#include "npu/runtime/engine.h"
#include "npu/simulator/simulate.h"
#include "npu/support/file_io.h"

namespace npu::cli {

void addSimCommand(CLI::App& app, Action& action) {
  struct Options {
    std::string program;
    std::string mode = "timed";
    std::string stats;
    std::string trace;
    std::string wave;
    std::string ddrOut;
    std::uint64_t maxCycles = 0;  // derived from the program
    bool forceSerial = false;
    bool countOnly = false;
    bool noHazardCheck = false;
    unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1U, 256U);
    OutputOptions output;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand("sim", "Run a program on the NPU simulator");
  command->add_option("PROGRAM", options->program, "Program file (.npub)")->required();
  command->add_option("--mode", options->mode, "functional or timed (cycle-accurate SystemC)")
      ->check(CLI::IsMember({"functional", "timed"}));
  command->add_option("--stats", options->stats, "Write statistics JSON here");
  command->add_option("--trace", options->trace, "Write a Chrome/Perfetto trace JSON here");
  command->add_option("--wave", options->wave,
                      "Write a waveform (VCD) of the units' busy signals here");
  // The old name of --wave, kept hidden for scripts (docs/architecture.md, "Vocabulary").
  command->add_option("--vcd", options->wave, "Deprecated: --wave")->group("");
  command->add_option("--ddr-out", options->ddrOut, "Write the final DDR (.bin, or .hex)");
  CLI::Option* maxCycles =
      command->add_option("--max-cycles", options->maxCycles,
                          "Watchdog limit in cycles (timed mode; default 4x the program's serial "
                          "cycles + 1,000,000)");
  command->add_flag("--force-serial", options->forceSerial, "No overlap between units");
  command->add_flag("--count-only", options->countOnly, "Timing only, no datapath");
  command->add_flag("--no-hazard-check", options->noHazardCheck,
                    "Skip the token/hazard race check");
  command
      ->add_option("--threads", options->threads,
                   "Host threads for large CONV datapaths (default: all cores; results and "
                   "cycles do not depend on it)")
      ->check(CLI::Range(1U, 256U));
  CLI::Option* trace = command->get_option("--trace");
  CLI::Option* wave = command->get_option("--wave");
  CLI::Option* vcd = command->get_option("--vcd");
  addOutputOptions(command, options->output);
  command->callback([&action, options, maxCycles, trace, wave, vcd] {
    // Functional mode has no time, so a cycle limit would be silently ignored there.
    if (options->mode == "functional" && maxCycles->count() > 0) {
      throw CLI::ValidationError("--max-cycles applies to the timed mode, not --mode functional");
    }
    // Nor has it spans: a trace or VCD would be written empty.
    if (options->mode == "functional" &&
        (trace->count() > 0 || wave->count() > 0 || vcd->count() > 0)) {
      throw CLI::ValidationError(
          fmt::format("{} applies to the timed mode, not --mode functional",
                      trace->count() > 0 ? "--trace" : (wave->count() > 0 ? "--wave" : "--vcd")));
    }
    action = [options] {
      const Console console(options->output, isStandardOutput(options->stats) ||
                                                 isStandardOutput(options->trace) ||
                                                 isStandardOutput(options->wave) ||
                                                 isStandardOutput(options->ddrOut));
      const isa::Program program = isa::readProgramFile(options->program);
      // CLI11 admits functional and timed only: `npu sim` drives the simulator itself (its
      // traces and stats); the RTL runs programs through `npu cosim`.
      sim::SimOptions simOptions = runtime::simOptionsFor(*runtime::parseEngine(options->mode));
      simOptions.maxCycles = options->maxCycles;
      simOptions.forceSerial = options->forceSerial;
      simOptions.countOnly = options->countOnly;
      simOptions.checkHazards = !options->noHazardCheck;
      simOptions.datapathThreads = options->threads;
      simOptions.collectTrace = !options->trace.empty() || !options->wave.empty();
      const sim::SimResult result = sim::simulate(program, simOptions);
      // Outputs are written even after a fault: they show the state the fault left.
      const Provenance provenance = reportProvenance(isa::toYaml(program.config));
      const std::string stats = sim::statsToJson(result.stats, result.fault, provenance);
      if (!options->stats.empty()) {
        writeTextFile(options->stats, stats);
      }
      if (!options->trace.empty()) {
        writeTextFile(options->trace, sim::traceToJson(result.trace, provenance));
      }
      if (!options->wave.empty()) {
        writeTextFile(options->wave, sim::traceToVcd(result.trace, result.stats.totalCycles));
      }
      if (!options->ddrOut.empty()) {
        if (options->ddrOut.ends_with(".hex")) {
          result.ddr.saveHex(options->ddrOut);
        } else {
          result.ddr.saveBin(options->ddrOut);
        }
      }
      console.printJson(stats);  // the same document as --stats, fault or not
      if (result.fault) {
        throw *result.fault;
      }
      const sim::SimStats& s = result.stats;
      std::FILE* summary = console.out();
      if (s.mode == "timed") {
        fmt::print(summary,
                   "{}: {} instructions, {} cycles, {} MACs ({:.1f}% MAC utilization), DDR {} B "
                   "read / {} B written ({} B in whole bursts)\n",
                   options->program, program.instructions.size(), s.totalCycles, s.macs,
                   100.0 * s.macUtilization, s.ddrBytesRead, s.ddrBytesWritten, s.ddrBurstBytes);
      } else {
        fmt::print(
            summary,
            "{}: {} instructions, {} MACs, DDR {} B read / {} B written ({} B in whole bursts) "
            "(functional)\n",
            options->program, program.instructions.size(), s.macs, s.ddrBytesRead,
            s.ddrBytesWritten, s.ddrBurstBytes);
      }
      for (const auto& [name, unit] : s.units) {
        std::uint64_t stalls = 0;
        for (const auto& [reason, cycles] : unit.stallCycles) {
          stalls += cycles;
        }
        fmt::print(console.detail(), "  {}: {} instructions, {} busy cycles, {} stall cycles\n",
                   name, unit.instructions, unit.busyCycles, stalls);
      }
      return 0;
    };
  });
}

}  // namespace npu::cli
