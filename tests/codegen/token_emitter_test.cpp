// TokenEmitter: a dependency already ordered through a chain of tokens gets no token of its own.
#include "npu/compiler/codegen/token_emitter.h"

#include <gtest/gtest.h>

#include <variant>

namespace npu::compiler {
namespace {

isa::Store storeOf(std::int64_t sram, std::int64_t ddr, std::int64_t bytes) {
  isa::Store store;
  store.sram_addr = sram;
  store.ddr_addr = ddr;
  store.y_size = 1;
  store.x_size = 1;
  store.c_bytes = bytes;
  store.ddr_row_stride = bytes;
  store.ddr_col_stride = bytes;
  return store;
}

isa::Load loadOf(std::int64_t sram, std::int64_t ddr, std::int64_t bytes) {
  isa::Load load;
  load.buf = 0;
  load.sram_addr = sram;
  load.ddr_addr = ddr;
  load.y_size = 1;
  load.x_size = 1;
  load.c_bytes = bytes;
  load.ddr_row_stride = bytes;
  load.ddr_col_stride = bytes;
  return load;
}

/// A 1x1 max POOL copying `bytes` from input SRAM `in` to output SRAM `out`.
isa::Pool copyOf(std::int64_t in, std::int64_t out, std::int64_t bytes) {
  isa::Pool pool;
  pool.in_addr = in;
  pool.out_addr = out;
  pool.in_w = 1;
  pool.out_h = 1;
  pool.out_w = 1;
  pool.channels = bytes;
  pool.kh = pool.kw = pool.sh = pool.sw = 1;
  return pool;
}

std::int64_t flag(const isa::Instruction& instruction, isa::TokenFlag f) {
  return isa::tokenFlag(instruction, f);
}

TEST(TokenEmitter, ADependencyOrderedThroughAChainNeedsNoSync) {
  TokenEmitter emitter;
  // 0: the store writes DDR [0, 64) from output SRAM [0, 64).
  emitter.emit(storeOf(0, 0, 64), 0);
  // 1: the copy overwrites output SRAM [0, 64) (after the store read it) from input SRAM
  // [0, 64): compute waits for the store.
  emitter.emit(copyOf(0, 0, 64), 1);
  // 2: the load overwrites input SRAM [0, 64) (after the copy read it) with DDR [0, 64) (after
  // the store wrote it). Waiting for the copy covers the store: the copy had waited for it.
  emitter.emit(loadOf(0, 0, 64), 2);
  const std::vector<isa::Instruction> stream = emitter.finish();
  ASSERT_EQ(stream.size(), 4U);  // no SYNC, END
  EXPECT_TRUE(std::holds_alternative<isa::Pool>(stream[1]));
  EXPECT_EQ(flag(stream[0], isa::TokenFlag::PushPrev), 1);  // store -> compute
  EXPECT_EQ(flag(stream[1], isa::TokenFlag::PopNext), 1);
  EXPECT_EQ(flag(stream[1], isa::TokenFlag::PushPrev), 1);  // compute -> load
  ASSERT_TRUE(std::holds_alternative<isa::Load>(stream[2]));
  EXPECT_EQ(flag(stream[2], isa::TokenFlag::PopNext), 1);
}

TEST(TokenEmitter, ALoadAfterAStoreWithoutAChainWaitsThroughASync) {
  TokenEmitter emitter;
  emitter.emit(storeOf(0, 0, 64), 0);
  // The load reads what the store wrote; nothing orders them yet, so a SYNC on compute does.
  emitter.emit(loadOf(4096, 0, 64), 1);
  const std::vector<isa::Instruction> stream = emitter.finish();
  ASSERT_EQ(stream.size(), 4U);  // store, SYNC, load, END
  ASSERT_TRUE(std::holds_alternative<isa::Sync>(stream[1]));
  EXPECT_EQ(flag(stream[1], isa::TokenFlag::PopNext), 1);
  EXPECT_EQ(flag(stream[1], isa::TokenFlag::PushPrev), 1);
  EXPECT_EQ(flag(stream[2], isa::TokenFlag::PopNext), 1);
}

}  // namespace
}  // namespace npu::compiler
