// libFuzzer's custom mutator for the `npub` and `npub_sealed` targets: instruction-word edits
// (npub_mutator.h), byte mutations for the rest (header, config, manifest, DDR segments).
#include "libfuzzer_hook.h"
#include "npub_mutator.h"

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t maxSize, unsigned int seed) {
  return npu::fuzz::mutateWithFallback(data, size, maxSize, seed, npu::fuzz::mutateNpub);
}
