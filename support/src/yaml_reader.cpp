// Strict YAML reading: typed, ranged getters and key checks, every error `FILE:LINE: message`.
#include "npu/support/yaml_reader.h"

#include <fmt/ranges.h>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

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

namespace {

/// Counts the nodes a document holds once its aliases are expanded, as a reader walking it would
/// visit them, and stops the parse when aliases multiply the text: yaml-cpp shares an aliased
/// node instead of copying it, so nine lines of `&a [*b, *b, ...]` cost nothing to load but
/// 10^9 visits to read (the "billion laughs").
class AliasExpansionGuard final : public YAML::EventHandler {
 public:
  explicit AliasExpansionGuard(std::string_view source) : m_source(source) {}

  void OnDocumentStart(const YAML::Mark& /*mark*/) override { m_anchorSizes.clear(); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                const std::string& /*value*/) override {
    leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    // An alias of a collection still open (a recursive document) counts as one node: yaml-cpp
    // links it back, and our readers reject the shape long before walking it twice.
    const std::uint64_t size =
        anchor < m_anchorSizes.size() && m_anchorSizes[anchor] != 0 ? m_anchorSizes[anchor] : 1;
    ++m_spelled;
    add(mark, size);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct OpenCollection {
    YAML::anchor_t anchor;
    std::uint64_t size;  // itself and everything in it so far, aliases expanded
  };

  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    ++m_spelled;
    remember(anchor, 1);
    add(mark, 1);
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    ++m_spelled;
    ++m_expanded;
    check(mark);
    m_open.push_back({anchor, 1});
  }
  void close() {
    const OpenCollection done = m_open.back();
    m_open.pop_back();
    remember(done.anchor, done.size);
    if (!m_open.empty()) {
      m_open.back().size += done.size;  // its own nodes were counted into m_expanded already
    }
  }
  void remember(YAML::anchor_t anchor, std::uint64_t size) {
    if (anchor == YAML::NullAnchor) {
      return;
    }
    if (anchor >= m_anchorSizes.size()) {
      m_anchorSizes.resize(anchor + 1, 0);
    }
    m_anchorSizes[anchor] = size;
  }
  /// A node of `size` nodes (an alias: its anchor's) added to the innermost open collection.
  void add(const YAML::Mark& mark, std::uint64_t size) {
    m_expanded += size;
    if (!m_open.empty()) {
      m_open.back().size += size;
    }
    check(mark);
  }
  void check(const YAML::Mark& mark) const {
    const std::uint64_t limit = std::max(kExpandedNodeFloor, kAliasExpansionFactor * m_spelled);
    if (m_expanded > limit) {
      fail(
          "{}:{}:{}: aliases expand the document to more than {} nodes ({} times the {} it spells "
          "out so far): YAML aliases may not multiply a file's size",
          m_source, mark.line + 1, mark.column + 1, limit, kAliasExpansionFactor, m_spelled);
    }
  }

  std::string_view m_source;
  std::vector<OpenCollection> m_open;
  std::vector<std::uint64_t> m_anchorSizes;  // by anchor id (yaml-cpp numbers them from 1)
  std::uint64_t m_spelled = 0;
  std::uint64_t m_expanded = 0;
};

}  // namespace

Node parse(std::string_view text, std::string_view source) {
  try {
    std::istringstream stream{std::string(text)};
    YAML::Parser parser(stream);
    AliasExpansionGuard guard(source);
    // The first document only, as YAML::Load reads it (a loop over documents never ends on some
    // inputs, such as ",", where the parser reports a document without consuming anything).
    (void)parser.HandleNextDocument(guard);
    return Node(YAML::Load(std::string(text)), std::string(source));
  } catch (const YAML::ParserException& e) {
    fail("{}:{}:{}: YAML syntax error: {}", source, e.mark.line + 1, e.mark.column + 1, e.msg);
  }
}

Node load(const std::filesystem::path& path) {
  return parse(readTextFile(path), path.string());
}

}  // namespace npu::yaml
