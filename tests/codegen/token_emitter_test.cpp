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

TEST(TokenEmitter, ALoadAfterAStoreWaitsForTheEarliestComputeThatWaitedForIt) {
  TokenEmitter emitter;
  emitter.emit(storeOf(0, 0, 64), 0);  // 0: DDR [0, 64) from output SRAM [0, 64)
  // 1: overwrites output SRAM [0, 64): compute waits for the store.
  emitter.emit(copyOf(0, 0, 64), 1);
  // 2, 3: more compute, unrelated.
  emitter.emit(copyOf(256, 256, 64), 2);
  emitter.emit(copyOf(512, 512, 64), 3);
  // 4: reads what the store wrote. The copy at 1 had waited for the store: the load waits for
  // it, not for a SYNC behind 2 and 3.
  emitter.emit(loadOf(4096, 0, 64), 4);
  const std::vector<isa::Instruction> stream = emitter.finish();
  ASSERT_EQ(stream.size(), 6U);  // no SYNC, END
  EXPECT_EQ(flag(stream[1], isa::TokenFlag::PopNext), 1);
  EXPECT_EQ(flag(stream[1], isa::TokenFlag::PushPrev), 1);
  EXPECT_EQ(flag(stream[2], isa::TokenFlag::PushPrev), 0);
  EXPECT_EQ(flag(stream[3], isa::TokenFlag::PushPrev), 0);
  ASSERT_TRUE(std::holds_alternative<isa::Load>(stream[4]));
  EXPECT_EQ(flag(stream[4], isa::TokenFlag::PopNext), 1);
}

TEST(TokenEmitter, SettledStoresLetALaterLoadWaitForTheSettlingSync) {
  TokenEmitter emitter;
  emitter.emit(storeOf(0, 0, 64), 0);  // 0: DDR [0, 64)
  EXPECT_EQ(emitter.newestOf(isa::Unit::Store), 0);
  emitter.emit(copyOf(256, 256, 64), 1);  // 1: compute, unrelated
  emitter.settleStores(0, 2);             // 2: SYNC waiting for the store
  emitter.settleStores(0, 2);             // already settled: nothing
  emitter.emit(copyOf(512, 512, 64), 3);  // 3: compute, unrelated
  emitter.emit(loadOf(4096, 0, 64), 4);   // 4: waits for the SYNC at 2, not for a new one
  const std::vector<isa::Instruction> stream = emitter.finish();
  ASSERT_EQ(stream.size(), 6U);
  ASSERT_TRUE(std::holds_alternative<isa::Sync>(stream[2]));
  EXPECT_EQ(flag(stream[0], isa::TokenFlag::PushPrev), 1);
  EXPECT_EQ(flag(stream[2], isa::TokenFlag::PopNext), 1);
  EXPECT_EQ(flag(stream[2], isa::TokenFlag::PushPrev), 1);
  EXPECT_EQ(flag(stream[3], isa::TokenFlag::PushPrev), 0);
  ASSERT_TRUE(std::holds_alternative<isa::Load>(stream[4]));
  EXPECT_EQ(flag(stream[4], isa::TokenFlag::PopNext), 1);
}

TEST(TokenEmitter, NewestProducerIsTheNewestInstructionALoadWouldWaitFor) {
  TokenEmitter emitter;
  emitter.emit(loadOf(0, 0x1000, 64), 0);   // 0: input SRAM [0, 64) from DDR
  emitter.emit(copyOf(0, 0, 64), 1);        // 1: reads input SRAM [0, 64)
  emitter.emit(storeOf(0, 0x2000, 64), 2);  // 2: writes DDR [0x2000, 0x2040)
  // Nothing touched: ready at once.
  EXPECT_EQ(emitter.newestProducer(loadOf(4096, 0x3000, 64)), -1);
  // Reading DDR another LOAD read: no conflict either.
  EXPECT_EQ(emitter.newestProducer(loadOf(4096, 0x1000, 64)), -1);
  // Overwriting SRAM the copy read: the copy.
  EXPECT_EQ(emitter.newestProducer(loadOf(0, 0x3000, 64)), 1);
  // Reading what the store wrote into SRAM the copy read: the store, the newer of the two.
  EXPECT_EQ(emitter.newestProducer(loadOf(0, 0x2000, 64)), 2);
  // Asking emits nothing.
  EXPECT_EQ(emitter.finish().size(), 4U);
}

/// A 1x1 CONV reading input SRAM [in, in + 16) and writing output SRAM [out, out + 16).
isa::Conv convOf(std::int64_t in, std::int64_t out) {
  isa::Conv conv;
  conv.inp_addr = in;
  conv.out_addr = out;
  conv.out_h = conv.out_w = conv.in_w = 1;
  conv.in_c = conv.out_c = 16;
  conv.kh = conv.kw = conv.sh = conv.sw = conv.dh = conv.dw = 1;
  conv.acc_init = conv.finalize = 1;
  conv.clip_lo = -128;
  conv.clip_hi = 127;
  return conv;
}

/// An ELTWISE add asking to run beside the MAC side: input SRAM a, b -> input SRAM out.
isa::Eltwise besideOf(std::int64_t a, std::int64_t b, std::int64_t out) {
  isa::Eltwise eltwise;
  eltwise.a_addr = a;
  eltwise.b_addr = b;
  eltwise.out_addr = out;
  eltwise.out_buf = 1;
  eltwise.count = 16;
  eltwise.clip_lo = -128;
  eltwise.clip_hi = 127;
  eltwise.overlap = 1;
  return eltwise;
}

TEST(TokenEmitter, AnEltwiseKeepsOverlapOnlyWithoutAConflictBeside) {
  TokenEmitter emitter;
  emitter.emit(convOf(0, 0), 0);              // 0: reads input SRAM [0, 16)
  emitter.emit(besideOf(256, 512, 1024), 1);  // 1: disjoint: runs beside it
  emitter.emit(besideOf(256, 512, 0), 2);     // 2: writes what CONV 0 reads: must wait
  emitter.emit(convOf(1024, 64), 3);          // 3: waits for both sides anyway
  emitter.emit(besideOf(256, 512, 1024), 4);  // 4: writes what CONV 3 reads: must wait
  const std::vector<isa::Instruction> stream = emitter.finish();
  ASSERT_EQ(stream.size(), 6U);
  EXPECT_EQ(std::get<isa::Eltwise>(stream[1]).overlap, 1);
  EXPECT_EQ(std::get<isa::Eltwise>(stream[2]).overlap, 0);
  EXPECT_EQ(std::get<isa::Eltwise>(stream[4]).overlap, 0);
}

TEST(TokenEmitter, AnOverlappedEltwisesTokenComesFromTheNextInstructionThatWaitsForBoth) {
  TokenEmitter emitter;
  emitter.emit(convOf(0, 0), 0);             // 0
  emitter.emit(besideOf(256, 512, 768), 1);  // 1: beside CONV 0
  emitter.emit(convOf(768, 64), 2);          // 2: reads its result, waits for both sides
  // 3: the load overwrites what ELTWISE 1 read; CONV 2 (which ended after it) pushes the token.
  emitter.emit(loadOf(256, 0, 16), 3);
  // 5 (after a SYNC, 4): a store of ELTWISE 5's output; nothing after the ELTWISE waits for both
  // sides yet, so a SYNC does.
  emitter.emit(besideOf(256, 512, 1024), 4);
  const std::vector<isa::Instruction> withSync = [&] {
    isa::Eltwise toOutput = besideOf(1280, 1536, 2048);
    toOutput.out_buf = 0;
    emitter.emit(toOutput, 5);
    emitter.emit(storeOf(2048, 4096, 16), 6);
    return emitter.finish();
  }();
  ASSERT_TRUE(std::holds_alternative<isa::Eltwise>(withSync[1]));
  EXPECT_EQ(flag(withSync[1], isa::TokenFlag::PushPrev), 0);
  EXPECT_EQ(flag(withSync[2], isa::TokenFlag::PushPrev), 1);  // CONV 2 -> load
  ASSERT_TRUE(std::holds_alternative<isa::Load>(withSync[3]));
  EXPECT_EQ(flag(withSync[3], isa::TokenFlag::PopNext), 1);
  // ELTWISE 4, ELTWISE 5 (both overlapped, no pushes), the SYNC pushing to the store, the store.
  ASSERT_EQ(withSync.size(), 9U);
  EXPECT_EQ(std::get<isa::Eltwise>(withSync[5]).overlap, 1);
  EXPECT_EQ(flag(withSync[5], isa::TokenFlag::PushNext), 0);
  ASSERT_TRUE(std::holds_alternative<isa::Sync>(withSync[6]));
  EXPECT_EQ(flag(withSync[6], isa::TokenFlag::PushNext), 1);
  EXPECT_EQ(flag(withSync[7], isa::TokenFlag::PopPrev), 1);
  for (const isa::Instruction& instruction : withSync) {
    EXPECT_EQ(isa::validate(instruction), "") << isa::mnemonicOf(instruction);
  }
}

}  // namespace
}  // namespace npu::compiler
