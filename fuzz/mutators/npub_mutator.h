// The structure-aware mutator of the `npub` and `npub_sealed` fuzz targets: edits the instruction
// words of a .npub container field by field, with the fields' offsets, widths and legal ranges
// read from the ISA table (isa/include/npu/isa/instructions.def).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace npu::fuzz {

/// Finds the code section of a .npub container (docs/program-format.md) and applies one to three
/// mutations chosen by `seed` to its 32-byte words: a field set to a boundary of its width or of
/// its legal range, to a random value or to the same field of another word; an opcode changed; a
/// reserved bit set; words swapped, duplicated, deleted, inserted or overwritten; END moved,
/// doubled or dropped. The section table, the file size in the header and the CRC-32 are brought
/// up to date, so what comes out is a well-formed container around the mutated words. Returns
/// nullopt when the bytes hold no code section that can be found, or when the result would
/// exceed `maxSize`. The same bytes and seed always give the same result.
std::optional<std::vector<std::uint8_t>> mutateNpub(std::span<const std::uint8_t> bytes,
                                                    std::uint32_t seed, std::size_t maxSize);

}  // namespace npu::fuzz
