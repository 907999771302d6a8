// The contract of a fuzz target: LLVMFuzzerTestOneInput feeds one input to a parser (and what
// runs after it). An npu::Error is the expected answer to a malformed input; anything else that
// escapes (another exception, a sanitizer report, a crash, a hang) is a bug.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "npu/support/error.h"

namespace npu::fuzz {

/// The message of the last input rejected with npu::Error, empty when it was accepted: the replay
/// (replay_main.cpp) checks its shape.
inline std::string& lastRejection() {
  static std::string message;
  return message;
}

/// Runs `body` on the input; a rejection with npu::Error is a normal outcome.
template <typename Body>
int runTarget(const std::uint8_t* data, std::size_t size, Body&& body) {
  lastRejection().clear();
  try {
    body(std::span<const std::uint8_t>(data, size));
  } catch (const Error& e) {
    // Rejected in our words: what a malformed input must get.
    lastRejection() = e.what();
  }
  return 0;
}

}  // namespace npu::fuzz
