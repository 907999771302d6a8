// std::variant of the types of a std::tuple: how a table (X-macro rows, each `std::tuple<T>{},`
// joined by std::tuple_cat) becomes a variant with one alternative per row, in row order.
#pragma once

#include <tuple>
#include <variant>

namespace npu {

/// VariantOf<std::tuple<A, B>>::type is std::variant<A, B>.
template <typename Tuple>
struct VariantOf;

template <typename... Types>
struct VariantOf<std::tuple<Types...>> {
  using type = std::variant<Types...>;
};

}  // namespace npu
