// nlohmann::json's exception text in our words, for messages about damaged JSON files.
#pragma once

#include <string>
#include <string_view>

namespace npu {

/// What a json exception's `what()` says, without the library's markings: the
/// `[json.exception.KIND.ID]` tag and a parse error's "parse error", "syntax error while parsing"
/// and "last read" parts go; a parse error keeps its line and column. For example
/// `[json.exception.out_of_range.403] key 'zero_point' not found` becomes
/// `key 'zero_point' not found`, and `[json.exception.parse_error.101] parse error at line 1,
/// column 9: syntax error while parsing value - invalid literal; last read: 'tru'` becomes
/// `line 1, column 9: invalid literal`.
[[nodiscard]] std::string jsonErrorText(std::string_view what);

}  // namespace npu
