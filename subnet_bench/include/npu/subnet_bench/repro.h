// Repro files: one op case with the hardware, engine and injected bug it ran with, as YAML that
// `npu opcheck --repro FILE` replays.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "npu/subnet_bench/op_case.h"
#include "npu/subnet_bench/op_check.h"

namespace npu::bench {

/// Everything needed to replay one case.
struct Repro {
  OpCase opCase;
  /// A hardware preset name or a config path (resolved as `--hw` is).
  std::string hw = "npu-s";
  Engine engine = Engine::Functional;
  InjectedBug bug = InjectedBug::None;
  /// What the case did when written (a comment in the file; not read back).
  std::string failure;
};

/// The YAML text of a repro: `opcheck_repro: 1`, `hw`, `mode`, `inject_bug` (when set) and a
/// `case` map holding exactly the keys the op kind uses.
std::string reproToYaml(const Repro& repro);

/// Parses a repro; `source` names it in errors ("FILE:LINE: ..."). Rejects unknown keys, keys
/// the op kind does not use, missing keys, values of the wrong type and invalid cases. A case key
/// left out keeps the OpCase default, except a slice's `slice_rows` and `slice_cols`: without
/// them it keeps every row (column) from its begin to the input's end, as slices did before
/// they had rows and columns.
Repro parseRepro(std::string_view text, std::string_view source);

/// File wrappers.
Repro readRepro(const std::filesystem::path& path);
void writeRepro(const std::filesystem::path& path, const Repro& repro);

}  // namespace npu::bench
