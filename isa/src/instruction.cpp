// The instruction table expanded from instructions.def, and the checks every tool shares.
#include "npu/isa/instruction.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "npu/isa/tokens.h"
#include "npu/support/error.h"
#include "npu/support/overloaded.h"

namespace npu::isa {
namespace {

// Field rows per opcode.
#define NPU_INSTRUCTION(Name, code, mnemonic, unit, summary) \
  constexpr FieldInfo k##Name##Fields[] = {
#define NPU_FIELD(Name, field, offset, width, signedness, lowest, highest, meaning) \
  FieldRow<&Name::field>::kInfo,
#define NPU_INSTRUCTION_END(Name)            \
  FieldInfo {                                \
    "", 0, 0, Signedness::Unsigned, 0, 0, "" \
  }                                          \
  }                                          \
  ;
#include "npu/isa/instructions.def"
#undef NPU_INSTRUCTION
#undef NPU_FIELD
#undef NPU_INSTRUCTION_END

// The sentinel row closing each array above keeps END (which has no fields) legal C++; spans
// below leave it out.
const std::array kOpcodes = {
#define NPU_INSTRUCTION(Name, code, mnemonic, unit, summary) \
  OpcodeInfo{Opcode::Name, mnemonic, Unit::unit, summary,    \
             std::span<const FieldInfo>(k##Name##Fields, std::size(k##Name##Fields) - 1)},
#define NPU_FIELD(Name, field, offset, width, signedness, lowest, highest, meaning)
#define NPU_INSTRUCTION_END(Name)
#include "npu/isa/instructions.def"
#undef NPU_INSTRUCTION
#undef NPU_FIELD
#undef NPU_INSTRUCTION_END
};

// Member pointers per instruction type, in table order, so generic code reaches typed fields.
template <typename T>
struct Members;

#define NPU_INSTRUCTION(Name, code, mnemonic, unit, summary) \
  template <>                                                \
  struct Members<Name> {                                     \
    static constexpr std::int64_t Name::*kList[] = {
#define NPU_FIELD(Name, field, offset, width, signedness, lowest, highest, meaning) &Name::field,
#define NPU_INSTRUCTION_END(Name) \
  nullptr                         \
  }                               \
  ;                               \
  }                               \
  ;
#include "npu/isa/instructions.def"
#undef NPU_INSTRUCTION
#undef NPU_FIELD
#undef NPU_INSTRUCTION_END

std::string checkRanges(const Instruction& instruction) {
  const OpcodeInfo info = *findOpcode(static_cast<unsigned>(opcodeOf(instruction)));
  const std::vector<std::int64_t> values = fieldValues(instruction);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const FieldInfo& field = info.fields[i];
    if (values[i] < field.lowest || values[i] > field.highest) {
      return fmt::format("field '{}' = {} is out of range [{}, {}]", field.name, values[i],
                         field.lowest, field.highest);
    }
  }
  return {};
}

std::string checkRules(const Sync& sync) {
  // A flag towards a neighbour the unit lacks names no token queue (npu/isa/tokens.h).
  const Unit unit = executingUnit(sync);
  const std::string_view name = unitName(unit);
  if (!tokenQueueOf(unit, TokenFlag::PopPrev) && (sync.pop_prev != 0 || sync.push_prev != 0)) {
    return fmt::format(
        "SYNC on the {} unit cannot use pop_prev or push_prev ({} has no previous unit)", name,
        name);
  }
  if (!tokenQueueOf(unit, TokenFlag::PopNext) && (sync.pop_next != 0 || sync.push_next != 0)) {
    return fmt::format("SYNC on the {} unit cannot use pop_next or push_next ({} has no next unit)",
                       name, name);
  }
  return {};
}

std::string checkRules(const Load& load) {
  if (load.sram_row_stride == 0) {
    return {};
  }
  // Strided SRAM rows carry data only: padding keeps the dense padded-tile layout.
  if (load.pad_top != 0 || load.pad_bottom != 0 || load.pad_left != 0 || load.pad_right != 0) {
    return fmt::format(
        "sram_row_stride = {} needs no padding (pad_top = {}, pad_bottom = {}, pad_left = {}, "
        "pad_right = {})",
        load.sram_row_stride, load.pad_top, load.pad_bottom, load.pad_left, load.pad_right);
  }
  if (load.sram_row_stride < load.x_size * load.c_bytes) {
    return fmt::format("sram_row_stride = {} is shorter than a row (x_size * c_bytes = {})",
                       load.sram_row_stride, load.x_size * load.c_bytes);
  }
  return {};
}

std::string checkRules(const Conv& conv) {
  if (conv.depthwise != 0 && conv.in_c != conv.out_c) {
    return fmt::format("depthwise CONV needs in_c == out_c (in_c = {}, out_c = {})", conv.in_c,
                       conv.out_c);
  }
  if (conv.clip_lo > conv.clip_hi) {
    return fmt::format("clip_lo = {} is above clip_hi = {}", conv.clip_lo, conv.clip_hi);
  }
  if (conv.wgt_kn != 0 && (conv.kh != 1 || conv.kw != 1 || conv.depthwise != 0)) {
    return fmt::format("wgt_kn needs a dense 1x1 CONV (kh = {}, kw = {}, depthwise = {})", conv.kh,
                       conv.kw, conv.depthwise);
  }
  if (conv.out_gap != 0 && conv.finalize == 0) {
    return fmt::format("out_gap = {} needs finalize = 1 (it spaces the int8 output pixels)",
                       conv.out_gap);
  }
  if (conv.in_w < (conv.out_w - 1) * conv.sw + (conv.kw - 1) * conv.dw + 1) {
    return fmt::format("in_w = {} is narrower than the window needs ({})", conv.in_w,
                       (conv.out_w - 1) * conv.sw + (conv.kw - 1) * conv.dw + 1);
  }
  return {};
}

std::string checkRules(const Eltwise& eltwise) {
  if (eltwise.clip_lo > eltwise.clip_hi) {
    return fmt::format("clip_lo = {} is above clip_hi = {}", eltwise.clip_lo, eltwise.clip_hi);
  }
  // Tokens from compute certify that every earlier compute instruction has ended; one that runs
  // beside an earlier CONV cannot certify that, so it pushes none.
  if (eltwise.overlap != 0 && (eltwise.push_prev != 0 || eltwise.push_next != 0)) {
    return fmt::format("overlap = 1 pushes no token (push_prev = {}, push_next = {})",
                       eltwise.push_prev, eltwise.push_next);
  }
  return {};
}

std::string checkRules(const Pool& pool) {
  if (pool.in_w < (pool.out_w - 1) * pool.sw + pool.kw) {
    return fmt::format("in_w = {} is narrower than the window needs ({})", pool.in_w,
                       (pool.out_w - 1) * pool.sw + pool.kw);
  }
  return {};
}

std::string checkRules(const Norm& norm) {
  if (norm.clip_lo > norm.clip_hi) {
    return fmt::format("clip_lo = {} is above clip_hi = {}", norm.clip_lo, norm.clip_hi);
  }
  return {};
}

template <typename T>
std::string checkRules(const T& /*instruction*/) {
  return {};
}

}  // namespace

std::span<const OpcodeInfo> opcodeTable() {
  return kOpcodes;
}

std::optional<OpcodeInfo> findOpcode(unsigned code) {
  for (const OpcodeInfo& info : kOpcodes) {
    if (static_cast<unsigned>(info.opcode) == code) {
      return info;
    }
  }
  return std::nullopt;
}

std::optional<OpcodeInfo> findMnemonic(std::string_view mnemonic) {
  for (const OpcodeInfo& info : kOpcodes) {
    if (info.mnemonic == mnemonic) {
      return info;
    }
  }
  return std::nullopt;
}

Opcode opcodeOf(const Instruction& instruction) {
  return std::visit([](const auto& typed) { return std::decay_t<decltype(typed)>::kOpcode; },
                    instruction);
}

std::string_view mnemonicOf(const Instruction& instruction) {
  return findOpcode(static_cast<unsigned>(opcodeOf(instruction)))->mnemonic;
}

std::vector<std::int64_t> fieldValues(const Instruction& instruction) {
  return std::visit(
      [](const auto& typed) {
        using T = std::decay_t<decltype(typed)>;
        std::vector<std::int64_t> values;
        for (std::int64_t T::*member : Members<T>::kList) {
          if (member != nullptr) {
            values.push_back(typed.*member);
          }
        }
        return values;
      },
      instruction);
}

Instruction makeInstruction(Opcode opcode, std::span<const std::int64_t> values) {
  auto fill = [&](auto typed) -> Instruction {
    using T = decltype(typed);
    std::size_t i = 0;
    for (std::int64_t T::*member : Members<T>::kList) {
      if (member != nullptr && i < values.size()) {
        typed.*member = values[i++];
      }
    }
    return typed;
  };
  switch (opcode) {
#define NPU_INSTRUCTION(Name, code, mnemonic, unit, summary) \
  case Opcode::Name:                                         \
    return fill(Name{});
#define NPU_FIELD(Name, field, offset, width, signedness, lowest, highest, meaning)
#define NPU_INSTRUCTION_END(Name)
#include "npu/isa/instructions.def"
#undef NPU_INSTRUCTION
#undef NPU_FIELD
#undef NPU_INSTRUCTION_END
  }
  return End{};
}

Unit executingUnit(const Instruction& instruction) {
  if (const auto* sync = std::get_if<Sync>(&instruction)) {
    return unitAt(static_cast<std::size_t>(
        std::clamp<std::int64_t>(sync->unit, 0, static_cast<std::int64_t>(kExecutingUnits) - 1)));
  }
  return findOpcode(static_cast<unsigned>(opcodeOf(instruction)))->unit;
}

bool onMacSide(const Instruction& instruction) {
  // One lambda per instruction, so a new one must say where it runs.
  const auto notCompute = [](std::string_view mnemonic) -> bool {
    fail(ErrorKind::Internal, "onMacSide: {} does not run on the compute unit", mnemonic);
  };
  return std::visit(Overloaded{
                        [](const Conv&) { return true; },
                        [](const Sync&) { return true; },
                        [](const Eltwise&) { return false; },
                        [](const Pool&) { return false; },
                        [](const Norm&) { return false; },
                        [&](const Load&) { return notCompute("LOAD"); },
                        [&](const Store&) { return notCompute("STORE"); },
                        [&](const End&) { return notCompute("END"); },
                    },
                    instruction);
}

bool isOverlapped(const Instruction& instruction) {
  const auto* eltwise = std::get_if<Eltwise>(&instruction);
  return eltwise != nullptr && eltwise->overlap != 0;
}

std::size_t laneOf(const Instruction& instruction) {
  const Unit unit = executingUnit(instruction);
  return unit == Unit::Compute && !onMacSide(instruction) ? kVectorLane : unitIndex(unit);
}

std::string validate(const Instruction& instruction) {
  std::string problem = checkRanges(instruction);
  if (!problem.empty()) {
    return problem;
  }
  return std::visit([](const auto& typed) { return checkRules(typed); }, instruction);
}

}  // namespace npu::isa
