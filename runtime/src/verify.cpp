// Expected DDR from golden values, and the first mismatch located by layer, tensor, NHWC
// coordinate and the instruction that last wrote the byte.
#include "npu/runtime/verify.h"

#include <fmt/format.h>

#include "npu/isa/footprint.h"

namespace npu::runtime {

isa::DdrImage expectedDdr(const compiler::CompiledProgram& compiled,
                          const compiler::QuantizedGraph& graph,
                          const std::vector<golden::Int8Tensor>& values) {
  isa::DdrImage image = isa::DdrImage::fromProgram(compiled.program);
  for (const compiler::QOp& op : graph.ops) {
    const compiler::TensorId out = compiler::opOutput(op);
    if (!compiled.tensors[out].ownsDdr()) {
      // A cascade kept it in SRAM (its DDR space keeps what was there before), or its producer
      // stored it into a concat's output, whose value holds its bytes.
      continue;
    }
    const auto& data = values[out].data;
    image.write(compiled.tensors[out].address,
                std::span(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()));
  }
  return image;
}

std::optional<Mismatch> verifyDdr(const compiler::CompiledProgram& compiled,
                                  const compiler::QuantizedGraph& graph,
                                  const isa::DdrImage& expected, const isa::DdrImage& actual) {
  const std::optional<std::uint64_t> first = expected.firstDifference(actual);
  if (!first) {
    return std::nullopt;
  }
  Mismatch m;
  m.address = *first;
  m.expected = expected.readByte(*first);
  m.actual = actual.readByte(*first);
  // The tensor whose value belongs there: the last op (in order) writing that address.
  for (const compiler::QOp& op : graph.ops) {
    const compiler::TensorId out = compiler::opOutput(op);
    const compiler::TensorPlacement& place = compiled.tensors[out];
    if (place.ownsDdr() && m.address >= place.address && m.address < place.address + place.bytes) {
      const auto& shape = graph.tensors[out].shape;
      std::int64_t offset = static_cast<std::int64_t>(m.address - place.address);
      m.tensor = graph.tensors[out].name;
      m.layer = compiler::opName(op);
      m.nhwc[3] = offset % shape[3];
      offset /= shape[3];
      m.nhwc[2] = offset % shape[2];
      offset /= shape[2];
      m.nhwc[1] = offset % shape[1];
      m.nhwc[0] = offset / shape[1];
    }
  }
  if (m.tensor.empty()) {
    for (const compiler::TensorId id : graph.inputs) {
      const compiler::TensorPlacement& place = compiled.tensors[id];
      if (m.address >= place.address && m.address < place.address + place.bytes) {
        m.tensor = graph.tensors[id].name;
        m.layer = "(graph input)";
      }
    }
  }
  const auto& stream = compiled.program.instructions;
  for (std::size_t i = stream.size(); i-- > 0 && m.instruction < 0;) {
    for (const isa::Access& access : isa::footprint(stream[i])) {
      if (access.space != isa::MemorySpace::Ddr || !access.write) {
        continue;
      }
      access.forEachRun([&](std::uint64_t start, std::uint64_t length) {
        if (m.address >= start && m.address < start + length) {
          m.instruction = static_cast<std::int64_t>(i);
        }
      });
    }
  }
  std::string where =
      m.tensor.empty() ? std::string("outside every tensor")
                       : fmt::format("layer '{}', tensor '{}' at (n,h,w,c) = ({},{},{},{})",
                                     m.layer, m.tensor, m.nhwc[0], m.nhwc[1], m.nhwc[2], m.nhwc[3]);
  std::string writer = "no instruction wrote it";
  if (m.instruction >= 0) {
    const std::int64_t op = compiled.instructionOp[static_cast<std::size_t>(m.instruction)];
    writer = fmt::format(
        "last written by instruction {} ({}{})", m.instruction,
        isa::mnemonicOf(stream[static_cast<std::size_t>(m.instruction)]),
        op >= 0 ? ", layer '" + compiler::opName(graph.ops[static_cast<std::size_t>(op)]) + "'"
                : "");
  }
  m.message = fmt::format("DDR mismatch at 0x{:x}: expected 0x{:02x}, got 0x{:02x}; {}; {}",
                          m.address, m.expected, m.actual, where, writer);
  return m;
}

}  // namespace npu::runtime
