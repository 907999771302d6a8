// The one error type of the project: every layer throws it, the CLI catches it once.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace npu {

/// An error in the user's input or in a program, carrying a message that names where it happened
/// (file, line, node, instruction index). Thrown by every layer and caught once at the CLI.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// Throws an Error whose message is formatted with fmt.
template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace npu
