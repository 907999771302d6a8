// `npu asm FILE.s -o FILE.npub` and `npu disasm FILE.npub`.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "commands.h"
#include "npu/isa/assembly.h"
#include "npu/isa/program.h"

namespace npu::cli {

void addAsmCommands(CLI::App& app, Action& action) {
  struct Options {
    std::string source;
    std::string output;
    std::string program;
  };
  auto options = std::make_shared<Options>();

  CLI::App* assembleCommand =
      app.add_subcommand("asm", "Assemble program text into a .npub program file");
  assembleCommand->add_option("FILE", options->source, "Assembly source (.s)")->required();
  assembleCommand->add_option("-o,--output", options->output, "Program file to write (.npub)")
      ->required();
  assembleCommand->callback([&action, options] {
    action = [options] {
      isa::writeProgramFile(options->output, isa::assembleFile(options->source));
      return 0;
    };
  });

  CLI::App* disassembleCommand =
      app.add_subcommand("disasm", "Print a .npub program file as canonical assembly text");
  disassembleCommand->add_option("FILE", options->program, "Program file (.npub)")->required();
  disassembleCommand->callback([&action, options] {
    action = [options] {
      fmt::print("{}", isa::disassemble(isa::readProgramFile(options->program)));
      return 0;
    };
  });
}

}  // namespace npu::cli
