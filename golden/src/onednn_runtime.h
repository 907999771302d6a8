// What the golden ops share to run oneDNN primitives: the CPU engine, execution on the calling
// thread alone, and whether oneDNN's int8 kernels multiply u8 x s8 without int16 saturation.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <initializer_list>
#include <unordered_map>

namespace npu::golden::onednn {

/// Holds the calling thread's OpenMP team, which oneDNN's parallel loops use (also when it creates
/// or zero-pads a memory object), to one thread for its lifetime. Every golden call into oneDNN
/// runs under one: the results then do not depend on the number of cores, callers may run inputs
/// on several threads, and no idle OpenMP worker spins on the other cores.
class OneThread {
 public:
  OneThread();
  ~OneThread();
  OneThread(const OneThread&) = delete;
  OneThread& operator=(const OneThread&) = delete;

 private:
  int m_saved;
};

/// oneDNN dimensions from ours.
inline dnnl::memory::dims dimsOf(std::initializer_list<std::int64_t> values) {
  return dnnl::memory::dims(values.begin(), values.end());
}

/// The process-wide oneDNN CPU engine.
const dnnl::engine& cpuEngine();

/// Primitive attributes every golden primitive is created with: a caller-provided scratchpad, so
/// one primitive can run on several threads at once.
dnnl::primitive_attr primitiveAttributes();

/// Runs `primitive` on the calling thread only (under OneThread), with a scratchpad of
/// `scratchpadBytes` owned by the calling thread.
void execute(const dnnl::primitive& primitive, std::unordered_map<int, dnnl::memory> args,
             std::size_t scratchpadBytes);

/// A buffer of the calling thread, at least `bytes` long and 64-byte aligned, reused across calls
/// (so large per-call buffers do not fault in fresh pages every time). One per `slot` in
/// [0, kThreadBufferSlots); valid until the next call for the same slot on the same thread.
/// Slot 0 is execute()'s scratchpad.
inline constexpr int kThreadBufferSlots = 5;
void* threadBuffer(int slot, std::size_t bytes);

/// Copies `from` into `to` (same dims, any layouts) on the calling thread.
void reorder(const dnnl::memory& from, const dnnl::memory& to);

/// True when oneDNN's int8 kernels on this CPU use VNNI dot products (AVX512-VNNI, AVX-VNNI,
/// AMX): every u8 x s8 product reaches the int32 accumulator exactly. Without VNNI they pair
/// products in int16 (vpmaddubsw), which saturates unless |weight| <= 64.
bool int8DotProductsAreExact();

}  // namespace npu::golden::onednn
