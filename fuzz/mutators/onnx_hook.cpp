// libFuzzer's custom mutator for the `onnx` target: ModelProto edits (onnx_mutator.h), byte
// mutations for the rest.
#include "libfuzzer_hook.h"
#include "onnx_mutator.h"

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t maxSize, unsigned int seed) {
  return npu::fuzz::mutateWithFallback(data, size, maxSize, seed, npu::fuzz::mutateOnnx);
}
