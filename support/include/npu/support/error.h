// The one error type of the project: every layer throws it, the CLI catches it once.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace npu {

/// What kind of failure an Error reports. Callers decide by kind, never by message text: opcheck
/// tells a codegen refusal (Unsupported) from a bug, partition places a node on the host when its
/// attributes are rejected; the CLI exits 1 for Verification, 2 for Usage, 3 for the rest.
enum class ErrorKind : std::uint8_t {
  Usage,         ///< The command line or an API was used wrongly (a question that cannot be asked).
  BadInput,      ///< A file, model, program or value given by the user is invalid (the default).
  Unsupported,   ///< Valid input the toolchain deliberately refuses (an NPU or codegen limit).
  Verification,  ///< A check ran and failed: a mismatch, a fault, a regression.
  Internal,      ///< A broken invariant inside the toolchain: a bug to report.
  Interrupted,   ///< SIGINT or SIGTERM asked the run to stop (support/interrupt.h).
};

/// The lowercase name of `kind` ("usage", "bad input", ...), for messages and docs.
constexpr std::string_view errorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Usage:
      return "usage";
    case ErrorKind::BadInput:
      return "bad input";
    case ErrorKind::Unsupported:
      return "unsupported";
    case ErrorKind::Verification:
      return "verification failure";
    case ErrorKind::Internal:
      return "internal";
    case ErrorKind::Interrupted:
      return "interrupted";
  }
  return "internal";
}

/// `text` on one line of valid UTF-8: a line break, tab or carriage return becomes `\n`, `\t`,
/// `\r`, any other control character and every byte that is not part of a well-formed UTF-8
/// sequence `\xNN`; everything else is kept as it is.
[[nodiscard]] std::string printableMessage(std::string_view text);

/// An error in the user's input or in a program, carrying a message that names where it happened
/// (file:line, node, instruction index) and its kind. Thrown by every layer and caught once at
/// the CLI.
class Error : public std::runtime_error {
 public:
  /// The message is kept on one printable line: text quoted from a damaged file may hold line
  /// breaks, control characters or bytes that are not UTF-8, which printableMessage escapes.
  explicit Error(std::string_view message, ErrorKind kind = ErrorKind::BadInput)
      : std::runtime_error(printableMessage(message)), m_kind(kind) {}

  /// What kind of failure this is; BadInput unless the thrower said otherwise.
  [[nodiscard]] ErrorKind kind() const { return m_kind; }

 private:
  ErrorKind m_kind;
};

/// Throws a BadInput Error whose message is formatted with fmt.
template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

/// Throws an Error of `kind` whose message is formatted with fmt.
template <typename... Args>
[[noreturn]] void fail(ErrorKind kind, fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...), kind);
}

}  // namespace npu
