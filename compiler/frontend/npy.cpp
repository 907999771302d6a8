// .npy reading and writing (format version 1.0-3.0, little-endian, C order).
#include "npu/compiler/frontend/npy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cstring>
#include <regex>

#include "npu/compiler/ir/types.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::compiler {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

template <typename T>
std::vector<T> elements(const std::uint8_t* bytes, std::size_t count) {
  std::vector<T> values(count);
  if (count > 0) {  // memcpy wants non-null pointers even for 0 bytes
    std::memcpy(values.data(), bytes, count * sizeof(T));
  }
  return values;
}

}  // namespace

Tensor readNpy(const std::filesystem::path& path) {
  return parseNpy(readBinaryFile(path), path.string());
}

Tensor parseNpy(std::span<const std::uint8_t> bytes, std::string_view source) {
  const std::string file(source);
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0) {
    fail("{}: not a .npy file (bad magic)", file);
  }
  std::size_t headerLength = 0;
  std::size_t headerStart = 0;
  if (bytes[6] == 1) {
    headerLength = bytes[8] | (bytes[9] << 8);
    headerStart = 10;
  } else if (bytes[6] == 2 || bytes[6] == 3) {
    if (bytes.size() < 12) {
      fail("{}: truncated .npy header", file);
    }
    headerLength = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) |
                   (static_cast<std::size_t>(bytes[11]) << 24);
    headerStart = 12;
  } else {
    fail("{}: .npy format version {} is not supported", file, bytes[6]);
  }
  if (headerStart + headerLength > bytes.size()) {
    fail("{}: truncated .npy header", file);
  }
  std::string header(bytes.begin() + static_cast<std::ptrdiff_t>(headerStart),
                     bytes.begin() + static_cast<std::ptrdiff_t>(headerStart + headerLength));
  std::smatch descr;
  std::smatch order;
  std::smatch shapeMatch;
  if (!std::regex_search(header, descr, std::regex("'descr':\\s*'([^']*)'")) ||
      !std::regex_search(header, order, std::regex("'fortran_order':\\s*(True|False)")) ||
      !std::regex_search(header, shapeMatch, std::regex("'shape':\\s*\\(([^)]*)\\)"))) {
    fail("{}: malformed .npy header", file);
  }
  if (order[1] == "True") {
    fail("{}: Fortran-ordered arrays are not supported", file);
  }
  Shape shape;
  std::string dims = shapeMatch[1];
  std::regex number("\\d+");
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), number);
       it != std::sregex_iterator(); ++it) {
    // Digits only, but as many as the file likes: parsed without throwing and bounded per
    // dimension (the element count is checked below).
    const std::string text = it->str();
    std::int64_t dim = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), dim);
    if (ec != std::errc() || end != text.data() + text.size() || dim > kMaxTensorElements) {
      fail("{}: shape dimension {}{} is above the limit of {} elements per tensor", file,
           text.substr(0, 20), text.size() > 20 ? "..." : "", kMaxTensorElements);
    }
    shape.push_back(dim);
  }
  const std::int64_t total = elementCount(shape);
  if (total > kMaxTensorElements) {  // also keeps count * width below from wrapping
    fail("{}: shape {} holds {} elements, above the limit of {} per tensor", file,
         formatShape(shape), total, kMaxTensorElements);
  }
  auto count = static_cast<std::size_t>(total);
  std::string dtype = descr[1];
  std::size_t width = dtype == "<f4" || dtype == "<i4"   ? 4
                      : dtype == "<f8" || dtype == "<i8" ? 8
                                                         : 0;
  if (width == 0) {
    fail("{}: dtype '{}' is not supported (<f4, <f8, <i4, <i8)", file, dtype);
  }
  std::size_t dataStart = headerStart + headerLength;
  if (bytes.size() - dataStart != count * width) {
    fail("{}: holds {} data bytes, shape {} of {} needs {}", file, bytes.size() - dataStart,
         formatShape(shape), dtype, count * width);
  }
  const std::uint8_t* data = bytes.data() + dataStart;
  if (dtype == "<f4") {
    return {shape, TensorData(elements<float>(data, count))};
  }
  if (dtype == "<f8") {
    std::vector<double> wide = elements<double>(data, count);
    return {shape, TensorData(std::vector<float>(wide.begin(), wide.end()))};
  }
  if (dtype == "<i8") {
    return {shape, TensorData(elements<std::int64_t>(data, count))};
  }
  return {shape, TensorData(elements<std::int32_t>(data, count))};
}

void writeNpy(const std::filesystem::path& path, const Tensor& tensor) {
  std::string descr;
  const void* data = nullptr;
  std::size_t bytes = 0;
  switch (tensor.data.dtype()) {
    case DType::Float32:
      descr = "<f4";
      data = tensor.data.floats().data();
      bytes = tensor.data.floats().size_bytes();
      break;
    case DType::Int64:
      descr = "<i8";
      data = tensor.data.int64s().data();
      bytes = tensor.data.int64s().size_bytes();
      break;
    case DType::Int32:
      descr = "<i4";
      data = tensor.data.int32s().data();
      bytes = tensor.data.int32s().size_bytes();
      break;
    case DType::Int8:
      descr = "|i1";
      data = tensor.data.int8s().data();
      bytes = tensor.data.int8s().size_bytes();
      break;
    default:
      fail("{}: cannot write {} data as .npy", path.string(), dtypeName(tensor.data.dtype()));
  }
  std::string dims = fmt::format("{}", fmt::join(tensor.shape, ", "));
  if (tensor.shape.size() == 1) {
    dims += ",";
  }
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, dims);
  // Pad so the data starts on a 64-byte boundary, newline-terminated.
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::vector<std::uint8_t> out(kMagic, kMagic + 6);
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<std::uint8_t>(header.size() & 0xff));
  out.push_back(static_cast<std::uint8_t>(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  const auto* raw = static_cast<const std::uint8_t*>(data);
  out.insert(out.end(), raw, raw + bytes);
  writeBinaryFile(path, out);
}

}  // namespace npu::compiler
