// Typed instructions and the field table, both generated from instructions.def.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

#include "npu/support/variant_of.h"

namespace npu::isa {

/// Bits in one instruction word.
inline constexpr unsigned kWordBits = 256;
/// Bytes in one instruction word.
inline constexpr unsigned kWordBytes = kWordBits / 8;
/// Bits [0, kOpcodeBits) of every word hold the opcode.
inline constexpr unsigned kOpcodeBits = 4;

/// The unit an instruction executes on; Any is SYNC, whose `unit` field decides. The executing
/// units Load, Compute and Store come first and carry the one unit numbering every layer uses:
/// the value of SYNC's `unit` field, the index of their instruction queue in the simulator and
/// the RTL (generated as UNIT_* into npu_isa_pkg.sv), and the load -> compute -> store order
/// that decides each unit's "prev" and "next" neighbour.
enum class Unit : std::uint8_t { Load = 0, Compute = 1, Store = 2, Fetch, Any };

/// Executing units: Load, Compute and Store.
inline constexpr std::size_t kExecutingUnits = 3;

/// Index of an executing unit (Load, Compute or Store): its SYNC `unit` value and queue index.
constexpr std::size_t unitIndex(Unit unit) {
  return static_cast<std::size_t>(unit);
}

/// The executing unit of an index below kExecutingUnits.
constexpr Unit unitAt(std::size_t index) {
  return static_cast<Unit>(index);
}

/// Whether a field is read as two's complement.
enum class Signedness : std::uint8_t { Unsigned, Signed };

/// One row of the instruction table: a field's place in the word and its legal range.
struct FieldInfo {
  std::string_view name;
  unsigned offset;
  unsigned width;
  Signedness signedness;
  std::int64_t lowest;
  std::int64_t highest;
  std::string_view meaning;
};

enum class Opcode : std::uint8_t {
#define NPU_INSTRUCTION(Name, code, mnemonic, unit, summary) Name = code,
#define NPU_FIELD(Name, field, offset, width, signedness, lowest, highest, meaning)
#define NPU_INSTRUCTION_END(Name)
#include "npu/isa/instructions.def"
#undef NPU_INSTRUCTION
#undef NPU_FIELD
#undef NPU_INSTRUCTION_END
};

// One plain struct per instruction, a member per field, all zero by default.
#define NPU_INSTRUCTION(Name, code, mnemonic, unit, summary) \
  struct Name {                                              \
    static constexpr Opcode kOpcode = Opcode::Name;
#define NPU_FIELD(Name, field, offset, width, signedness, lowest, highest, meaning) \
  std::int64_t field = 0;
#define NPU_INSTRUCTION_END(Name)                             \
  friend bool operator==(const Name&, const Name&) = default; \
  }                                                           \
  ;
#include "npu/isa/instructions.def"
#undef NPU_INSTRUCTION
#undef NPU_FIELD
#undef NPU_INSTRUCTION_END

/// The table row of one field, named by its member (FieldRow<&Conv::kh>::kInfo); read it through
/// fieldInfo, fieldMin and fieldMax below.
template <auto Member>
struct FieldRow;

#define NPU_INSTRUCTION(Name, code, mnemonic, unit, summary)
#define NPU_FIELD(Name, field, offset, width, signedness, lowest, highest, meaning)   \
  template <>                                                                         \
  struct FieldRow<&Name::field> {                                                     \
    static constexpr FieldInfo kInfo{#field, offset,  width,  Signedness::signedness, \
                                     lowest, highest, meaning};                       \
  };
#define NPU_INSTRUCTION_END(Name)
#include "npu/isa/instructions.def"
#undef NPU_INSTRUCTION
#undef NPU_FIELD
#undef NPU_INSTRUCTION_END

/// A field's row of the table: `isa::fieldInfo<&Conv::kh>().width`.
template <auto Member>
constexpr FieldInfo fieldInfo() {
  return FieldRow<Member>::kInfo;
}

/// The lowest legal value of a field: `isa::fieldMin<&Conv::kh>()`.
template <auto Member>
constexpr std::int64_t fieldMin() {
  return FieldRow<Member>::kInfo.lowest;
}

/// The highest legal value of a field: `isa::fieldMax<&Conv::kh>()`. Code that must stay inside
/// a field's range reads the limit here, never as a literal.
template <auto Member>
constexpr std::int64_t fieldMax() {
  return FieldRow<Member>::kInfo.highest;
}

/// The values of the `op` fields (instructions.def states them in each field's meaning).
inline constexpr std::int64_t kEltwiseAdd = 0;
inline constexpr std::int64_t kEltwiseMul = 1;
inline constexpr std::int64_t kEltwiseLut = 2;
inline constexpr std::int64_t kEltwiseSub = 3;
inline constexpr std::int64_t kPoolMax = 0;
inline constexpr std::int64_t kPoolAverage = 1;
inline constexpr std::int64_t kNormSoftmax = 0;
inline constexpr std::int64_t kNormLayerNorm = 1;
inline constexpr std::int64_t kNormRmsNorm = 2;

/// Any one instruction: a variant of every struct of the table, in table order.
using Instruction = VariantOf<decltype(std::tuple_cat(
#define NPU_INSTRUCTION(Name, code, mnemonic, unit, summary) std::tuple<Name>{},
#define NPU_FIELD(Name, field, offset, width, signedness, lowest, highest, meaning)
#define NPU_INSTRUCTION_END(Name)
#include "npu/isa/instructions.def"
#undef NPU_INSTRUCTION
#undef NPU_FIELD
#undef NPU_INSTRUCTION_END
    std::tuple<>{}))>::type;

/// An opcode's row of the table: mnemonic, unit and its fields in word order.
struct OpcodeInfo {
  Opcode opcode;
  std::string_view mnemonic;
  Unit unit;
  std::string_view summary;
  std::span<const FieldInfo> fields;
};

/// Every opcode in the table, in opcode order.
std::span<const OpcodeInfo> opcodeTable();

/// The row of `opcode`, or nullopt for a code the table does not define.
std::optional<OpcodeInfo> findOpcode(unsigned code);

/// The row whose mnemonic is `mnemonic` (upper case), or nullopt.
std::optional<OpcodeInfo> findMnemonic(std::string_view mnemonic);

/// The opcode of an instruction.
Opcode opcodeOf(const Instruction& instruction);

/// The mnemonic of an instruction ("CONV").
std::string_view mnemonicOf(const Instruction& instruction);

/// Field values of an instruction in table order.
std::vector<std::int64_t> fieldValues(const Instruction& instruction);

/// Builds an instruction of `opcode` from field values in table order (no range checks).
Instruction makeInstruction(Opcode opcode, std::span<const std::int64_t> values);

/// The unit that executes `instruction` (SYNC resolved through its `unit` field).
Unit executingUnit(const Instruction& instruction);

/// A compute-unit instruction that runs on the MAC side (CONV, compute SYNC); ELTWISE, POOL and
/// NORM run on the vector side (docs/timing.md, "Units and handshakes"). Throws an internal
/// error for an instruction of another unit (LOAD, STORE, END).
bool onMacSide(const Instruction& instruction);

/// An ELTWISE with overlap = 1: it starts without waiting for the MAC side.
bool isOverlapped(const Instruction& instruction);

/// The lanes accesses are ordered on: each executing unit's index (load 0, compute's MAC side 1,
/// store 2), and compute's vector side. Instructions on one lane run one after another; the
/// compute unit's two sides are ordered by its start rule, the units by tokens.
inline constexpr std::size_t kVectorLane = kExecutingUnits;
inline constexpr std::size_t kLanes = kVectorLane + 1;

/// The lane of an instruction of an executing unit (not END).
std::size_t laneOf(const Instruction& instruction);

/// Checks ranges and the rules that span fields (depthwise channel counts, SYNC dependency flags,
/// clip order). Returns an empty string when legal, else a message naming the offending field.
std::string validate(const Instruction& instruction);

/// Lower-case name of a unit, as messages and traces print it.
constexpr std::string_view unitName(Unit unit) {
  switch (unit) {
    case Unit::Load:
      return "load";
    case Unit::Compute:
      return "compute";
    case Unit::Store:
      return "store";
    case Unit::Fetch:
      return "fetch";
    case Unit::Any:
      return "any";
  }
  return "?";
}

}  // namespace npu::isa
