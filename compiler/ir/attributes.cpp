// Attributes: typed getters with defaults, and formatting for dumps.
#include "npu/compiler/ir/attributes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "npu/support/error.h"

namespace npu::compiler {
namespace {

std::string_view typeName(const AttributeValue& value) {
  switch (value.index()) {
    case 0:
      return "an int";
    case 1:
      return "a float";
    case 2:
      return "a string";
    case 3:
      return "a list of ints";
    default:
      return "a list of floats";
  }
}

template <typename T>
const T* lookup(const std::map<std::string, AttributeValue, std::less<>>& values,
                std::string_view name, std::string_view expected) {
  auto it = values.find(name);
  if (it == values.end()) {
    return nullptr;
  }
  const T* typed = std::get_if<T>(&it->second);
  if (typed == nullptr) {
    fail("attribute '{}' is {}, expected {}", name, typeName(it->second), expected);
  }
  return typed;
}

}  // namespace

bool Attributes::has(std::string_view name) const {
  return m_values.find(name) != m_values.end();
}

void Attributes::set(std::string name, AttributeValue value) {
  m_values.insert_or_assign(std::move(name), std::move(value));
}

void Attributes::erase(std::string_view name) {
  auto it = m_values.find(name);
  if (it != m_values.end()) {
    m_values.erase(it);
  }
}

std::int64_t Attributes::getInt(std::string_view name, std::int64_t fallback) const {
  const auto* v = lookup<std::int64_t>(m_values, name, "an int");
  return v != nullptr ? *v : fallback;
}

float Attributes::getFloat(std::string_view name, float fallback) const {
  auto it = m_values.find(name);
  if (it != m_values.end()) {
    // An int where a float is expected is accepted (YAML writes 6 for 6.0).
    if (const auto* i = std::get_if<std::int64_t>(&it->second)) {
      return static_cast<float>(*i);
    }
  }
  const auto* v = lookup<float>(m_values, name, "a float");
  return v != nullptr ? *v : fallback;
}

std::string Attributes::getString(std::string_view name, std::string_view fallback) const {
  const auto* v = lookup<std::string>(m_values, name, "a string");
  return v != nullptr ? *v : std::string(fallback);
}

std::vector<std::int64_t> Attributes::getInts(std::string_view name,
                                              std::vector<std::int64_t> fallback) const {
  const auto* v = lookup<std::vector<std::int64_t>>(m_values, name, "a list of ints");
  return v != nullptr ? *v : fallback;
}

std::vector<float> Attributes::getFloats(std::string_view name, std::vector<float> fallback) const {
  const auto* v = lookup<std::vector<float>>(m_values, name, "a list of floats");
  return v != nullptr ? *v : fallback;
}

std::string formatAttribute(const AttributeValue& value) {
  struct Formatter {
    std::string operator()(std::int64_t v) const { return fmt::format("{}", v); }
    std::string operator()(float v) const { return fmt::format("{}", v); }
    std::string operator()(const std::string& v) const { return fmt::format("\"{}\"", v); }
    std::string operator()(const std::vector<std::int64_t>& v) const {
      return fmt::format("[{}]", fmt::join(v, ", "));
    }
    std::string operator()(const std::vector<float>& v) const {
      return fmt::format("[{}]", fmt::join(v, ", "));
    }
  };
  return std::visit(Formatter{}, value);
}

}  // namespace npu::compiler
