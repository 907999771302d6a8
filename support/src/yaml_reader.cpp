// Strict YAML reading: typed, ranged getters and key checks, every error `FILE:LINE: message`.
#include "npu/support/yaml_reader.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "npu/support/file_io.h"

namespace npu::yaml {

std::string Node::at() const {
  return fmt::format("{}:{}", m_source, std::max(m_node.Mark().line, 0) + 1);  // 1 when empty
}

std::string Node::name() const {
  return m_path.empty() ? std::string("the document") : fmt::format("'{}'", m_path);
}

void Node::expectMap(std::string_view what, std::span<const std::string_view> allowed) const {
  if (!m_node.IsMap()) {
    fail("{} must be a mapping", what);
  }
  for (const auto& entry : m_node) {
    if (!entry.first.IsScalar()) {  // `{[a]: 1}` or `? {a: 1}`: YAML allows it, we do not
      Node(entry.first, m_source).fail("a key of {} must be a single value", what);
    }
    const std::string key = entry.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      Node(entry.first, m_source)
          .fail("unknown key '{}' in {} (keys: {})", key, what, fmt::join(allowed, ", "));
    }
  }
}

Node Node::required(std::string_view key, std::string_view what) const {
  std::optional<Node> child = optional(key);
  if (!child) {
    fail("missing key '{}' in {}", key, what);
  }
  return *child;
}

std::optional<Node> Node::optional(std::string_view key) const {
  if (!m_node.IsMap()) {
    return std::nullopt;
  }
  const YAML::Node child = m_node[std::string(key)];
  if (!child) {
    return std::nullopt;
  }
  return Node(child, m_source,
              m_path.empty() ? std::string(key) : fmt::format("{}.{}", m_path, key));
}

std::string Node::text() const {
  if (!m_node.IsScalar()) {
    fail("{} must be a single value", name());
  }
  return m_node.as<std::string>();
}

std::string Node::nonEmptyText() const {
  std::string value = text();
  if (value.empty()) {
    fail("{} must not be empty", name());
  }
  return value;
}

std::int64_t Node::integer(std::int64_t lowest, std::int64_t highest) const {
  std::int64_t value = 0;
  try {
    value = m_node.as<std::int64_t>();
  } catch (const YAML::Exception&) {
    fail("{}: expected an integer, got '{}'", name(), text());
  }
  if (value < lowest || value > highest) {
    fail("{}: {} is out of range [{}, {}]", name(), value, lowest, highest);
  }
  return value;
}

double Node::number() const {
  double value = 0.0;
  try {
    value = m_node.as<double>();
  } catch (const YAML::Exception&) {
    fail("{}: expected a number, got '{}'", name(), text());
  }
  if (!std::isfinite(value)) {
    fail("{}: expected a finite number, got '{}'", name(), text());
  }
  return value;
}

bool Node::boolean() const {
  try {
    return m_node.as<bool>();
  } catch (const YAML::Exception&) {
    fail("{}: expected true or false, got '{}'", name(), text());
  }
}

std::vector<Node> Node::items() const {
  if (!m_node.IsSequence()) {
    fail("{} must be a list", name());
  }
  std::vector<Node> result;
  std::size_t index = 0;
  for (const YAML::Node& item : m_node) {
    result.emplace_back(item, m_source, fmt::format("{}[{}]", m_path, index++));
  }
  return result;
}

void failOnYamlException(const YAML::Exception& exception, std::string_view source) {
  const std::string& raw = exception.msg;
  const auto says = [&](const char* text) { return raw.starts_with(text); };
  std::string meaning;
  if (says(YAML::ErrorMsg::BAD_CONVERSION)) {
    meaning =
        "a value has the wrong form (a list or mapping where a single value belongs, or "
        "text where a number belongs)";
  } else if (says(YAML::ErrorMsg::BAD_SUBSCRIPT) || says(YAML::ErrorMsg::BAD_INSERT)) {
    meaning = "a single value or a list stands where a mapping of keys belongs";
  } else if (says(YAML::ErrorMsg::BAD_PUSHBACK)) {
    meaning = "a single value or a mapping stands where a list belongs";
  } else if (says(YAML::ErrorMsg::KEY_NOT_FOUND) || says("invalid node")) {
    meaning = "a required key is missing or a list and a mapping are mixed up";
  } else {
    meaning = raw;
  }
  throw Error(fmt::format("{}:{}: {}", source, std::max(exception.mark.line, 0) + 1, meaning));
}

Node parse(std::string_view text, std::string_view source) {
  try {
    return Node(YAML::Load(std::string(text)), std::string(source));
  } catch (const YAML::ParserException& e) {
    fail("{}:{}:{}: YAML syntax error: {}", source, e.mark.line + 1, e.mark.column + 1, e.msg);
  }
}

Node load(const std::filesystem::path& path) {
  return parse(readTextFile(path), path.string());
}

}  // namespace npu::yaml
