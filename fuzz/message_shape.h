// What a rejection of a malformed input must look like (docs/reliability.md, "Messages in our
// words"): one line naming the input and the place, in our words. The replay of every seed and
// regression input (replay_main.cpp) holds each message it gets to this.
#pragma once

#include <array>
#include <string_view>

namespace npu::fuzz {

/// Why `message` is not a proper rejection, or empty when it is.
inline std::string_view messageShapeProblem(std::string_view message) {
  if (message.find('\n') != std::string_view::npos) {
    return "spans more than one line";
  }
  if (message.size() > 2000) {
    return "is longer than 2,000 characters";
  }
  if (message.starts_with("internal error")) {
    return "claims an internal error (reserved for bugs)";
  }
  // Library text that must not reach a user: exception class names and library prefixes.
  static constexpr std::array<std::string_view, 12> kLibraryText = {
      "yaml-cpp",       "bad_alloc",    "std::",          "stoi",       "stoul",    "stod",
      "json.exception", "basic_string", "bad conversion", "operator[]", "vector::", "map::at"};
  for (std::string_view text : kLibraryText) {
    if (message.find(text) != std::string_view::npos) {
      return "carries a library's own text";
    }
  }
  // The place: the input's name ("fuzz.yaml", a bundle's path) or an instruction, node or layer,
  // before the first ": ".
  const std::size_t colon = message.find(": ");
  if (colon == std::string_view::npos || colon == 0) {
    return "names no place (no 'PLACE: ' prefix)";
  }
  return {};
}

}  // namespace npu::fuzz
