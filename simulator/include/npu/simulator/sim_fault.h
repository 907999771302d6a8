// Faults that stop a simulation, each naming the instruction, unit and state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "npu/support/error.h"

namespace npu::sim {

enum class FaultKind : std::uint8_t {
  IllegalWord,
  SramOutOfRange,
  DdrOutOfRange,
  Deadlock,
  Watchdog,
  Hazard,
};

/// kebab-case name of a fault kind as messages print it ("sram-out-of-range").
std::string_view faultKindName(FaultKind kind);

/// A fault: an npu::Error that also carries its kind and the instruction it happened at.
class SimFault : public Error {
 public:
  SimFault(FaultKind kind, std::int64_t instruction, const std::string& message)
      : Error(message, ErrorKind::Verification), m_kind(kind), m_instruction(instruction) {}

  [[nodiscard]] FaultKind kind() const { return m_kind; }
  /// Index of the instruction in the stream, or -1 when no single instruction is to blame.
  [[nodiscard]] std::int64_t instruction() const { return m_instruction; }

 private:
  FaultKind m_kind;
  std::int64_t m_instruction;
};

}  // namespace npu::sim
