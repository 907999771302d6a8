// The overload set for std::visit: one lambda per alternative, so a variant alternative with no
// lambda is a compile error rather than a silent default.
#pragma once

namespace npu {

/// std::visit(Overloaded{[](const A&) {...}, [](const B&) {...}}, v).
template <typename... Lambdas>
struct Overloaded : Lambdas... {
  using Lambdas::operator()...;
};

}  // namespace npu
