// Node attributes: ONNX-style named ints, floats, strings and lists of them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace npu::compiler {

/// One attribute value.
using AttributeValue =
    std::variant<std::int64_t, float, std::string, std::vector<std::int64_t>, std::vector<float>>;

/// The attributes of a node, ordered by name so dumps are stable. Getters return the default
/// when the attribute is absent and throw Error naming the attribute when its type is wrong.
class Attributes {
 public:
  bool has(std::string_view name) const;
  void set(std::string name, AttributeValue value);
  void erase(std::string_view name);

  std::int64_t getInt(std::string_view name, std::int64_t fallback) const;
  float getFloat(std::string_view name, float fallback) const;
  std::string getString(std::string_view name, std::string_view fallback) const;
  std::vector<std::int64_t> getInts(std::string_view name,
                                    std::vector<std::int64_t> fallback = {}) const;
  std::vector<float> getFloats(std::string_view name, std::vector<float> fallback = {}) const;

  /// All attributes in name order.
  const std::map<std::string, AttributeValue, std::less<>>& all() const { return m_values; }

  friend bool operator==(const Attributes&, const Attributes&) = default;

 private:
  std::map<std::string, AttributeValue, std::less<>> m_values;
};

/// "3", "0.5", "\"nearest\"", "[1, 1]" for dumps.
std::string formatAttribute(const AttributeValue& value);

}  // namespace npu::compiler
