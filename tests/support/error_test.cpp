// npu::Error keeps its message on one printable line, whatever text a damaged file put in it.
#include "npu/support/error.h"
#include "npu/support/json_error.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace npu {
namespace {

TEST(ErrorMessage, QuotedTextStaysOnOnePrintableLine) {
  // A key with a line break, as a fuzzed baseline file had it, and a tab and a carriage return.
  EXPECT_EQ(Error("f.yaml:7: the baseline of 'a\nb': missing\tc\r").what(),
            std::string("f.yaml:7: the baseline of 'a\\nb': missing\\tc\\r"));
  // Other control characters, DEL and NUL.
  EXPECT_EQ(printableMessage(std::string("x\x01y\x7F", 4) + std::string(1, '\0')),
            "x\\x01y\\x7F\\x00");
  // Well-formed UTF-8 is kept (2, 3 and 4 bytes).
  EXPECT_EQ(printableMessage("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  // Bytes that are not UTF-8: a stray continuation byte, an overlong form, a surrogate, a code
  // point past U+10FFFF, a sequence cut short at the end.
  EXPECT_EQ(printableMessage("a\x80z"), "a\\x80z");
  EXPECT_EQ(printableMessage("\xC0\xAF"), "\\xC0\\xAF");
  EXPECT_EQ(printableMessage("\xED\xA0\x80"), "\\xED\\xA0\\x80");
  EXPECT_EQ(printableMessage("\xF4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80");
  EXPECT_EQ(printableMessage("ok \xE2\x82"), "ok \\xE2\\x82");
  // The kind is kept.
  EXPECT_EQ(Error("x", ErrorKind::Unsupported).kind(), ErrorKind::Unsupported);
}

/// jsonErrorText of what `read` throws.
template <typename Read>
std::string jsonError(Read read) {
  try {
    read();
  } catch (const nlohmann::json::exception& e) {
    return jsonErrorText(e.what());
  }
  return "(no error)";
}

TEST(ErrorMessage, JsonLibraryTextIsDropped) {
  EXPECT_EQ(jsonError([] { nlohmann::json j = nlohmann::json::parse("{\"a\": tru}"); }),
            "line 1, column 10: invalid literal");
  EXPECT_EQ(jsonError([] { nlohmann::json j = nlohmann::json::parse("{\"a\": 1"); }),
            "line 1, column 8: unexpected end of input; expected '}'");
  EXPECT_EQ(jsonError([] { (void)nlohmann::json::object().at("zero_point"); }),
            "key 'zero_point' not found");
  EXPECT_EQ(jsonError([] { (void)nlohmann::json(5).get<std::string>(); }),
            "type must be string, but is number");
  EXPECT_EQ(jsonErrorText("not from the library"), "not from the library");
}

}  // namespace
}  // namespace npu
