// Cross-check against PyTorch's quantized kernels: every case in tests/data/torch_vectors (written
// by scripts/gen_torch_vectors.py) through the golden int8 ops. PyTorch requantizes in float, so
// outputs may differ by 1 LSB; the test requires |diff| <= 1 everywhere and >= 99% exact, and
// prints the exact share per op.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "npu/golden/int8_ops.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::golden {
namespace {

const std::filesystem::path kVectorDir =
    std::filesystem::path(NPU_SOURCE_DIR) / "tests" / "data" / "torch_vectors";

enum class CaseOp : std::uint32_t { Conv = 0, Linear = 1, Add = 2, MaxPool = 3, AvgPool = 4 };

/// One vector file: see tests/data/torch_vectors/README.md.
struct VectorCase {
  CaseOp op = CaseOp::Conv;
  std::vector<std::int64_t> attrs;
  std::vector<double> floats;
  std::vector<Int8Tensor> int8Arrays;
  std::vector<std::vector<std::int32_t>> int32Arrays;
};

class Reader {
 public:
  Reader(std::vector<std::uint8_t> bytes, std::string name)
      : m_bytes(std::move(bytes)), m_name(std::move(name)) {}

  template <typename T>
  T read() {
    if (m_offset + sizeof(T) > m_bytes.size()) {
      fail("{}: truncated at byte {}", m_name, m_offset);
    }
    T value;
    std::memcpy(&value, m_bytes.data() + m_offset, sizeof(T));
    m_offset += sizeof(T);
    return value;
  }

  bool atEnd() const { return m_offset == m_bytes.size(); }

 private:
  std::vector<std::uint8_t> m_bytes;
  std::string m_name;
  std::size_t m_offset = 0;
};

VectorCase readCase(const std::filesystem::path& path) {
  Reader r(readBinaryFile(path), path.filename().string());
  if (r.read<std::uint32_t>() != 0x5654504EU || r.read<std::uint32_t>() != 1) {  // "NPTV", v1
    fail("{}: not a version-1 NPTV file", path.string());
  }
  VectorCase c;
  c.op = static_cast<CaseOp>(r.read<std::uint32_t>());
  c.attrs.resize(r.read<std::uint32_t>());
  for (auto& a : c.attrs) {
    a = r.read<std::int64_t>();
  }
  c.floats.resize(r.read<std::uint32_t>());
  for (auto& f : c.floats) {
    f = r.read<double>();
  }
  const std::uint32_t arrays = r.read<std::uint32_t>();
  for (std::uint32_t i = 0; i < arrays; ++i) {
    const auto dtype = r.read<std::uint8_t>();
    std::vector<std::int64_t> shape(r.read<std::uint8_t>());
    for (auto& d : shape) {
      d = r.read<std::int64_t>();
    }
    const std::int64_t count = elementCount(shape);
    if (dtype == 0) {
      Int8Tensor t = makeInt8Tensor(shape);
      for (auto& v : t.data) {
        v = r.read<std::int8_t>();
      }
      c.int8Arrays.push_back(std::move(t));
    } else {
      std::vector<std::int32_t> values(static_cast<std::size_t>(count));
      for (auto& v : values) {
        v = r.read<std::int32_t>();
      }
      c.int32Arrays.push_back(std::move(values));
    }
  }
  if (!r.atEnd()) {
    fail("{}: trailing bytes", path.string());
  }
  return c;
}

std::vector<float> weightScales(const VectorCase& c) {
  return {c.floats.begin() + 2, c.floats.end()};
}

/// Runs the golden op of a case; returns {golden output, PyTorch output}.
std::pair<Int8Tensor, Int8Tensor> runCase(const VectorCase& c) {
  const auto& a = c.attrs;
  switch (c.op) {
    case CaseOp::Conv: {
      Conv2dInt8Params p;
      p.strides = {a[0], a[1]};
      p.pads = {a[2], a[3], a[4], a[5]};
      p.dilations = {a[6], a[7]};
      p.groups = a[8];
      p.inputZeroPoint = static_cast<std::int32_t>(a[9]);
      const QuantParams out{static_cast<float>(c.floats[1]), static_cast<std::int32_t>(a[10])};
      p.output.zeroPoint = out.zeroPoint;
      const ClipRange clip =
          activationClipRange(a[11] != 0 ? FusedActivation::Relu : FusedActivation::None, out);
      p.output.clipLo = clip.lo;
      p.output.clipHi = clip.hi;
      p.bias = c.int32Arrays.at(0);
      p.multipliers = convMultipliers(static_cast<float>(c.floats[0]), weightScales(c), out.scale);
      return {conv2dInt8(c.int8Arrays.at(0), c.int8Arrays.at(1), p), c.int8Arrays.at(2)};
    }
    case CaseOp::Linear: {
      FullyConnectedInt8Params p;
      p.inputZeroPoint = static_cast<std::int32_t>(a[0]);
      const QuantParams out{static_cast<float>(c.floats[1]), static_cast<std::int32_t>(a[1])};
      p.output.zeroPoint = out.zeroPoint;
      const ClipRange clip =
          activationClipRange(a[2] != 0 ? FusedActivation::Relu : FusedActivation::None, out);
      p.output.clipLo = clip.lo;
      p.output.clipHi = clip.hi;
      p.bias = c.int32Arrays.at(0);
      p.multipliers = convMultipliers(static_cast<float>(c.floats[0]), weightScales(c), out.scale);
      return {fullyConnectedInt8(c.int8Arrays.at(0), c.int8Arrays.at(1), p), c.int8Arrays.at(2)};
    }
    case CaseOp::Add: {
      const QuantParams qa{static_cast<float>(c.floats[0]), static_cast<std::int32_t>(a[0])};
      const QuantParams qb{static_cast<float>(c.floats[1]), static_cast<std::int32_t>(a[1])};
      const QuantParams out{static_cast<float>(c.floats[2]), static_cast<std::int32_t>(a[2])};
      AddInt8Params p = makeAddParams(qa, qb, out);
      const ClipRange clip =
          activationClipRange(a[3] != 0 ? FusedActivation::Relu : FusedActivation::None, out);
      p.output.clipLo = clip.lo;
      p.output.clipHi = clip.hi;
      return {addInt8(c.int8Arrays.at(0), c.int8Arrays.at(1), p), c.int8Arrays.at(2)};
    }
    case CaseOp::MaxPool:
    case CaseOp::AvgPool: {
      PoolInt8Params p;
      p.kernel = {a[0], a[1]};
      p.strides = {a[2], a[3]};
      p.pads = {a[4], a[5], a[6], a[7]};
      const Int8Tensor& x = c.int8Arrays.at(0);
      Int8Tensor y = c.op == CaseOp::MaxPool
                         ? maxPoolInt8(x, p)
                         : averagePoolInt8(x, p, static_cast<std::int32_t>(a[8]));
      return {std::move(y), c.int8Arrays.at(1)};
    }
  }
  fail("unknown op {}", static_cast<std::uint32_t>(c.op));
}

struct Tally {
  std::int64_t cases = 0, outputs = 0, exact = 0;
  int maxDiff = 0;
};

TEST(TorchCrossCheck, GoldenMatchesPyTorchWithinOneLsb) {
  std::istringstream manifest(readTextFile(kVectorDir / "MANIFEST"));
  const char* names[] = {"conv", "linear", "add", "maxpool", "avgpool"};
  std::map<std::string, Tally> tallies;
  Tally total;
  std::string line;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    const VectorCase c = readCase(kVectorDir / line);
    const auto [golden, torch] = runCase(c);
    ASSERT_EQ(golden.shape, torch.shape) << line;
    Tally& t = tallies[names[static_cast<std::uint32_t>(c.op)]];
    ++t.cases;
    ++total.cases;
    for (std::size_t i = 0; i < golden.data.size(); ++i) {
      const int diff = std::abs(golden.data[i] - torch.data[i]);
      EXPECT_LE(diff, 1) << line << " output " << i << ": golden " << int{golden.data[i]}
                         << ", PyTorch " << int{torch.data[i]};
      for (Tally* each : {&t, &total}) {
        ++each->outputs;
        each->exact += diff == 0 ? 1 : 0;
        each->maxDiff = std::max(each->maxDiff, diff);
      }
    }
  }
  std::ostringstream report;
  for (const auto& [name, t] : tallies) {
    report << name << ": " << t.cases << " cases, " << t.exact << "/" << t.outputs
           << " exact, max diff " << t.maxDiff << "; ";
  }
  const double share = total.outputs == 0 ? 0.0 : double(total.exact) / double(total.outputs);
  report << "total " << total.cases << " cases, " << 100.0 * share << "% exact, max diff "
         << total.maxDiff;
  RecordProperty("report", report.str());
  std::cout << "[ torch    ] " << report.str() << "\n";
  EXPECT_GE(total.cases, 200);
  EXPECT_GE(share, 0.99);
}

}  // namespace
}  // namespace npu::golden
