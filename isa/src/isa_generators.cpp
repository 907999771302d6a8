// Generators for the Verilog constants, the docs/isa.md field tables and the hardware config
// table of docs/hardware-config.md.
#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "npu/isa/generators.h"
#include "npu/isa/instruction.h"
#include "npu/isa/limits.h"
#include "npu/isa/tokens.h"
#include "npu/support/error.h"

namespace npu::isa {
namespace {

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string unitParam(Unit unit) {
  return "UNIT_" + upper(unitName(unit));
}

std::string queueParam(TokenQueue queue) {
  return fmt::format("TQ_{}", tokenQueueInfo(queue).svName);
}

// The bit of a flag, checked to be the same in every opcode that has it (the RTL reads it
// before it knows the opcode).
unsigned tokenFlagBit(TokenFlag flag) {
  std::optional<unsigned> bit;
  for (const OpcodeInfo& info : opcodeTable()) {
    for (const FieldInfo& field : info.fields) {
      if (field.name == tokenFlagName(flag)) {
        if (bit && *bit != field.offset) {
          fail("{}: '{}' sits at bit {}, elsewhere at bit {}", info.mnemonic, field.name,
               field.offset, *bit);
        }
        bit = field.offset;
      }
    }
  }
  if (!bit) {
    fail("no opcode has the token flag '{}'", tokenFlagName(flag));
  }
  return *bit;
}

// The executing units, the token queues and the flag-to-queue mapping of npu/isa/tokens.h.
std::string unitsAndTokens() {
  std::string out =
      "\n  // Executing units: the value of SYNC's `unit` field and the index of the unit's "
      "instruction\n  // queue.\n";
  for (std::size_t u = 0; u < kExecutingUnits; ++u) {
    out += fmt::format("  localparam int {} = {};\n", unitParam(unitAt(u)), u);
  }
  out += fmt::format("  localparam int UNITS = {};\n", kExecutingUnits);
  out += fmt::format("  localparam int UNIT_NONE = {};  // END and illegal opcodes\n",
                     kExecutingUnits);
  const unsigned unitBits = fieldInfo<&Sync::unit>().width;
  out +=
      "\n  // The unit a word executes on (SYNC: its `unit` field); UNIT_NONE for END and illegal\n"
      "  // opcodes.\n";
  out += "  /* verilator lint_off UNUSEDSIGNAL */\n";
  out += fmt::format("  function automatic logic [{}:0] unit_of(input logic [WORD_BITS-1:0] w);\n",
                     unitBits - 1);
  out += "    case (w[OPCODE_BITS-1:0])\n";
  for (const OpcodeInfo& info : opcodeTable()) {
    if (info.unit == Unit::Any) {
      out += fmt::format("      OP_{}: return w[SYNC_UNIT_LSB+:SYNC_UNIT_WIDTH];\n", info.mnemonic);
    } else if (unitIndex(info.unit) < kExecutingUnits) {
      out += fmt::format("      OP_{}: return {}'({});\n", info.mnemonic, unitBits,
                         unitParam(info.unit));
    }
  }
  out +=
      fmt::format("      default: return {}'(UNIT_NONE);\n    endcase\n  endfunction\n", unitBits);
  out += "  /* verilator lint_on UNUSEDSIGNAL */\n";
  out += "\n  // Token queues: one producer unit and one consumer unit each.\n";
  out += fmt::format("  localparam int TOKEN_QUEUES = {};\n", kTokenQueues);
  for (const TokenQueueInfo& info : kTokenQueueTable) {
    out += fmt::format("  localparam int {} = {};  // {}\n", queueParam(info.queue),
                       static_cast<unsigned>(info.queue), info.name);
  }
  for (const bool producer : {true, false}) {
    const char* role = producer ? "producer" : "consumer";
    out += fmt::format("\n  // The unit that {} a token queue.\n", producer ? "pushes" : "pops");
    out += fmt::format("  function automatic int tq_{}(input int q);\n    case (q)\n", role);
    for (std::size_t i = 0; i < kTokenQueues; ++i) {
      const TokenQueueInfo& info = kTokenQueueTable[i];
      out += fmt::format("      {}: return {};\n",
                         i + 1 == kTokenQueues ? "default" : queueParam(info.queue),
                         unitParam(producer ? info.producer : info.consumer));
    }
    out += "    endcase\n  endfunction\n";
  }
  for (const bool pops : {true, false}) {
    out += pops ? "\n  // Token queues a word pops before it starts on `unit`, as a mask over the "
                  "TQ_* indices.\n"
                : "\n  // Token queues a word pushes when it has finished on `unit`.\n";
    out += "  /* verilator lint_off UNUSEDSIGNAL */\n";
    const std::string head = fmt::format("  function automatic logic [TOKEN_QUEUES-1:0] {}_mask(",
                                         pops ? "pop" : "push");
    out += fmt::format("{}input logic [WORD_BITS-1:0] w,\n{}input logic [{}:0] unit);\n", head,
                       std::string(head.size(), ' '), unitBits - 1);
    out += "    logic [TOKEN_QUEUES-1:0] m;\n    m = '0;\n    case (unit)\n";
    for (std::size_t u = 0; u < kExecutingUnits; ++u) {
      out += fmt::format("      {}'({}): begin\n", unitBits, unitParam(unitAt(u)));
      for (const TokenFlag flag : kTokenFlags) {
        const std::optional<TokenQueue> queue = tokenQueueOf(unitAt(u), flag);
        if (isPop(flag) == pops && queue) {
          out += fmt::format("        m[{}] = w[{}];\n", queueParam(*queue), tokenFlagBit(flag));
        }
      }
      out += "      end\n";
    }
    out += "      default: m = '0;\n    endcase\n    return m;\n  endfunction\n";
    out += "  /* verilator lint_on UNUSEDSIGNAL */\n";
  }
  return out;
}

}  // namespace

std::string generateIsaSvPackage() {
  std::string out =
      "// Generated by isa-gen from isa/include/npu/isa/instructions.def. Do not edit.\n"
      "package npu_isa_pkg;\n";
  out += fmt::format("  localparam int WORD_BITS = {};\n", kWordBits);
  out += fmt::format("  localparam int OPCODE_BITS = {};\n", kOpcodeBits);
  for (const OpcodeInfo& info : opcodeTable()) {
    out += fmt::format("\n  // {}: {}\n", info.mnemonic, info.summary);
    out += fmt::format("  localparam logic [{}:0] OP_{} = {}'d{};\n", kOpcodeBits - 1,
                       info.mnemonic, kOpcodeBits, static_cast<unsigned>(info.opcode));
    for (const FieldInfo& field : info.fields) {
      const std::string name = fmt::format("{}_{}", info.mnemonic, upper(field.name));
      out += fmt::format("  localparam int {}_LSB = {};\n", name, field.offset);
      out += fmt::format("  localparam int {}_WIDTH = {};\n", name, field.width);
    }
  }
  out += unitsAndTokens();
  out += "endpackage\n";
  return out;
}

std::string generateConfigSvPackage(const NpuConfig& c) {
  std::string out = fmt::format(
      "// Generated by isa-gen from the hardware config '{}'. Do not edit.\n"
      "package npu_config_pkg;\n",
      c.name);
  // One localparam per row of npu_config.def that names one; longint where int cannot hold the
  // range.
  const auto parameter = [&out](std::string_view name, std::int64_t highest, const auto& value) {
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::int64_t>) {
      if (!name.empty()) {
        out += fmt::format("  localparam {} {} = {};\n",
                           highest > std::numeric_limits<std::int32_t>::max() ? "longint" : "int",
                           name, value);
      }
    }
  };
#define NPU_CONFIG_FIELD(member, section, key, type, lowest, highest, sv, meaning) \
  parameter(sv, highest, c.member);
#include "npu/isa/npu_config.def"
#undef NPU_CONFIG_FIELD
  out += "endpackage\n";
  return out;
}

std::string generateConfigMarkdownTable() {
  std::string out = "| key | type | range | RTL parameter | meaning |\n|---|---|---|---|---|\n";
  for (const ConfigField& field : configFields()) {
    const std::string key = field.section.empty() ? std::string(field.key)
                                                  : fmt::format("{}.{}", field.section, field.key);
    std::string type;
    std::string range;
    switch (field.type) {
      case ConfigFieldType::Text:
        type = "text";
        range = "not empty";
        break;
      case ConfigFieldType::Integer:
        type = "integer";
        range = fmt::format("{}..{}", field.lowest, field.highest);
        break;
      case ConfigFieldType::Real:
        type = "number";
        range = fmt::format("above {}, at most {}", field.lowest, field.highest);
        break;
    }
    out += fmt::format("| `{}` | {} | {} | {} | {} |\n", key, type, range,
                       field.svParameter.empty() ? "" : fmt::format("`{}`", field.svParameter),
                       field.meaning);
  }
  return out;
}

std::string generateIsaMarkdownTables() {
  std::string out;
  for (const OpcodeInfo& info : opcodeTable()) {
    out += fmt::format("### {} (opcode {}, unit: {})\n\n{}\n\n", info.mnemonic,
                       static_cast<unsigned>(info.opcode), unitName(info.unit), info.summary);
    if (info.fields.empty()) {
      out += "No fields besides the opcode; every other bit is reserved.\n\n";
      continue;
    }
    out += "| field | bits | width | signed | range | meaning |\n";
    out += "|---|---|---|---|---|---|\n";
    for (const FieldInfo& field : info.fields) {
      out += fmt::format("| `{}` | {}..{} | {} | {} | {}..{} | {} |\n", field.name, field.offset,
                         field.offset + field.width - 1, field.width,
                         field.signedness == Signedness::Signed ? "yes" : "no", field.lowest,
                         field.highest, field.meaning);
    }
    out += "\n";
  }
  return out;
}

std::string spliceGeneratedTables(std::string_view document, std::string_view tables,
                                  std::string_view beginMarker, std::string_view endMarker) {
  const std::size_t begin = document.find(beginMarker);
  const std::size_t end = document.find(endMarker);
  if (begin == std::string_view::npos || end == std::string_view::npos || end < begin) {
    fail("the document lacks the generated-table markers '{}' ... '{}'", beginMarker, endMarker);
  }
  std::string out(document.substr(0, begin + beginMarker.size()));
  out += "\n\n";
  out += tables;
  out += document.substr(end);
  return out;
}

}  // namespace npu::isa
