// TensorProto decoding: little-endian raw bytes, typed fields, and external data files.
#include "onnx_tensor.h"

#include <onnx/onnx_pb.h>

#include <bit>
#include <charconv>
#include <cstring>
#include <fstream>

#include "npu/support/error.h"

namespace npu::compiler {
namespace {

static_assert(std::endian::native == std::endian::little, "raw_data is little-endian");

constexpr int kDouble = 11;

std::size_t elementBytes(int code) {
  switch (code) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::INT32:
      return 4;
    case onnx::TensorProto::INT64:
    case kDouble:
      return 8;
    default:
      return 1;
  }
}

template <typename T>
std::vector<T> fromBytes(const std::string& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) {  // memcpy wants non-null pointers even for 0 bytes
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  }
  return values;
}

TensorData fromRaw(int code, DType dtype, const std::string& bytes) {
  switch (code) {
    case onnx::TensorProto::FLOAT:
      return TensorData(fromBytes<float>(bytes));
    case kDouble: {
      std::vector<double> wide = fromBytes<double>(bytes);
      return TensorData(std::vector<float>(wide.begin(), wide.end()));
    }
    case onnx::TensorProto::INT64:
      return TensorData(fromBytes<std::int64_t>(bytes));
    case onnx::TensorProto::INT32:
      return TensorData(fromBytes<std::int32_t>(bytes));
    case onnx::TensorProto::INT8:
      return TensorData(fromBytes<std::int8_t>(bytes));
    default:
      return TensorData(fromBytes<std::uint8_t>(bytes), dtype);
  }
}

/// The typed repeated field that holds the elements when raw_data is absent.
TensorData fromFields(const onnx::TensorProto& t, DType dtype) {
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      return TensorData(std::vector<float>(t.float_data().begin(), t.float_data().end()));
    case kDouble:
      return TensorData(std::vector<float>(t.double_data().begin(), t.double_data().end()));
    case onnx::TensorProto::INT64:
      return TensorData(std::vector<std::int64_t>(t.int64_data().begin(), t.int64_data().end()));
    case onnx::TensorProto::INT32:
      return TensorData(std::vector<std::int32_t>(t.int32_data().begin(), t.int32_data().end()));
    case onnx::TensorProto::INT8:
      return TensorData(std::vector<std::int8_t>(t.int32_data().begin(), t.int32_data().end()));
    default:
      return TensorData(std::vector<std::uint8_t>(t.int32_data().begin(), t.int32_data().end()),
                        dtype);
  }
}

std::int64_t parseCount(const std::string& text, const std::string& what, const char* key) {
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) {
    fail("{}: external data {} '{}' is not a byte count", what, key, text);
  }
  return value;
}

std::string readExternal(const onnx::TensorProto& t, const std::filesystem::path& baseDir,
                         const std::string& what) {
  std::string location;
  std::int64_t offset = 0;
  std::int64_t length = -1;
  for (const auto& entry : t.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset") {
      offset = parseCount(entry.value(), what, "offset");
    } else if (entry.key() == "length") {
      length = parseCount(entry.value(), what, "length");
    }
  }
  if (location.empty()) {
    fail("{}: external data without a location", what);
  }
  std::filesystem::path relative(location);
  if (relative.is_absolute() || relative.lexically_normal().string().starts_with("..")) {
    fail("{}: external data location '{}' is outside the model's folder", what, location);
  }
  std::filesystem::path file = baseDir / relative;
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    fail("{}: cannot open external data file '{}'", what, file.string());
  }
  in.seekg(0, std::ios::end);
  auto size = static_cast<std::int64_t>(in.tellg());
  if (length < 0) {
    length = size - offset;
  }
  if (offset < 0 || offset + length > size) {
    fail("{}: external data file '{}' has {} bytes, the tensor needs bytes [{}, {})", what,
         file.string(), size, offset, offset + length);
  }
  std::string bytes(static_cast<std::size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  if (!in) {
    fail("{}: read error in external data file '{}'", what, file.string());
  }
  return bytes;
}

}  // namespace

OnnxTensor decodeTensor(const onnx::TensorProto& t, const std::filesystem::path& baseDir,
                        const std::string& what) {
  OnnxTensor out;
  std::optional<DType> dtype =
      t.data_type() == kDouble ? DType::Float32 : dtypeFromOnnx(t.data_type());
  if (!dtype) {
    fail("{}: ONNX data type {} is not supported (float, double, int64, int32, int8, uint8, bool)",
         what, t.data_type());
  }
  out.dtype = *dtype;
  out.shape.assign(t.dims().begin(), t.dims().end());
  // Within the per-tensor limit, each dimension too (an empty [0, 2^62] included), so sizes
  // never overflow and a corrupt file fails here.
  const std::int64_t count = boundedElementCount(out.shape, what);
  bool external = t.data_location() == onnx::TensorProto::EXTERNAL;
  if (external || t.has_raw_data()) {
    std::string bytes = external ? readExternal(t, baseDir, what) : t.raw_data();
    std::size_t needed = static_cast<std::size_t>(count) * elementBytes(t.data_type());
    if (bytes.size() != needed) {
      fail("{}: {} data has {} bytes, shape {} of {} needs {}", what, external ? "external" : "raw",
           bytes.size(), formatShape(out.shape), dtypeName(out.dtype), needed);
    }
    out.data = fromRaw(t.data_type(), out.dtype, bytes);
  } else {
    out.data = fromFields(t, out.dtype);
    if (out.data.size() != count) {
      fail("{}: has {} values, shape {} needs {}", what, out.data.size(), formatShape(out.shape),
           count);
    }
  }
  return out;
}

}  // namespace npu::compiler
