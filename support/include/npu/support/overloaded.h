// The overload set for std::visit: one lambda per alternative, so a variant alternative with no
// lambda is a compile error rather than a silent default.
#pragma once

namespace npu {

/// std::visit(Overloaded{[](const A&) {...}, [](const B&) {...}}, v).
template <typename... Lambdas>
struct Overloaded : Lambdas... {
  using Lambdas::operator()...;
};

/// The deduction guide clang before 17 needs (it has no aggregate deduction).
template <typename... Lambdas>
Overloaded(Lambdas...) -> Overloaded<Lambdas...>;

}  // namespace npu
