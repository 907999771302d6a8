// nlohmann::json's exception text in our words (json_error.h).
#include "npu/support/json_error.h"

namespace npu {
namespace {

/// `text` with the first occurrence of `prefix` and everything before it removed, if present.
std::string_view after(std::string_view text, std::string_view prefix) {
  const std::size_t at = text.find(prefix);
  return at == std::string_view::npos ? text : text.substr(at + prefix.size());
}

}  // namespace

std::string jsonErrorText(std::string_view what) {
  if (what.starts_with("[json.exception.")) {
    what = after(what, "] ");
  }
  if (!what.starts_with("parse error")) {
    return std::string(what);
  }
  // "parse error at line L, column C: syntax error while parsing WHAT - DETAIL; last read: '...'"
  std::string place;
  if (what.starts_with("parse error at ")) {
    const std::string_view rest = what.substr(std::string_view("parse error at ").size());
    place = std::string(rest.substr(0, rest.find(':')));
  }
  std::string_view detail = after(what, ": ");
  detail = after(detail, "syntax error while parsing ");
  if (const std::size_t dash = detail.find(" - "); dash != std::string_view::npos) {
    detail = detail.substr(dash + 3);
  }
  detail = detail.substr(0, detail.find("; last read"));
  return place.empty() ? std::string(detail) : place + ": " + std::string(detail);
}

}  // namespace npu
