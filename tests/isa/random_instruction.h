// Random legal instructions for round-trip tests: every field drawn over its whole table range,
// with extremes favoured, then adjusted to satisfy the rules that span fields.
#pragma once

#include <algorithm>
#include <random>

#include "npu/isa/instruction.h"

namespace npu::isa::testing {

inline std::int64_t drawField(const FieldInfo& field, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pick(0, 9);
  const int choice = pick(rng);
  if (choice == 0) {
    return field.lowest;
  }
  if (choice == 1) {
    return field.highest;
  }
  std::uniform_int_distribution<std::int64_t> value(field.lowest, field.highest);
  return value(rng);
}

inline std::int64_t drawBetween(std::int64_t lowest, std::int64_t highest, std::mt19937_64& rng) {
  return std::uniform_int_distribution<std::int64_t>(lowest, highest)(rng);
}

/// A random legal instruction of `opcode`.
inline Instruction randomInstruction(Opcode opcode, std::mt19937_64& rng) {
  const OpcodeInfo info = *findOpcode(static_cast<unsigned>(opcode));
  std::vector<std::int64_t> values;
  for (const FieldInfo& field : info.fields) {
    values.push_back(drawField(field, rng));
  }
  Instruction instruction = makeInstruction(opcode, values);
  if (auto* sync = std::get_if<Sync>(&instruction)) {
    if (sync->unit == 0) {
      sync->pop_prev = sync->push_prev = 0;
    } else if (sync->unit == 2) {
      sync->pop_next = sync->push_next = 0;
    }
  } else if (auto* load = std::get_if<Load>(&instruction)) {
    // Strided SRAM rows: unpadded, and at least a row apart (dense when a row is too long).
    const std::int64_t row = load->x_size * load->c_bytes;
    if (row > fieldMax<&Load::sram_row_stride>()) {
      load->sram_row_stride = 0;
    } else if (load->sram_row_stride != 0) {
      load->pad_top = load->pad_bottom = load->pad_left = load->pad_right = 0;
      load->sram_row_stride = std::max(load->sram_row_stride, row);
    }
  } else if (auto* conv = std::get_if<Conv>(&instruction)) {
    if (conv->wgt_kn != 0) {
      conv->kh = conv->kw = 1;
      conv->depthwise = 0;
    }
    if (conv->depthwise != 0) {
      conv->out_c = conv->in_c;
    }
    if (conv->finalize == 0) {
      conv->out_gap = 0;
    }
    if (conv->clip_lo > conv->clip_hi) {
      std::swap(conv->clip_lo, conv->clip_hi);
    }
    const std::int64_t window = (conv->kw - 1) * conv->dw + 1;
    conv->out_w = drawBetween(1, (4095 - window) / conv->sw + 1, rng);
    conv->in_w = drawBetween((conv->out_w - 1) * conv->sw + window, 4095, rng);
  } else if (auto* eltwise = std::get_if<Eltwise>(&instruction)) {
    if (eltwise->clip_lo > eltwise->clip_hi) {
      std::swap(eltwise->clip_lo, eltwise->clip_hi);
    }
    if (eltwise->overlap != 0) {
      eltwise->push_prev = eltwise->push_next = 0;
    }
  } else if (auto* norm = std::get_if<Norm>(&instruction)) {
    if (norm->clip_lo > norm->clip_hi) {
      std::swap(norm->clip_lo, norm->clip_hi);
    }
  } else if (auto* pool = std::get_if<Pool>(&instruction)) {
    pool->out_w = drawBetween(1, (4095 - pool->kw) / pool->sw + 1, rng);
    pool->in_w = drawBetween((pool->out_w - 1) * pool->sw + pool->kw, 4095, rng);
  }
  return instruction;
}

/// A random legal instruction of any opcode.
inline Instruction randomInstruction(std::mt19937_64& rng) {
  const auto table = opcodeTable();
  const auto index = drawBetween(0, static_cast<std::int64_t>(table.size()) - 1, rng);
  return randomInstruction(table[static_cast<std::size_t>(index)].opcode, rng);
}

}  // namespace npu::isa::testing
