// The version of the tools, recorded in every report a farm merges so that outputs of different
// builds are never mixed.
#pragma once

#include <string_view>

namespace npu {

/// "npu 0.1.0 (git 0123456789ab)", with "-dirty" after the commit when the tree had uncommitted
/// changes, or "(unknown commit)" outside a git checkout. Taken at build time.
std::string_view toolVersion();

}  // namespace npu
