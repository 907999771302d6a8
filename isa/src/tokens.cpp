// Reading and setting the dependency flags of any instruction.
#include "npu/isa/tokens.h"

#include <type_traits>

namespace npu::isa {
namespace {

// Every queue links neighbours, and its consumer's pop flag and producer's push flag name it.
constexpr bool tokenTableIsConsistent() {
  for (const TokenQueueInfo& info : kTokenQueueTable) {
    if (tokenQueueOf(info.consumer, popFlagOf(info.queue)) != info.queue ||
        tokenQueueOf(info.producer, pushFlagOf(info.queue)) != info.queue ||
        tokenQueueInfo(info.queue).queue != info.queue) {
      return false;
    }
  }
  return true;
}
static_assert(tokenTableIsConsistent());

// The member of `flag` in a typed instruction (const or not), or nullptr when it has none.
template <typename T>
std::conditional_t<std::is_const_v<T>, const std::int64_t*, std::int64_t*> flagMember(
    T& typed, TokenFlag flag) {
  switch (flag) {
    case TokenFlag::PopPrev:
      if constexpr (requires { typed.pop_prev; }) {
        return &typed.pop_prev;
      }
      break;
    case TokenFlag::PopNext:
      if constexpr (requires { typed.pop_next; }) {
        return &typed.pop_next;
      }
      break;
    case TokenFlag::PushPrev:
      if constexpr (requires { typed.push_prev; }) {
        return &typed.push_prev;
      }
      break;
    case TokenFlag::PushNext:
      if constexpr (requires { typed.push_next; }) {
        return &typed.push_next;
      }
      break;
  }
  return nullptr;
}

}  // namespace

std::int64_t tokenFlag(const Instruction& instruction, TokenFlag flag) {
  return std::visit(
      [&](const auto& typed) {
        const std::int64_t* member = flagMember(typed, flag);
        return member != nullptr ? *member : std::int64_t{0};
      },
      instruction);
}

void setTokenFlag(Instruction& instruction, TokenFlag flag) {
  std::visit(
      [&](auto& typed) {
        if (std::int64_t* member = flagMember(typed, flag)) {
          *member = 1;
        }
      },
      instruction);
}

}  // namespace npu::isa
