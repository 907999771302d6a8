// Repro files: writing the keys an op kind uses, and reading them back with the shared strict
// reader (npu/support/yaml_reader.h), whose errors name the file and line.
#include "npu/subnet_bench/repro.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/yaml_reader.h"

namespace npu::bench {
namespace {

constexpr int kVersion = 1;
constexpr std::string_view kWhat = "a repro";

/// Integers are read within their field's type; the case's own ranges are validateCase's (shared
/// with the generator and the shrinker), but for a requant's and the clip's, checked as they are
/// read.
constexpr std::int64_t kInt64Lo = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kInt64Hi = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt32Lo = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kInt32Hi = std::numeric_limits<std::int32_t>::max();

using K = CaseKind;

/// One key of the `case` map: the kinds that use it, its text and its parser.
struct CaseKey {
  std::string_view name;
  std::vector<CaseKind> kinds;
  std::function<std::string(const OpCase&)> write;
  std::function<void(const yaml::Node&, OpCase&)> read;
};

/// Every op of the registry (compiler/target/npu_ops.def), in its order.
const std::vector<CaseKind> kAllKinds = [] {
  std::vector<CaseKind> kinds;
  for (const compiler::NpuOpInfo& info : compiler::kNpuOps) {
    kinds.push_back(info.op);
  }
  return kinds;
}();
const std::vector<CaseKind> kStageKinds{K::Conv,   K::Add,       K::Sub,   K::Mul,
                                        K::MatMul, K::ReduceSum, K::Resize};
const std::vector<CaseKind> kWindowKinds{K::Conv, K::MaxPool, K::AvgPool};
const std::vector<CaseKind> kStageAndNormKinds{
    K::Conv, K::Add, K::Sub, K::Mul, K::MatMul, K::ReduceSum, K::Resize, K::LayerNorm, K::RmsNorm};
const std::vector<CaseKind> kClipKinds{K::Conv,      K::Add,       K::Sub,    K::Mul,
                                       K::MatMul,    K::ReduceSum, K::Resize, K::Softmax,
                                       K::LayerNorm, K::RmsNorm};

std::int64_t anyInteger(const yaml::Node& node) {
  return node.integer(kInt64Lo, kInt64Hi);
}

std::int32_t int32(const yaml::Node& node) {
  return static_cast<std::int32_t>(node.integer(kInt32Lo, kInt32Hi));
}

/// The case's seed: any unsigned 64-bit integer, which the shared reader's signed integers do not
/// reach; the error is in their form.
std::uint64_t unsigned64(const yaml::Node& node) {
  try {
    return node.raw().as<std::uint64_t>();
  } catch (const YAML::Exception&) {
    node.fail("{}: expected an unsigned 64-bit integer, got '{}'", node.name(), node.text());
  }
}

/// The items of a list of exactly `count` values: `FILE:LINE: 'PATH' must be a list of N
/// integers` otherwise.
std::vector<yaml::Node> listOf(const yaml::Node& node, std::size_t count) {
  if (!node.raw().IsSequence() || node.raw().size() != count) {
    node.fail("{} must be a list of {} integers", node.name(), count);
  }
  return node.items();
}

template <std::size_t N>
std::array<std::int64_t, N> integers(const yaml::Node& node, std::int64_t lowest = kInt64Lo,
                                     std::int64_t highest = kInt64Hi) {
  const std::vector<yaml::Node> items = listOf(node, N);
  std::array<std::int64_t, N> out{};
  for (std::size_t i = 0; i < N; ++i) {
    out[i] = items[i].integer(lowest, highest);
  }
  return out;
}

/// [multiplier, shift], the multiplier in [0, 2^31 - 1] and the shift in [-31, 30].
Requant requant(const yaml::Node& node) {
  const std::vector<yaml::Node> items = listOf(node, 2);
  return {static_cast<std::int32_t>(items[0].integer(0, kInt32Hi)),
          static_cast<std::int32_t>(items[1].integer(-31, 30))};
}

/// A single value `parse` knows: `FILE:LINE: 'PATH': expected CHOICES, got 'V'` otherwise.
template <typename Parse>
auto choice(const yaml::Node& node, Parse parse, std::string_view choices) {
  const std::string text = node.text();
  const auto value = parse(text);
  if (!value) {
    node.fail("{}: expected {}, got '{}'", node.name(), choices, text);
  }
  return *value;
}

/// Whether a single value that must be `off` or `on` is `on`.
bool either(const yaml::Node& node, std::string_view off, std::string_view on) {
  const auto parse = [&](std::string_view text) -> std::optional<bool> {
    if (text == off || text == on) {
      return text == on;
    }
    return std::nullopt;
  };
  return choice(node, parse, fmt::format("{} or {}", off, on));
}

/// A matmul operand's view: `planar`, or token rows [row width, column offset, head step].
std::optional<TokenView> tokenView(const yaml::Node& node) {
  const YAML::Node& raw = node.raw();
  if (raw.IsScalar() && raw.Scalar() == "planar") {
    return std::nullopt;
  }
  if (!raw.IsSequence() || raw.size() != 3) {
    node.fail("{} must be planar or [row width, column offset, head step]", node.name());
  }
  const auto v = integers<3>(node);
  return TokenView{v[0], v[1], v[2]};
}

std::string tokenViewText(const std::optional<TokenView>& t) {
  if (!t) {
    return "planar";
  }
  return fmt::format("[{}, {}, {}]  # token rows: width, column offset, head step", t->rowWidth,
                     t->columnOffset, t->headStep);
}

std::string pair(const std::array<std::int64_t, 2>& v) {
  return fmt::format("[{}, {}]", v[0], v[1]);
}

std::string requantText(const Requant& r) {
  return fmt::format("[{}, {}]", r.multiplier, r.shift);
}

/// A key holding one field, written with "{}" (a number, true or false) and read by `read`: a
/// function of the node or a getter of the shared reader (&yaml::Node::boolean).
template <typename T, typename Read>
CaseKey fieldKey(std::string_view name, std::vector<CaseKind> kinds, T OpCase::*field, Read read) {
  return {name, std::move(kinds), [field](const OpCase& c) { return fmt::format("{}", c.*field); },
          [field, read](const yaml::Node& n, OpCase& c) { c.*field = std::invoke(read, n); }};
}

/// A key holding a [vertical, horizontal] pair of integers.
CaseKey pairKey(std::string_view name, std::vector<CaseKind> kinds,
                std::array<std::int64_t, 2> OpCase::*field) {
  return {name, std::move(kinds), [field](const OpCase& c) { return pair(c.*field); },
          [field](const yaml::Node& n, OpCase& c) { c.*field = integers<2>(n); }};
}

/// The keys every kind has, and those of eltwise, concat and slice, in the order files hold them.
void addInputKeys(std::vector<CaseKey>& keys) {
  keys.push_back({"seed", kAllKinds, [](const OpCase& c) { return fmt::format("{}", c.seed); },
                  [](const yaml::Node& n, OpCase& c) { c.seed = unsigned64(n); }});
  keys.push_back({"data", kAllKinds,
                  [](const OpCase& c) { return std::string(dataPatternName(c.data)); },
                  [](const yaml::Node& n, OpCase& c) {
                    c.data = choice(n, parseDataPattern, "uniform, extremes or near_zero_point");
                  }});
  keys.push_back(
      {"input", kAllKinds,
       [](const OpCase& c) { return fmt::format("[{}, {}, {}]", c.height, c.width, c.channels); },
       [](const yaml::Node& n, OpCase& c) {
         const auto v = integers<3>(n);
         c.height = v[0];
         c.width = v[1];
         c.channels = v[2];
       }});
  keys.push_back(fieldKey("input_zero_point", kAllKinds, &OpCase::inputZeroPoint, int32));
  keys.push_back(
      fieldKey("input_b_zero_point", {K::Add, K::Sub, K::Mul}, &OpCase::inputZeroPointB, int32));
  keys.push_back(fieldKey("input_b_per_channel", {K::Add, K::Sub, K::Mul}, &OpCase::perChannelB,
                          &yaml::Node::boolean));
  keys.push_back(
      {"concat_channels",
       {K::Concat},
       [](const OpCase& c) { return fmt::format("[{}]", fmt::join(c.concatChannels, ", ")); },
       [](const yaml::Node& n, OpCase& c) {
         if (!n.raw().IsSequence() || n.raw().size() == 0) {
           n.fail("{} must be a non-empty list of integers", n.name());
         }
         c.concatChannels.clear();
         for (const yaml::Node& item : n.items()) {
           c.concatChannels.push_back(anyInteger(item));
         }
       }});
  keys.push_back(fieldKey("channel_begin", {K::Slice}, &OpCase::channelBegin, anyInteger));
  keys.push_back(fieldKey("slice_channels", {K::Slice}, &OpCase::sliceChannels, anyInteger));
  keys.push_back(fieldKey("row_begin", {K::Slice}, &OpCase::rowBegin, anyInteger));
  keys.push_back(fieldKey("row_step", {K::Slice}, &OpCase::rowStep, anyInteger));
  keys.push_back(fieldKey("slice_rows", {K::Slice}, &OpCase::sliceRows, anyInteger));
  keys.push_back(fieldKey("col_begin", {K::Slice}, &OpCase::colBegin, anyInteger));
  keys.push_back(fieldKey("col_step", {K::Slice}, &OpCase::colStep, anyInteger));
  keys.push_back(fieldKey("slice_cols", {K::Slice}, &OpCase::sliceCols, anyInteger));
}

/// The keys of windows (conv, pools), conv's own and the output stage's.
void addWindowAndStageKeys(std::vector<CaseKey>& keys) {
  keys.push_back(fieldKey("out_channels", {K::Conv, K::MatMul}, &OpCase::outChannels, anyInteger));
  keys.push_back(pairKey("kernel", kWindowKinds, &OpCase::kernel));
  keys.push_back(pairKey("stride", kWindowKinds, &OpCase::stride));
  keys.push_back(pairKey("dilation", {K::Conv}, &OpCase::dilation));
  keys.push_back({"pads", kWindowKinds,
                  [](const OpCase& c) {
                    return fmt::format("[{}]  # top, left, bottom, right", fmt::join(c.pads, ", "));
                  },
                  [](const yaml::Node& n, OpCase& c) { c.pads = integers<4>(n); }});
  keys.push_back(fieldKey("groups", {K::Conv, K::Shuffle}, &OpCase::groups, anyInteger));
  keys.push_back(
      {"weights",
       {K::Conv},
       [](const OpCase& c) { return std::string(c.fullRangeWeights ? "full" : "symmetric"); },
       [](const yaml::Node& n, OpCase& c) {
         c.fullRangeWeights = either(n, "symmetric", "full");
       }});
  keys.push_back(fieldKey("bias_range", {K::Conv}, &OpCase::biasRange, anyInteger));
  keys.push_back({"requant", kStageKinds,
                  [](const OpCase& c) { return requantText(c.requant) + "  # multiplier, shift"; },
                  [](const yaml::Node& n, OpCase& c) { c.requant = requant(n); }});
  keys.push_back(fieldKey("per_channel", {K::Conv}, &OpCase::perChannel, &yaml::Node::boolean));
  keys.push_back({"requant_a",
                  {K::Add, K::Sub},
                  [](const OpCase& c) { return requantText(c.requantA); },
                  [](const yaml::Node& n, OpCase& c) { c.requantA = requant(n); }});
  keys.push_back({"requant_b",
                  {K::Add, K::Sub},
                  [](const OpCase& c) { return requantText(c.requantB); },
                  [](const yaml::Node& n, OpCase& c) { c.requantB = requant(n); }});
  keys.push_back(fieldKey("left_shift", {K::Add, K::Sub}, &OpCase::leftShift, int32));
  keys.push_back({"rounding", kStageKinds,
                  [](const OpCase& c) {
                    return std::string(c.rounding == golden::Rounding::Double ? "double"
                                                                              : "single");
                  },
                  [](const yaml::Node& n, OpCase& c) {
                    c.rounding = either(n, "single", "double") ? golden::Rounding::Double
                                                               : golden::Rounding::Single;
                  }});
  keys.push_back(
      fieldKey("output_zero_point", kStageAndNormKinds, &OpCase::outputZeroPoint, int32));
  keys.push_back({"clip", kClipKinds,
                  [](const OpCase& c) { return fmt::format("[{}, {}]", c.clipLo, c.clipHi); },
                  [](const yaml::Node& n, OpCase& c) {
                    const auto v = integers<2>(n, -128, 127);
                    c.clipLo = static_cast<std::int32_t>(v[0]);
                    c.clipHi = static_cast<std::int32_t>(v[1]);
                  }});
  keys.push_back(fieldKey("lut", kStageKinds, &OpCase::fusedLut, &yaml::Node::boolean));
}

/// The keys of upsample, the norms, resize and matmul.
void addOtherKeys(std::vector<CaseKey>& keys) {
  keys.push_back(pairKey("factor", {K::Upsample}, &OpCase::factor));
  keys.push_back(fieldKey("input_scale", {K::Softmax, K::LayerNorm, K::RmsNorm},
                          &OpCase::inputScale, &yaml::Node::number));
  keys.push_back(fieldKey("output_scale", {K::LayerNorm, K::RmsNorm}, &OpCase::outputScale,
                          &yaml::Node::number));
  keys.push_back(
      fieldKey("epsilon", {K::LayerNorm, K::RmsNorm}, &OpCase::epsilon, &yaml::Node::number));
  keys.push_back(fieldKey("resize_axis", {K::Resize}, &OpCase::resizeAxis, anyInteger));
  keys.push_back(fieldKey("resize_length", {K::Resize}, &OpCase::resizeLength, anyInteger));
  keys.push_back({"transform",
                  {K::Resize},
                  [](const OpCase& c) { return std::string(transformName(c.transform)); },
                  [](const yaml::Node& n, OpCase& c) {
                    c.transform = choice(n, parseTransform,
                                         "half_pixel, pytorch_half_pixel, align_corners, "
                                         "asymmetric or tf_half_pixel_for_nn");
                  }});
  keys.push_back(fieldKey("b_transposed", {K::MatMul}, &OpCase::transposedB, &yaml::Node::boolean));
  keys.push_back(fieldKey("b_produced", {K::MatMul}, &OpCase::producedB, &yaml::Node::boolean));
  keys.push_back({"a_view",
                  {K::MatMul},
                  [](const OpCase& c) { return tokenViewText(c.tokensA); },
                  [](const yaml::Node& n, OpCase& c) { c.tokensA = tokenView(n); }});
  keys.push_back({"b_view",
                  {K::MatMul},
                  [](const OpCase& c) { return tokenViewText(c.tokensB); },
                  [](const yaml::Node& n, OpCase& c) { c.tokensB = tokenView(n); }});
  keys.push_back(
      {"y_view",
       {K::MatMul},
       [](const OpCase& c) { return std::string(c.mergedY ? "merged" : "planar"); },
       [](const yaml::Node& n, OpCase& c) { c.mergedY = either(n, "planar", "merged"); }});
  keys.push_back(fieldKey("b_from_a", {K::MatMul}, &OpCase::bFromA, &yaml::Node::boolean));
}

/// Every case key, in the order files hold them.
const std::vector<CaseKey>& caseKeys() {
  static const std::vector<CaseKey> keys = [] {
    std::vector<CaseKey> all;
    addInputKeys(all);
    addWindowAndStageKeys(all);
    addOtherKeys(all);
    return all;
  }();
  return keys;
}

bool applies(const CaseKey& key, CaseKind kind) {
  return std::find(key.kinds.begin(), key.kinds.end(), kind) != key.kinds.end();
}

/// A plain YAML scalar when safe, else a double-quoted one.
std::string scalar(std::string_view text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '-' || ch == '_' ||
           ch == '.' || ch == '/';
  });
  if (plain) {
    return std::string(text);
  }
  std::string quoted = "\"";
  for (const char ch : text) {
    if (ch == '"' || ch == '\\') {
      quoted += '\\';
    }
    quoted += ch;
  }
  return quoted + "\"";
}

std::string kindList() {
  std::vector<std::string_view> names;
  for (const CaseKind kind : kAllKinds) {
    names.push_back(caseKindName(kind));
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

/// The case map: its op, then its other keys, each of which must be one the op uses.
OpCase readCase(const yaml::Node& node) {
  if (!node.raw().IsMap()) {
    node.fail("{} must be a mapping", node.name());
  }
  OpCase c;
  c.kind =
      choice(node.required("op", "the case"), parseCaseKind, fmt::format("an op ({})", kindList()));
  if (c.kind == CaseKind::Concat) {
    c.concatChannels = {1};
  }
  if (c.kind == CaseKind::Shuffle) {
    c.groups = 2;  // the smallest shuffle, as QShuffle's default
  }
  std::vector<std::string> seen;
  // In the file's order: of a key given twice, the last counts.
  for (const auto& entry : node.raw()) {
    const yaml::Node keyNode(entry.first, node.source());
    if (!entry.first.IsScalar()) {
      keyNode.fail("a key of the case must be a single value");
    }
    const std::string key = entry.first.Scalar();
    if (key == "op") {
      continue;
    }
    seen.push_back(key);
    const auto& keys = caseKeys();
    const auto it =
        std::find_if(keys.begin(), keys.end(), [&](const CaseKey& k) { return k.name == key; });
    if (it == keys.end()) {
      keyNode.fail("unknown case key '{}'", key);
    }
    if (!applies(*it, c.kind)) {
      keyNode.fail("key '{}' does not apply to op '{}'", key, caseKindName(c.kind));
    }
    it->read(yaml::Node(entry.second, node.source(), fmt::format("{}.{}", node.path(), key)), c);
  }
  if (c.kind == CaseKind::Slice) {
    // Without a count, a slice keeps the rows (columns) from its begin to the input's end:
    // files written before slices had rows and columns read as the channel slices they were.
    const auto has = [&](std::string_view key) {
      return std::find(seen.begin(), seen.end(), key) != seen.end();
    };
    if (!has("slice_rows")) {
      c.sliceRows = sliceCountToEnd(c.height, c.rowBegin, c.rowStep);
    }
    if (!has("slice_cols")) {
      c.sliceCols = sliceCountToEnd(c.width, c.colBegin, c.colStep);
    }
  }
  return c;
}

Repro readRoot(const yaml::Node& root) {
  if (!root.raw().IsMap() || !root.optional("opcheck_repro")) {
    root.fail("not an opcheck repro file (no 'opcheck_repro: {}')", kVersion);
  }
  root.expectMap(kWhat, {"opcheck_repro", "hw", "mode", "inject_bug", "case"});
  Repro repro;
  std::optional<yaml::Node> caseKey;  // validation errors name the line of the 'case' key
  // In the file's order: of a key given twice, the last counts.
  for (const auto& entry : root.raw()) {
    const std::string key = entry.first.Scalar();
    const yaml::Node value(entry.second, root.source(), key);
    if (key == "opcheck_repro") {
      if (anyInteger(value) != kVersion) {
        value.fail("unsupported opcheck_repro version {} (this build reads {})", value.text(),
                   kVersion);
      }
    } else if (key == "hw") {
      repro.hw = value.nonEmptyText();
    } else if (key == "mode") {
      repro.engine = choice(value, runtime::parseEngine, "functional, timed or rtl");
    } else if (key == "inject_bug") {
      repro.bug = choice(value, parseBug, fmt::format("an injected bug ({})", bugNames()));
    } else if (key == "case") {
      repro.opCase = readCase(value);
      caseKey.emplace(entry.first, root.source());
    }
  }
  if (!caseKey) {
    (void)root.required("case", kWhat);  // throws: missing key 'case' in a repro
  }
  try {
    validateCase(repro.opCase);
  } catch (const Error& e) {
    caseKey->fail("{}", e.what());
  }
  return repro;
}

}  // namespace

std::string reproToYaml(const Repro& repro) {
  std::string text = "# npu opcheck repro; replay with: npu opcheck --repro FILE\n";
  if (!repro.failure.empty()) {
    std::string oneLine = repro.failure;
    std::replace(oneLine.begin(), oneLine.end(), '\n', ' ');
    text += fmt::format("# {}\n", oneLine);
  }
  text += fmt::format("opcheck_repro: {}\nhw: {}\nmode: {}\n", kVersion, scalar(repro.hw),
                      engineName(repro.engine));
  if (repro.bug != InjectedBug::None) {
    text += fmt::format("inject_bug: {}\n", bugName(repro.bug));
  }
  text += fmt::format("case:\n  op: {}\n", caseKindName(repro.opCase.kind));
  for (const CaseKey& key : caseKeys()) {
    if (applies(key, repro.opCase.kind)) {
      text += fmt::format("  {}: {}\n", key.name, key.write(repro.opCase));
    }
  }
  return text;
}

Repro parseRepro(std::string_view text, std::string_view source) {
  const yaml::Node root = yaml::parse(text, source);  // syntax errors FILE:LINE:COL
  try {
    return readRoot(root);
  } catch (const YAML::Exception& e) {  // a conversion the reader did not check first
    yaml::failOnYamlException(e, source);
  }
}

Repro readRepro(const std::filesystem::path& path) {
  return parseRepro(readTextFile(path), path.string());
}

void writeRepro(const std::filesystem::path& path, const Repro& repro) {
  writeTextFile(path, reproToYaml(repro));
}

}  // namespace npu::bench
