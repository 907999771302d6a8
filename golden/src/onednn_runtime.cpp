// The oneDNN engine, single-threaded execution and the int8 ISA check of the golden ops.
#include "onednn_runtime.h"

#include <omp.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace npu::golden::onednn {
namespace {

/// One of the calling thread's buffers, grown on demand.
struct Buffer {
  std::unique_ptr<std::byte[]> data;
  std::size_t bytes = 0;

  void* reserve(std::size_t wanted) {
    if (wanted > bytes) {
      // 64-byte alignment; new[] of std::byte gives 16, so over-allocate.
      data = std::make_unique<std::byte[]>(wanted + 64);
      bytes = wanted;
    }
    const auto address = reinterpret_cast<std::uintptr_t>(data.get());
    return data.get() + ((64 - address % 64) % 64);
  }
};

}  // namespace

OneThread::OneThread() : m_saved(omp_get_max_threads()) {
  omp_set_num_threads(1);
}

OneThread::~OneThread() {
  omp_set_num_threads(m_saved);
}

const dnnl::engine& cpuEngine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

void* threadBuffer(int slot, std::size_t bytes) {
  thread_local std::array<Buffer, kThreadBufferSlots> buffers;
  return buffers.at(static_cast<std::size_t>(slot)).reserve(bytes);
}

dnnl::primitive_attr primitiveAttributes() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void execute(const dnnl::primitive& primitive, std::unordered_map<int, dnnl::memory> args,
             std::size_t scratchpadBytes) {
  const OneThread oneThread;
  if (scratchpadBytes > 0) {
    const dnnl::memory::desc desc({static_cast<dnnl::memory::dim>(scratchpadBytes)},
                                  dnnl::memory::data_type::u8, dnnl::memory::format_tag::a);
    args.emplace(DNNL_ARG_SCRATCHPAD,
                 dnnl::memory(desc, cpuEngine(), threadBuffer(0, scratchpadBytes)));
  }
  dnnl::stream stream(cpuEngine());
  primitive.execute(stream, args);
  stream.wait();
}

void reorder(const dnnl::memory& from, const dnnl::memory& to) {
  const dnnl::reorder::primitive_desc pd(from, to, primitiveAttributes());
  execute(dnnl::reorder(pd), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}},
          pd.scratchpad_desc().get_size());
}

bool int8DotProductsAreExact() {
  using dnnl::cpu_isa;
  switch (dnnl::get_effective_cpu_isa()) {
    case cpu_isa::avx512_core_vnni:
    case cpu_isa::avx512_core_bf16:
    case cpu_isa::avx512_core_amx:
    case cpu_isa::avx2_vnni:
      return true;
    default:
      return false;
  }
}

}  // namespace npu::golden::onednn
