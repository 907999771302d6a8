// The text form of programs: an assembler and a disassembler that round-trip exactly.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "npu/isa/instruction.h"
#include "npu/isa/program.h"

namespace npu::isa {

/// Assembles program text (syntax in docs/isa.md). `source` names the text in errors
/// ("file:line: ..."); `.hw` paths resolve relative to `baseDir`.
Program assemble(std::string_view text, std::string_view source,
                 const std::filesystem::path& baseDir);

/// Reads and assembles a file.
Program assembleFile(const std::filesystem::path& path);

/// Canonical text of a program: directives, then data, then one line per instruction, with a
/// comment line `; layer 'NAME' (instructions A..B)` before the first instruction of each range
/// of p.layers. assemble(disassemble(p)) == p without its layers whenever the config is the
/// preset `.hw` names (the assembler skips comments; assembled programs have no layers).
std::string disassemble(const Program& program);

/// Canonical text of one instruction: mnemonic, then the non-zero fields in table order.
std::string formatInstruction(const Instruction& instruction);

/// Parses one instruction line (no comments); `where` prefixes error messages.
Instruction parseInstruction(std::string_view line, std::string_view where);

}  // namespace npu::isa
