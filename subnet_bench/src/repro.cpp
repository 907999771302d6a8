// Repro files: writing the keys an op kind uses, and reading them back with errors that name the
// file and line.
#include "npu/subnet_bench/repro.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/yaml_reader.h"

namespace npu::bench {
namespace {

constexpr int kVersion = 1;

using K = CaseKind;

/// One key of the `case` map: the kinds that use it, its text and its parser.
struct CaseKey {
  std::string_view name;
  std::vector<CaseKind> kinds;
  std::function<std::string(const OpCase&)> write;
  std::function<void(const YAML::Node&, OpCase&, const std::string& where)> read;
};

const std::vector<CaseKind> kAllKinds{
    K::Conv,      K::Add,       K::Mul,      K::MaxPool, K::AvgPool,  K::GlobalAvgPool,
    K::Lut,       K::Concat,    K::Upsample, K::Slice,   K::Shuffle,  K::MatMul,
    K::ReduceMax, K::ReduceSum, K::Resize,   K::Softmax, K::LayerNorm};
const std::vector<CaseKind> kStageKinds{K::Conv, K::Add, K::Mul, K::MatMul, K::ReduceSum, K::Resize};
const std::vector<CaseKind> kWindowKinds{K::Conv, K::MaxPool, K::AvgPool};
const std::vector<CaseKind> kStageAndLayerNormKinds{K::Conv,      K::Add,    K::Mul,      K::MatMul,
                                                  K::ReduceSum, K::Resize, K::LayerNorm};
const std::vector<CaseKind> kClipKinds{K::Conv,      K::Add,    K::Mul,     K::MatMul,
                                     K::ReduceSum, K::Resize, K::Softmax, K::LayerNorm};

std::int64_t readInt(const YAML::Node& node, const std::string& where, std::string_view key) {
  if (!node.IsScalar()) {
    fail("{}: '{}' must be an integer", where, key);
  }
  try {
    return node.as<std::int64_t>();
  } catch (const YAML::Exception&) {
    fail("{}: '{}' must be an integer, got '{}'", where, key, node.Scalar());
  }
}

double readReal(const YAML::Node& node, const std::string& where, std::string_view key) {
  if (!node.IsScalar()) {
    fail("{}: '{}' must be a number", where, key);
  }
  try {
    const auto v = node.as<double>();
    if (!std::isfinite(v)) {
      fail("{}: '{}' must be a finite number, got '{}'", where, key, node.Scalar());
    }
    return v;
  } catch (const YAML::Exception&) {
    fail("{}: '{}' must be a number, got '{}'", where, key, node.Scalar());
  }
}

std::int32_t readInt32(const YAML::Node& node, const std::string& where, std::string_view key) {
  const std::int64_t v = readInt(node, where, key);
  if (v < std::numeric_limits<std::int32_t>::min() ||
      v > std::numeric_limits<std::int32_t>::max()) {
    fail("{}: '{}' = {} does not fit in 32 bits", where, key, v);
  }
  return static_cast<std::int32_t>(v);
}

template <std::size_t N>
std::array<std::int64_t, N> readInts(const YAML::Node& node, const std::string& where,
                                     std::string_view key) {
  std::array<std::int64_t, N> out{};
  bool ok = node.IsSequence() && node.size() == N;
  for (std::size_t i = 0; ok && i < N; ++i) {
    try {
      ok = node[i].IsScalar();
      out[i] = ok ? node[i].as<std::int64_t>() : 0;
    } catch (const YAML::Exception&) {
      ok = false;
    }
  }
  if (!ok) {
    fail("{}: '{}' must be a list of {} integers", where, key, N);
  }
  return out;
}

bool readBool(const YAML::Node& node, const std::string& where, std::string_view key) {
  try {
    if (node.IsScalar()) {
      return node.as<bool>();
    }
  } catch (const YAML::Exception&) {
  }
  fail("{}: '{}' must be true or false", where, key);
}

Requant readRequant(const YAML::Node& node, const std::string& where, std::string_view key) {
  const auto v = readInts<2>(node, where, key);
  if (v[0] < 0 || v[0] > std::numeric_limits<std::int32_t>::max() || v[1] < -31 || v[1] > 30) {
    fail(
        "{}: '{}' must be [multiplier, shift] with multiplier in [0, 2147483647] and shift in "
        "[-31, 30]",
        where, key);
  }
  return {static_cast<std::int32_t>(v[0]), static_cast<std::int32_t>(v[1])};
}

/// A matmul operand's view: `planar`, or token rows [row width, column offset, head step].
std::optional<TokenView> readTokenView(const YAML::Node& node, const std::string& where,
                                       std::string_view key) {
  if (node.IsScalar() && node.Scalar() == "planar") {
    return std::nullopt;
  }
  if (node.IsSequence() && node.size() == 3) {
    std::array<std::int64_t, 3> v{};
    bool ok = true;
    for (std::size_t i = 0; ok && i < 3; ++i) {
      try {
        ok = node[i].IsScalar();
        v[i] = ok ? node[i].as<std::int64_t>() : 0;
      } catch (const YAML::Exception&) {
        ok = false;
      }
    }
    if (ok) {
      return TokenView{v[0], v[1], v[2]};
    }
  }
  fail("{}: '{}' must be planar or [row width, column offset, head step]", where, key);
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

const std::vector<CaseKey>& caseKeys() {
  static const std::vector<CaseKey> keys{
      {"seed", kAllKinds, [](const OpCase& c) { return fmt::format("{}", c.seed); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         try {
           c.seed = n.as<std::uint64_t>();
         } catch (const YAML::Exception&) {
           fail("{}: 'seed' must be an unsigned 64-bit integer", where);
         }
       }},
      {"data", kAllKinds, [](const OpCase& c) { return std::string(dataPatternName(c.data)); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         const auto p = n.IsScalar() ? parseDataPattern(n.Scalar()) : std::nullopt;
         if (!p) {
           fail("{}: 'data' must be uniform, extremes or near_zero_point", where);
         }
         c.data = *p;
       }},
      {"input", kAllKinds,
       [](const OpCase& c) { return fmt::format("[{}, {}, {}]", c.height, c.width, c.channels); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         const auto v = readInts<3>(n, where, "input");
         c.height = v[0];
         c.width = v[1];
         c.channels = v[2];
       }},
      {"input_zero_point", kAllKinds,
       [](const OpCase& c) { return fmt::format("{}", c.inputZeroPoint); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.inputZeroPoint = readInt32(n, where, "input_zero_point");
       }},
      {"input_b_zero_point",
       {K::Add, K::Mul},
       [](const OpCase& c) { return fmt::format("{}", c.inputZeroPointB); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.inputZeroPointB = readInt32(n, where, "input_b_zero_point");
       }},
      {"input_b_per_channel",
       {K::Add, K::Mul},
       [](const OpCase& c) { return fmt::format("{}", c.perChannelB); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.perChannelB = readBool(n, where, "input_b_per_channel");
       }},
      {"concat_channels",
       {K::Concat},
       [](const OpCase& c) { return fmt::format("[{}]", fmt::join(c.concatChannels, ", ")); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.concatChannels.clear();
         bool ok = n.IsSequence() && n.size() > 0;
         for (std::size_t i = 0; ok && i < n.size(); ++i) {
           try {
             ok = n[i].IsScalar();
             c.concatChannels.push_back(ok ? n[i].as<std::int64_t>() : 0);
           } catch (const YAML::Exception&) {
             ok = false;
           }
         }
         if (!ok) {
           fail("{}: 'concat_channels' must be a non-empty list of integers", where);
         }
       }},
      {"channel_begin",
       {K::Slice},
       [](const OpCase& c) { return fmt::format("{}", c.channelBegin); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.channelBegin = readInt(n, where, "channel_begin");
       }},
      {"slice_channels",
       {K::Slice},
       [](const OpCase& c) { return fmt::format("{}", c.sliceChannels); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.sliceChannels = readInt(n, where, "slice_channels");
       }},
      {"row_begin",
       {K::Slice},
       [](const OpCase& c) { return fmt::format("{}", c.rowBegin); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.rowBegin = readInt(n, where, "row_begin");
       }},
      {"row_step",
       {K::Slice},
       [](const OpCase& c) { return fmt::format("{}", c.rowStep); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.rowStep = readInt(n, where, "row_step");
       }},
      {"slice_rows",
       {K::Slice},
       [](const OpCase& c) { return fmt::format("{}", c.sliceRows); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.sliceRows = readInt(n, where, "slice_rows");
       }},
      {"col_begin",
       {K::Slice},
       [](const OpCase& c) { return fmt::format("{}", c.colBegin); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.colBegin = readInt(n, where, "col_begin");
       }},
      {"col_step",
       {K::Slice},
       [](const OpCase& c) { return fmt::format("{}", c.colStep); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.colStep = readInt(n, where, "col_step");
       }},
      {"slice_cols",
       {K::Slice},
       [](const OpCase& c) { return fmt::format("{}", c.sliceCols); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.sliceCols = readInt(n, where, "slice_cols");
       }},
      {"out_channels",
       {K::Conv, K::MatMul},
       [](const OpCase& c) { return fmt::format("{}", c.outChannels); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.outChannels = readInt(n, where, "out_channels");
       }},
      {"kernel", kWindowKinds, [](const OpCase& c) { return pair(c.kernel); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.kernel = readInts<2>(n, where, "kernel");
       }},
      {"stride", kWindowKinds, [](const OpCase& c) { return pair(c.stride); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.stride = readInts<2>(n, where, "stride");
       }},
      {"dilation",
       {K::Conv},
       [](const OpCase& c) { return pair(c.dilation); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.dilation = readInts<2>(n, where, "dilation");
       }},
      {"pads", kWindowKinds,
       [](const OpCase& c) {
         return fmt::format("[{}]  # top, left, bottom, right", fmt::join(c.pads, ", "));
       },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.pads = readInts<4>(n, where, "pads");
       }},
      {"groups",
       {K::Conv, K::Shuffle},
       [](const OpCase& c) { return fmt::format("{}", c.groups); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.groups = readInt(n, where, "groups");
       }},
      {"weights",
       {K::Conv},
       [](const OpCase& c) { return std::string(c.fullRangeWeights ? "full" : "symmetric"); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         if (!n.IsScalar() || (n.Scalar() != "full" && n.Scalar() != "symmetric")) {
           fail("{}: 'weights' must be symmetric or full", where);
         }
         c.fullRangeWeights = n.Scalar() == "full";
       }},
      {"bias_range",
       {K::Conv},
       [](const OpCase& c) { return fmt::format("{}", c.biasRange); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.biasRange = readInt(n, where, "bias_range");
       }},
      {"requant", kStageKinds,
       [](const OpCase& c) { return requantText(c.requant) + "  # multiplier, shift"; },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.requant = readRequant(n, where, "requant");
       }},
      {"per_channel",
       {K::Conv},
       [](const OpCase& c) { return fmt::format("{}", c.perChannel); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.perChannel = readBool(n, where, "per_channel");
       }},
      {"requant_a",
       {K::Add},
       [](const OpCase& c) { return requantText(c.requantA); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.requantA = readRequant(n, where, "requant_a");
       }},
      {"requant_b",
       {K::Add},
       [](const OpCase& c) { return requantText(c.requantB); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.requantB = readRequant(n, where, "requant_b");
       }},
      {"left_shift",
       {K::Add},
       [](const OpCase& c) { return fmt::format("{}", c.leftShift); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.leftShift = readInt32(n, where, "left_shift");
       }},
      {"rounding", kStageKinds,
       [](const OpCase& c) {
         return std::string(c.rounding == golden::Rounding::Double ? "double" : "single");
       },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         if (!n.IsScalar() || (n.Scalar() != "single" && n.Scalar() != "double")) {
           fail("{}: 'rounding' must be single or double", where);
         }
         c.rounding = n.Scalar() == "double" ? golden::Rounding::Double : golden::Rounding::Single;
       }},
      {"output_zero_point", kStageAndLayerNormKinds,
       [](const OpCase& c) { return fmt::format("{}", c.outputZeroPoint); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.outputZeroPoint = readInt32(n, where, "output_zero_point");
       }},
      {"clip", kClipKinds,
       [](const OpCase& c) { return fmt::format("[{}, {}]", c.clipLo, c.clipHi); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         const auto v = readInts<2>(n, where, "clip");
         if (v[0] < -128 || v[1] > 127) {
           fail("{}: 'clip' bounds must be in [-128, 127]", where);
         }
         c.clipLo = static_cast<std::int32_t>(v[0]);
         c.clipHi = static_cast<std::int32_t>(v[1]);
       }},
      {"lut", kStageKinds, [](const OpCase& c) { return fmt::format("{}", c.fusedLut); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.fusedLut = readBool(n, where, "lut");
       }},
      {"factor",
       {K::Upsample},
       [](const OpCase& c) { return pair(c.factor); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.factor = readInts<2>(n, where, "factor");
       }},
      {"input_scale",
       {K::Softmax, K::LayerNorm},
       [](const OpCase& c) { return fmt::format("{}", c.inputScale); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.inputScale = readReal(n, where, "input_scale");
       }},
      {"output_scale",
       {K::LayerNorm},
       [](const OpCase& c) { return fmt::format("{}", c.outputScale); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.outputScale = readReal(n, where, "output_scale");
       }},
      {"epsilon",
       {K::LayerNorm},
       [](const OpCase& c) { return fmt::format("{}", c.epsilon); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.epsilon = readReal(n, where, "epsilon");
       }},
      {"resize_axis",
       {K::Resize},
       [](const OpCase& c) { return fmt::format("{}", c.resizeAxis); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.resizeAxis = readInt(n, where, "resize_axis");
       }},
      {"resize_length",
       {K::Resize},
       [](const OpCase& c) { return fmt::format("{}", c.resizeLength); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.resizeLength = readInt(n, where, "resize_length");
       }},
      {"transform",
       {K::Resize},
       [](const OpCase& c) { return std::string(transformName(c.transform)); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         const std::optional<golden::CoordinateTransform> t =
             n.IsScalar() ? parseTransform(n.Scalar()) : std::nullopt;
         if (!t) {
           fail(
               "{}: 'transform' must be half_pixel, pytorch_half_pixel, align_corners, "
               "asymmetric or tf_half_pixel_for_nn",
               where);
         }
         c.transform = *t;
       }},
      {"b_transposed",
       {K::MatMul},
       [](const OpCase& c) { return fmt::format("{}", c.transposedB); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.transposedB = readBool(n, where, "b_transposed");
       }},
      {"b_produced",
       {K::MatMul},
       [](const OpCase& c) { return fmt::format("{}", c.producedB); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.producedB = readBool(n, where, "b_produced");
       }},
      {"a_view",
       {K::MatMul},
       [](const OpCase& c) { return tokenViewText(c.tokensA); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.tokensA = readTokenView(n, where, "a_view");
       }},
      {"b_view",
       {K::MatMul},
       [](const OpCase& c) { return tokenViewText(c.tokensB); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.tokensB = readTokenView(n, where, "b_view");
       }},
      {"y_view",
       {K::MatMul},
       [](const OpCase& c) { return std::string(c.mergedY ? "merged" : "planar"); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         if (!n.IsScalar() || (n.Scalar() != "planar" && n.Scalar() != "merged")) {
           fail("{}: 'y_view' must be planar or merged", where);
         }
         c.mergedY = n.Scalar() == "merged";
       }},
      {"b_from_a",
       {K::MatMul},
       [](const OpCase& c) { return fmt::format("{}", c.bFromA); },
       [](const YAML::Node& n, OpCase& c, const std::string& where) {
         c.bFromA = readBool(n, where, "b_from_a");
       }},
  };
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

class ReproReader {
 public:
  explicit ReproReader(std::string_view source) : m_source(source) {}

  Repro read(const YAML::Node& root) {
    if (!root.IsMap() || !root["opcheck_repro"]) {
      fail("{}: not an opcheck repro file (no 'opcheck_repro: {}')", at(root), kVersion);
    }
    yaml::Node(root, std::string(m_source))
        .expectMap("a repro", {"opcheck_repro", "hw", "mode", "inject_bug", "case"});
    Repro repro;
    std::string caseWhere;  // FILE:LINE of the 'case' key
    for (const auto& entry : root) {
      const std::string key = entry.first.as<std::string>();
      const YAML::Node& value = entry.second;
      const std::string where = at(entry.first);
      if (key == "opcheck_repro") {
        if (readInt(value, where, key) != kVersion) {
          fail("{}: unsupported opcheck_repro version {} (this build reads {})", where,
               value.Scalar(), kVersion);
        }
      } else if (key == "hw") {
        if (!value.IsScalar() || value.Scalar().empty()) {
          fail("{}: 'hw' must be a hardware preset name or config path", where);
        }
        repro.hw = value.Scalar();
      } else if (key == "mode") {
        const std::string mode = value.IsScalar() ? value.Scalar() : "";
        if (const std::optional<Engine> engine = runtime::parseEngine(mode)) {
          repro.engine = *engine;
        } else {
          fail("{}: mode '{}' is not functional, timed or rtl", where, mode);
        }
      } else if (key == "inject_bug") {
        const auto bug = value.IsScalar() ? parseBug(value.Scalar()) : std::nullopt;
        if (!bug) {
          fail("{}: unknown injected bug '{}' (one of {})", where,
               value.IsScalar() ? value.Scalar() : "", bugNames());
        }
        repro.bug = *bug;
      } else if (key == "case") {
        repro.opCase = readCase(entry.first, value);
        caseWhere = where;
      }
    }
    if (caseWhere.empty()) {
      fail("{}: 'case' is missing", at(root));
    }
    try {
      validateCase(repro.opCase);
    } catch (const Error& e) {
      fail("{}: {}", caseWhere, e.what());
    }
    return repro;
  }

 private:
  std::string at(const YAML::Node& node) const {
    return fmt::format("{}:{}", m_source, std::max(node.Mark().line, 0) + 1);
  }

  OpCase readCase(const YAML::Node& keyNode, const YAML::Node& node) {
    if (!node.IsMap()) {
      fail("{}: 'case' must be a map", at(keyNode));
    }
    const YAML::Node op = node["op"];
    if (!op) {
      fail("{}: the case has no 'op'", at(keyNode));
    }
    const auto kind = op.IsScalar() ? parseCaseKind(op.Scalar()) : std::nullopt;
    if (!kind) {
      fail("{}: unknown op '{}' (one of {})", at(op), op.IsScalar() ? op.Scalar() : "", kindList());
    }
    OpCase c;
    c.kind = *kind;
    if (c.kind == CaseKind::Concat) {
      c.concatChannels = {1};
    }
    if (c.kind == CaseKind::Shuffle) {
      c.groups = 2;  // the smallest shuffle, as QShuffle's default
    }
    std::vector<std::string> seen;
    for (const auto& entry : node) {
      const std::string key = entry.first.as<std::string>();
      if (key == "op") {
        continue;
      }
      seen.push_back(key);
      const auto& keys = caseKeys();
      const auto it =
          std::find_if(keys.begin(), keys.end(), [&](const CaseKey& k) { return k.name == key; });
      if (it == keys.end()) {
        fail("{}: unknown case key '{}'", at(entry.first), key);
      }
      if (!applies(*it, c.kind)) {
        fail("{}: key '{}' does not apply to op '{}'", at(entry.first), key, caseKindName(c.kind));
      }
      it->read(entry.second, c, at(entry.first));
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

  std::string m_source;
};

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
  const YAML::Node root = yaml::parse(text, source).raw();  // syntax errors FILE:LINE:COL
  try {
    return ReproReader(source).read(root);
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
