// The ONNX structure-aware mutator: one to three edits of a parsed ModelProto, each drawn from
// the kinds of damage a byte mutator rarely gets past the protobuf wire format.
#include "onnx_mutator.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <string_view>

#include "mutation_rng.h"
#include "npu/compiler/ir/op_kind.h"

namespace npu::fuzz {
namespace {

using Attribute = onnx::AttributeProto;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

/// Dims, attribute values and versions that sit on a boundary somewhere in the importer.
constexpr std::array<std::int64_t, 20> kInterestingInts = {0,         1,
                                                           -1,        2,
                                                           3,         4,
                                                           7,         16,
                                                           255,       256,
                                                           65535,     -2,
                                                           1LL << 31, (1LL << 31) - 1,
                                                           1LL << 32, 1LL << 40,
                                                           kInt64Max, kInt64Min,
                                                           1LL << 28, (1LL << 28) + 1};

constexpr std::array<float, 14> kInterestingFloats = {0.0F,
                                                      -0.0F,
                                                      1.0F,
                                                      -1.0F,
                                                      0.5F,
                                                      2.0F,
                                                      1e-30F,
                                                      1e30F,
                                                      65504.0F,
                                                      std::numeric_limits<float>::max(),
                                                      std::numeric_limits<float>::denorm_min(),
                                                      std::numeric_limits<float>::infinity(),
                                                      -std::numeric_limits<float>::infinity(),
                                                      std::numeric_limits<float>::quiet_NaN()};

/// The values the importer's string attributes take (auto_pad, Resize and Pad modes, Gelu's
/// approximation, DepthToSpace's order, an Einsum equation), and some they never take.
constexpr std::array<std::string_view, 27> kInterestingStrings = {"",
                                                                  "NOTSET",
                                                                  "SAME_UPPER",
                                                                  "SAME_LOWER",
                                                                  "VALID",
                                                                  "nearest",
                                                                  "linear",
                                                                  "cubic",
                                                                  "bilinear",
                                                                  "constant",
                                                                  "reflect",
                                                                  "edge",
                                                                  "asymmetric",
                                                                  "half_pixel",
                                                                  "align_corners",
                                                                  "floor",
                                                                  "ceil",
                                                                  "pytorch_half_pixel",
                                                                  "none",
                                                                  "tanh",
                                                                  "DCR",
                                                                  "CRD",
                                                                  "round_prefer_floor",
                                                                  "ij,jk->ik",
                                                                  "nchw,oc->nhwo",
                                                                  "tf_crop_and_resize",
                                                                  "x"};

/// Attributes the importer reads, each with the type ONNX gives it.
struct AttributeSpec {
  std::string_view name;
  Attribute::AttributeType type;
};
constexpr std::array<AttributeSpec, 40> kAttributes = {{
    {"kernel_shape", Attribute::INTS},
    {"strides", Attribute::INTS},
    {"pads", Attribute::INTS},
    {"dilations", Attribute::INTS},
    {"output_padding", Attribute::INTS},
    {"output_shape", Attribute::INTS},
    {"perm", Attribute::INTS},
    {"axes", Attribute::INTS},
    {"split", Attribute::INTS},
    {"value_ints", Attribute::INTS},
    {"group", Attribute::INT},
    {"axis", Attribute::INT},
    {"keepdims", Attribute::INT},
    {"transA", Attribute::INT},
    {"transB", Attribute::INT},
    {"to", Attribute::INT},
    {"ceil_mode", Attribute::INT},
    {"count_include_pad", Attribute::INT},
    {"blocksize", Attribute::INT},
    {"num_groups", Attribute::INT},
    {"num_outputs", Attribute::INT},
    {"noop_with_empty_axes", Attribute::INT},
    {"training_mode", Attribute::INT},
    {"value_int", Attribute::INT},
    {"alpha", Attribute::FLOAT},
    {"beta", Attribute::FLOAT},
    {"epsilon", Attribute::FLOAT},
    {"min", Attribute::FLOAT},
    {"max", Attribute::FLOAT},
    {"value_float", Attribute::FLOAT},
    {"scales", Attribute::FLOATS},
    {"value_floats", Attribute::FLOATS},
    {"mode", Attribute::STRING},
    {"auto_pad", Attribute::STRING},
    {"coordinate_transformation_mode", Attribute::STRING},
    {"nearest_mode", Attribute::STRING},
    {"approximate", Attribute::STRING},
    {"equation", Attribute::STRING},
    {"value", Attribute::TENSOR},
    {"bias", Attribute::FLOAT},
}};

constexpr std::array<Attribute::AttributeType, 9> kAttributeTypes = {
    Attribute::UNDEFINED, Attribute::FLOAT,  Attribute::INT,  Attribute::STRING, Attribute::TENSOR,
    Attribute::GRAPH,     Attribute::FLOATS, Attribute::INTS, Attribute::STRINGS};

/// TensorProto data types: every defined one (0 is UNDEFINED) and two that are not.
constexpr std::array<std::int32_t, 19> kDataTypes = {0,  1,  2,  3,  4,  5,  6,  7,  8, 9,
                                                     10, 11, 12, 13, 14, 15, 16, 99, -1};

/// Op types besides the importer's own table (compiler/include/npu/compiler/ir/ops.def): the
/// ones it rewrites or refuses by name, and one nobody defines.
constexpr std::array<std::string_view, 8> kExtraOpTypes = {
    "Constant", "Upsample", "Einsum", "Dropout", "LSTM", "If", "Loop", "NotAnOp"};

/// Opset versions: the ones the importer reads (9 to 18) first, then the boundaries around them.
constexpr std::array<std::int64_t, 17> kOpsetVersions = {9,  10, 11, 12, 13, 14, 15, 16, 17,
                                                         18, 0,  1,  8,  19, 22, 99, -1};
constexpr std::size_t kImportedOpsets = 10;

std::int64_t wrappingAdd(std::int64_t value, std::int64_t delta) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(value) +
                                   static_cast<std::uint64_t>(delta));
}

/// A boundary value, a small one, or `current` nudged by one.
std::int64_t interestingInt(MutationRng& rng, std::int64_t current) {
  switch (rng.below(4)) {
    case 0:
      return static_cast<std::int64_t>(rng.below(65));
    case 1:
      return wrappingAdd(current, rng.oneIn(2) ? 1 : -1);
    default:
      return rng.pick(std::span<const std::int64_t>(kInterestingInts));
  }
}

float interestingFloat(MutationRng& rng) {
  if (rng.oneIn(4)) {
    return static_cast<float>(rng.below(2001)) / 100.0F - 10.0F;
  }
  return rng.pick(std::span<const float>(kInterestingFloats));
}

/// Edits one element of a repeated field, or grows, shrinks or empties it.
template <typename Repeated, typename MakeValue>
void mutateList(MutationRng& rng, Repeated& list, MakeValue makeValue) {
  const auto size = static_cast<std::size_t>(list.size());
  switch (size == 0 ? 1 : rng.below(5)) {
    case 0: {
      const int at = static_cast<int>(rng.below(size));
      list.Set(at, makeValue(list.Get(at)));
      break;
    }
    case 1:
      list.Add(makeValue(typename Repeated::value_type{}));
      break;
    case 2:
      list.RemoveLast();
      break;
    case 3:
      list.Clear();
      break;
    default: {  // a fresh list of up to six values
      list.Clear();
      const std::size_t count = 1 + rng.below(6);
      for (std::size_t i = 0; i < count; ++i) {
        list.Add(makeValue(typename Repeated::value_type{}));
      }
      break;
    }
  }
}

/// Bytes appended to raw_data that grows, never more than the budget allows.
void resizeBytes(MutationRng& rng, std::string& bytes, std::size_t budget) {
  const std::size_t size = bytes.size();
  std::size_t target = 0;
  switch (rng.below(6)) {
    case 0:
      target = 0;
      break;
    case 1:
      target = size == 0 ? 0 : size - 1;
      break;
    case 2:
      target = size / 2;
      break;
    case 3:
      target = size + 1;
      break;
    case 4:
      target = size + 1 + rng.below(64);
      break;
    default:
      target = size * 2;
      break;
  }
  target = std::min(target, size + std::min<std::size_t>(budget, 4096));
  while (bytes.size() < target) {
    bytes.push_back(static_cast<char>(rng.below(256)));
  }
  bytes.resize(target);
}

/// Changes a tensor's dims, the length of its data (shorter or longer than its dims say), or its
/// data type.
void mutateTensor(MutationRng& rng, onnx::TensorProto& tensor, std::size_t budget) {
  switch (rng.below(4)) {
    case 0:
      mutateList(rng, *tensor.mutable_dims(),
                 [&rng](std::int64_t current) { return interestingInt(rng, current); });
      break;
    case 1:
      tensor.set_data_type(rng.pick(std::span<const std::int32_t>(kDataTypes)));
      break;
    default:  // the data against its dims
      if (!tensor.raw_data().empty() || rng.oneIn(3)) {
        resizeBytes(rng, *tensor.mutable_raw_data(), budget);
      } else if (tensor.float_data_size() > 0 || rng.oneIn(2)) {
        mutateList(rng, *tensor.mutable_float_data(),
                   [&rng](float) { return interestingFloat(rng); });
      } else if (tensor.int64_data_size() > 0 || rng.oneIn(2)) {
        mutateList(rng, *tensor.mutable_int64_data(),
                   [&rng](std::int64_t current) { return interestingInt(rng, current); });
      } else {
        mutateList(rng, *tensor.mutable_int32_data(), [&rng](std::int32_t current) {
          return static_cast<std::int32_t>(interestingInt(rng, current));
        });
      }
      break;
  }
}

/// Gives an attribute a fresh value of its declared type (or of `type`).
void setAttributeValue(MutationRng& rng, Attribute& attribute, Attribute::AttributeType type,
                       std::size_t budget) {
  const auto makeInt = [&rng](std::int64_t current) { return interestingInt(rng, current); };
  switch (type) {
    case Attribute::INT:
      attribute.set_i(interestingInt(rng, attribute.i()));
      break;
    case Attribute::FLOAT:
      attribute.set_f(interestingFloat(rng));
      break;
    case Attribute::STRING:
      attribute.set_s(
          std::string(rng.pick(std::span<const std::string_view>(kInterestingStrings))));
      break;
    case Attribute::INTS:
      mutateList(rng, *attribute.mutable_ints(), makeInt);
      break;
    case Attribute::FLOATS:
      mutateList(rng, *attribute.mutable_floats(), [&rng](float) { return interestingFloat(rng); });
      break;
    case Attribute::TENSOR:
      mutateTensor(rng, *attribute.mutable_t(), budget);
      break;
    default:  // graphs and the rest: the value goes, the name stays
      attribute.clear_g();
      attribute.clear_strings();
      break;
  }
}

/// Every name a node input can refer to: graph inputs, initializers and node outputs.
std::vector<std::string> valueNames(const onnx::GraphProto& graph) {
  std::vector<std::string> names;
  for (const auto& input : graph.input()) {
    names.push_back(input.name());
  }
  for (const auto& initializer : graph.initializer()) {
    names.push_back(initializer.name());
  }
  for (const auto& node : graph.node()) {
    names.insert(names.end(), node.output().begin(), node.output().end());
  }
  return names;
}

/// The tensors a mutation may edit: initializers and the `value` of Constant-like attributes.
std::vector<onnx::TensorProto*> tensors(onnx::GraphProto& graph) {
  std::vector<onnx::TensorProto*> result;
  for (auto& initializer : *graph.mutable_initializer()) {
    result.push_back(&initializer);
  }
  for (auto& node : *graph.mutable_node()) {
    for (auto& attribute : *node.mutable_attribute()) {
      if (attribute.has_t()) {
        result.push_back(attribute.mutable_t());
      }
    }
  }
  return result;
}

/// The tensor-typed value infos: graph inputs, outputs and intermediate annotations.
std::vector<onnx::ValueInfoProto*> valueInfos(onnx::GraphProto& graph) {
  std::vector<onnx::ValueInfoProto*> result;
  for (auto* list : {graph.mutable_input(), graph.mutable_output(), graph.mutable_value_info()}) {
    for (auto& info : *list) {
      if (info.type().has_tensor_type()) {
        result.push_back(&info);
      }
    }
  }
  return result;
}

class OnnxMutator {
 public:
  OnnxMutator(onnx::ModelProto& model, MutationRng& rng, std::size_t budget)
      : m_model(model), m_graph(*model.mutable_graph()), m_rng(rng), m_budget(budget) {}

  /// Applies one mutation of a kind drawn by the seed; false when that kind has nothing to edit.
  /// Weighted towards the edits that keep a model importable (dims, attributes, wiring, op
  /// types), so that most mutants reach shape inference and the passes; the ones the importer
  /// stops at its door (opset, data types, initializer sizes) come less often.
  bool mutateOnce() {
    switch (m_rng.below(20)) {
      case 0:
      case 1:
      case 2:
      case 3:
        return mutateDim();
      case 4:
      case 5:
      case 6:
      case 7:
      case 8:
        return mutateAttribute();
      case 9:
        return mutateInitializer();
      case 10:
      case 11:
        return rewire();
      case 12:
      case 13:
        return duplicateOrDeleteNode();
      case 14:
      case 15:
        return changeOpType();
      case 16:
        return changeOpset();
      case 17:
        return changeDataType();
      default:
        return editGraphInterface();
    }
  }

 private:
  onnx::NodeProto* pickNode() {
    if (m_graph.node_size() == 0) {
      return nullptr;
    }
    return m_graph.mutable_node(static_cast<int>(m_rng.below(m_graph.node_size())));
  }

  /// One dim of a graph input, output or value_info, or of an initializer: a boundary value, a
  /// symbolic name, no value at all, one more or one fewer dim, or no shape.
  bool mutateDim() {
    const std::vector<onnx::ValueInfoProto*> infos = valueInfos(m_graph);
    const std::vector<onnx::TensorProto*> inits = tensors(m_graph);
    if (infos.empty() && inits.empty()) {
      return false;
    }
    // Value infos three times in four: an initializer's dims rarely survive the size check.
    if (infos.empty() || (!inits.empty() && m_rng.oneIn(4))) {
      onnx::TensorProto& tensor = *inits[m_rng.below(inits.size())];
      mutateList(m_rng, *tensor.mutable_dims(),
                 [this](std::int64_t current) { return interestingInt(m_rng, current); });
      return true;
    }
    onnx::TypeProto_Tensor& type =
        *infos[m_rng.below(infos.size())]->mutable_type()->mutable_tensor_type();
    onnx::TensorShapeProto& shape = *type.mutable_shape();
    const std::size_t action = shape.dim_size() == 0 ? 4 : m_rng.below(7);
    if (action <= 2) {
      auto& dim = *shape.mutable_dim(static_cast<int>(m_rng.below(shape.dim_size())));
      if (action == 0) {
        dim.set_dim_value(interestingInt(m_rng, dim.dim_value()));
      } else if (action == 1) {
        dim.set_dim_param(m_rng.oneIn(2) ? "N" : "batch");
      } else {
        dim.clear_value();
      }
    } else if (action == 3) {
      shape.mutable_dim()->RemoveLast();
    } else if (action <= 5) {
      shape.add_dim()->set_dim_value(interestingInt(m_rng, 1));
    } else {
      type.clear_shape();
    }
    return true;
  }

  /// A node attribute: a new value, a value of another type, removed, or added (possibly under a
  /// name the node already has).
  bool mutateAttribute() {
    onnx::NodeProto* node = pickNode();
    if (node == nullptr) {
      return false;
    }
    const std::size_t action = node->attribute_size() == 0 ? 3 : m_rng.below(6);
    if (action <= 1) {
      Attribute& attribute =
          *node->mutable_attribute(static_cast<int>(m_rng.below(node->attribute_size())));
      setAttributeValue(m_rng, attribute, attribute.type(), m_budget);
    } else if (action == 2) {
      Attribute& attribute =
          *node->mutable_attribute(static_cast<int>(m_rng.below(node->attribute_size())));
      const Attribute::AttributeType type =
          m_rng.pick(std::span<const Attribute::AttributeType>(kAttributeTypes));
      attribute.set_type(type);
      if (m_rng.oneIn(2)) {
        setAttributeValue(m_rng, attribute, type, m_budget);
      }
    } else if (action == 3 || action == 4) {
      const AttributeSpec& spec = m_rng.pick(std::span<const AttributeSpec>(kAttributes));
      Attribute& attribute = *node->add_attribute();
      attribute.set_name(std::string(spec.name));
      attribute.set_type(spec.type);
      setAttributeValue(m_rng, attribute, spec.type, m_budget);
    } else {
      node->mutable_attribute()->DeleteSubrange(
          static_cast<int>(m_rng.below(node->attribute_size())), 1);
    }
    return true;
  }

  /// An initializer's (or a Constant's) data made shorter or longer than its dims, its dims, or
  /// its data type.
  bool mutateInitializer() {
    const std::vector<onnx::TensorProto*> inits = tensors(m_graph);
    if (inits.empty()) {
      return false;
    }
    mutateTensor(m_rng, *inits[m_rng.below(inits.size())], m_budget);
    return true;
  }

  /// A node input or output renamed to another value (an earlier or later node's output, a cycle,
  /// a second producer), to a name nothing produces, or to the empty (absent optional) name; or an
  /// input added or removed.
  bool rewire() {
    onnx::NodeProto* node = pickNode();
    if (node == nullptr) {
      return false;
    }
    std::vector<std::string> names = valueNames(m_graph);
    names.push_back("");
    names.push_back("dangling_" + std::to_string(m_rng.below(4)));
    const std::string& name = names[m_rng.below(names.size())];
    const bool output = m_rng.oneIn(4);
    auto& slots = output ? *node->mutable_output() : *node->mutable_input();
    switch (slots.empty() ? 1 : m_rng.below(4)) {
      case 0:
      case 3:
        *slots.Mutable(static_cast<int>(m_rng.below(slots.size()))) = name;
        break;
      case 1:
        *slots.Add() = name;
        break;
      default:
        slots.RemoveLast();
        break;
    }
    return true;
  }

  /// A node copied to another place in the order (a second producer of its outputs, perhaps
  /// before its inputs exist), deleted, or swapped with another.
  bool duplicateOrDeleteNode() {
    auto& nodes = *m_graph.mutable_node();
    if (nodes.empty()) {
      return false;
    }
    const int from = static_cast<int>(m_rng.below(nodes.size()));
    switch (m_rng.below(3)) {
      case 0: {
        *nodes.Add() = nodes.Get(from);
        const int to = static_cast<int>(m_rng.below(nodes.size()));
        for (int i = nodes.size() - 1; i > to; --i) {
          nodes.SwapElements(i, i - 1);
        }
        break;
      }
      case 1:
        nodes.DeleteSubrange(from, 1);
        break;
      default:
        nodes.SwapElements(from, static_cast<int>(m_rng.below(nodes.size())));
        break;
    }
    return true;
  }

  /// A node's op_type changed to another op the importer knows (or refuses by name), or its
  /// domain changed.
  bool changeOpType() {
    onnx::NodeProto* node = pickNode();
    if (node == nullptr) {
      return false;
    }
    if (m_rng.oneIn(8)) {
      constexpr std::array<std::string_view, 4> kDomains = {"", "ai.onnx", "com.microsoft",
                                                            "ai.onnx.ml"};
      node->set_domain(std::string(m_rng.pick(std::span<const std::string_view>(kDomains))));
      return true;
    }
    const std::span<const compiler::OpKind> ops = compiler::allOps();
    const std::size_t choice = m_rng.below(ops.size() + kExtraOpTypes.size());
    node->set_op_type(std::string(choice < ops.size() ? compiler::opName(ops[choice])
                                                      : kExtraOpTypes[choice - ops.size()]));
    return true;
  }

  /// The default domain's opset version (or another entry's), the entry removed or doubled, or
  /// the IR version.
  bool changeOpset() {
    auto& imports = *m_model.mutable_opset_import();
    switch (imports.empty() ? 5 : m_rng.below(8)) {
      case 5: {
        auto& entry = *imports.Add();
        entry.set_domain(m_rng.oneIn(2) ? "" : "ai.onnx");
        entry.set_version(opsetVersion());
        break;
      }
      case 6:
        imports.DeleteSubrange(static_cast<int>(m_rng.below(imports.size())), 1);
        break;
      case 7:
        m_model.set_ir_version(interestingInt(m_rng, m_model.ir_version()));
        break;
      default:
        imports.Mutable(static_cast<int>(m_rng.below(imports.size())))->set_version(opsetVersion());
        break;
    }
    return true;
  }

  /// A version the importer reads three times in four, a boundary around them otherwise.
  std::int64_t opsetVersion() {
    return m_rng.oneIn(4) ? kOpsetVersions[kImportedOpsets +
                                           m_rng.below(kOpsetVersions.size() - kImportedOpsets)]
                          : kOpsetVersions[m_rng.below(kImportedOpsets)];
  }

  /// The element type of a graph input, output or value_info, or an initializer's data type.
  bool changeDataType() {
    const std::vector<onnx::ValueInfoProto*> infos = valueInfos(m_graph);
    const std::vector<onnx::TensorProto*> inits = tensors(m_graph);
    if (infos.empty() && inits.empty()) {
      return false;
    }
    const std::int32_t type = m_rng.pick(std::span<const std::int32_t>(kDataTypes));
    const std::size_t choice = m_rng.below(infos.size() + inits.size());
    if (choice < infos.size()) {
      infos[choice]->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    } else {
      inits[choice - infos.size()]->set_data_type(type);
    }
    return true;
  }

  /// A graph input or output removed or duplicated, or an intermediate value made an output.
  bool editGraphInterface() {
    auto& list = m_rng.oneIn(2) ? *m_graph.mutable_input() : *m_graph.mutable_output();
    switch (list.empty() ? 2 : m_rng.below(3)) {
      case 0:
        list.DeleteSubrange(static_cast<int>(m_rng.below(list.size())), 1);
        return true;
      case 1:
        *list.Add() = list.Get(static_cast<int>(m_rng.below(list.size())));
        return true;
      default: {
        const std::vector<std::string> names = valueNames(m_graph);
        if (names.empty()) {
          return false;
        }
        onnx::ValueInfoProto& info = *list.Add();
        info.set_name(names[m_rng.below(names.size())]);
        if (m_rng.oneIn(2)) {
          info.mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
        }
        return true;
      }
    }
  }

  onnx::ModelProto& m_model;
  onnx::GraphProto& m_graph;
  MutationRng& m_rng;
  std::size_t m_budget;
};

}  // namespace

std::optional<std::vector<std::uint8_t>> mutateOnnx(std::span<const std::uint8_t> bytes,
                                                    std::uint32_t seed, std::size_t maxSize) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return std::nullopt;
  }
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return std::nullopt;
  }
  MutationRng rng(seed);
  const std::size_t budget = maxSize > bytes.size() ? maxSize - bytes.size() : 0;
  OnnxMutator mutator(model, rng, budget);
  if (!applyMutations(rng, [&mutator] { return mutator.mutateOnce(); })) {
    return std::nullopt;
  }
  const std::size_t size = model.ByteSizeLong();
  if (size > maxSize || size > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return std::nullopt;
  }
  std::vector<std::uint8_t> out(size);
  if (!model.SerializeToArray(out.data(), static_cast<int>(size))) {
    return std::nullopt;
  }
  return out;
}

}  // namespace npu::fuzz
