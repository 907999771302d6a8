// One SystemC unit alone, with stubs on its ports: the load DMA unit (stub channels, a stub DDR
// port arbiter and the DDR memory model), the compute unit (stub channels and stub engines) and
// the DDR port arbiter (stub requesters); and NpuTop embedded beside a DDR memory, its modules,
// channels and ports named as rtl/sv/npu_top.sv names them.
#include <gtest/gtest.h>

#include <systemc>

#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "npu/simulator/timing.h"
#include "sim_test_util.h"
#include "systemc/channels.h"
#include "systemc/compute_unit.h"
#include "systemc/ddr_memory.h"
#include "systemc/ddr_port.h"
#include "systemc/dma_unit.h"
#include "systemc/npu_top.h"
#include "systemc/simulation_context.h"
#include "systemc/timed_context.h"

namespace npu::sim {
namespace {

/// A DDR port granted at once, logging every acquire and release with its cycle.
class StubDdrPort : public sc_core::sc_prim_channel, public DdrPortIf {
 public:
  StubDdrPort() : sc_core::sc_prim_channel("stub_ddr") {}
  bool acquire(Requester who) override {
    acquired.emplace_back(currentCycle(), who);
    return true;
  }
  void release() override { released.push_back(currentCycle()); }

  std::vector<std::pair<std::uint64_t, Requester>> acquired;
  std::vector<std::uint64_t> released;
};

/// Stands in for a unit's neighbours: fetch dispatches instructions 0 and 1 at cycle 0 and closes
/// the queue; at cycle `tokenCycle` the neighbouring unit puts a token on `tq` (`Put`) or takes
/// one from it (`Take`).
class StubNeighbours : public sc_core::sc_module {
 public:
  enum class TokenAction { Put, Take };

  sc_core::sc_port<CommandQueueIf> q_push;
  sc_core::sc_port<TokenQueueIf> tq;

  StubNeighbours(const sc_core::sc_module_name& name, std::uint64_t tokenCycle, TokenAction action)
      : sc_core::sc_module(name),
        q_push("q_push"),
        tq("tq"),
        m_tokenCycle(tokenCycle),
        m_action(action) {
    SC_HAS_PROCESS(StubNeighbours);
    SC_THREAD(run);
  }

 private:
  void run() {
    q_push->push(0);
    q_push->push(1);
    q_push->close();
    sc_core::wait(cycles(m_tokenCycle));
    if (m_action == TokenAction::Put) {
      tq->put();
    } else {
      tq->take();
    }
  }
  std::uint64_t m_tokenCycle;
  TokenAction m_action;
};

TEST(SystemcUnits, LoadDmaRunsAloneAgainstStubs) {
  const isa::Program program = testing::assembleProgram(
      "LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16 push_next=1\n"
      "LOAD pop_next=1 push_next=1 sram_addr=0x10 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "END\n");
  const std::uint64_t d = instructionCycles(program.instructions[0], program.config);
  ASSERT_EQ(d, instructionCycles(program.instructions[1], program.config));
  constexpr std::uint64_t kTokenCycle = 500;
  ASSERT_GT(kTokenCycle, d);

  isa::DdrImage ddr = isa::DdrImage::fromProgram(program);
  std::vector<std::uint8_t> bytes(16);
  for (std::size_t b = 0; b < bytes.size(); ++b) {
    bytes[b] = static_cast<std::uint8_t>(b + 1);
  }
  ddr.write(0x1000, bytes);
  const SimOptions options;
  // The kernel runs on a thread of its own, as in runTimed.
  std::thread([&] {
    const SimulationContext simulationContext;
    TimedContext ctx(program.config, program.instructions, options);
    CommandQueue queue("q_load", 2);
    TokenQueueChannel c2l("tq_c2l", 1);
    TokenQueueChannel l2c("tq_l2c", 2);
    StubDdrPort port;
    DdrMemory memory("ddr", ddr);
    StubNeighbours neighbours("neighbours", kTokenCycle, StubNeighbours::TokenAction::Put);
    DmaUnit load("load_dma", ctx, isa::Unit::Load);
    load.q_head.bind(queue);
    load.tokenPort(TokenQueue::ComputeToLoad).bind(c2l);
    load.tokenPort(TokenQueue::LoadToCompute).bind(l2c);
    load.ddr_port.bind(port);
    load.ddr.bind(memory.rd);
    neighbours.q_push.bind(queue);
    neighbours.tq.bind(c2l);
    EXPECT_FALSE(load.hasTokenPort(TokenQueue::ComputeToStore));
    sc_core::sc_start();

    EXPECT_FALSE(ctx.fault.has_value());
    EXPECT_TRUE(load.finished());
    // Instruction 0 starts at once; instruction 1 waits for the token at kTokenCycle.
    using Acquire = std::pair<std::uint64_t, DdrPortIf::Requester>;
    EXPECT_EQ(port.acquired,
              (std::vector<Acquire>{{0, DdrPortIf::kLoad}, {kTokenCycle, DdrPortIf::kLoad}}));
    EXPECT_EQ(port.released, (std::vector<std::uint64_t>{d, kTokenCycle + d}));
    EXPECT_EQ(ctx.endCycles[0], d);
    EXPECT_EQ(ctx.endCycles[1], kTokenCycle + d);
    EXPECT_EQ(queue.size(), 0U);
    EXPECT_EQ(c2l.count(), 0U);
    EXPECT_EQ(l2c.count(), 2U);
    const UnitStats& stats = ctx.stats.units.at("load");
    EXPECT_EQ(stats.instructions, 2U);
    EXPECT_EQ(stats.busyCycles, 2 * d);
    EXPECT_EQ(stats.stallCycles.at("token_wait"), kTokenCycle - d);
    // The datapath ran: both loads copied the DDR bytes into the input SRAM.
    for (std::size_t b = 0; b < bytes.size(); ++b) {
      EXPECT_EQ(static_cast<std::uint8_t>(ctx.sram.input[b]), bytes[b]) << b;
      EXPECT_EQ(static_cast<std::uint8_t>(ctx.sram.input[0x10 + b]), bytes[b]) << b;
    }
  }).join();
}

/// An engine that logs every start and takes a fixed number of cycles.
class StubEngine : public sc_core::sc_prim_channel, public ComputeEngineIf {
 public:
  StubEngine(const char* name, std::uint64_t cycleCount)
      : sc_core::sc_prim_channel(name), m_cycles(cycleCount) {}
  bool run(std::size_t i) override {
    started.emplace_back(currentCycle(), i);
    sc_core::wait(cycles(m_cycles));
    return true;
  }
  std::vector<std::pair<std::uint64_t, std::size_t>> started;

 private:
  std::uint64_t m_cycles;
};

TEST(SystemcUnits, ComputeRunsAloneAgainstStubEngines) {
  const isa::Program program = testing::assembleProgram(
      "CONV pop_prev=1 push_next=1 out_h=4 out_w=4 in_w=4 in_c=8 out_c=8 kh=1 kw=1 sh=1 sw=1 dh=1 "
      "dw=1 in_zp=-1 clip_lo=-128 clip_hi=127 acc_init=1 finalize=1\n"
      "ELTWISE pop_prev=1 push_next=1 op=2 a_addr=0x10 lut_addr=0x100 count=64\n"
      "END\n");
  constexpr std::uint64_t kMacCycles = 10;
  constexpr std::uint64_t kVectorCycles = 20;
  constexpr std::uint64_t kTakeCycle = 100;
  const SimOptions options;
  std::thread([&] {
    const SimulationContext simulationContext;
    TimedContext ctx(program.config, program.instructions, options);
    CommandQueue queue("q_compute", 2);
    TokenQueueChannel l2c("tq_l2c", 2, 2);
    TokenQueueChannel c2l("tq_c2l", 2);
    TokenQueueChannel c2s("tq_c2s", 1);
    TokenQueueChannel s2c("tq_s2c", 2);
    StubEngine mac("mac_array", kMacCycles);
    StubEngine vector("vector", kVectorCycles);
    StubNeighbours neighbours("neighbours", kTakeCycle, StubNeighbours::TokenAction::Take);
    ComputeUnit compute("compute", ctx);
    compute.q_head.bind(queue);
    compute.tokenPort(TokenQueue::LoadToCompute).bind(l2c);
    compute.tokenPort(TokenQueue::ComputeToLoad).bind(c2l);
    compute.tokenPort(TokenQueue::ComputeToStore).bind(c2s);
    compute.tokenPort(TokenQueue::StoreToCompute).bind(s2c);
    compute.go_mac.bind(mac);
    compute.go_vector.bind(vector);
    neighbours.q_push.bind(queue);
    neighbours.tq.bind(c2s);
    sc_core::sc_start();

    EXPECT_FALSE(ctx.fault.has_value());
    EXPECT_TRUE(compute.finished());
    using Start = std::pair<std::uint64_t, std::size_t>;
    EXPECT_EQ(mac.started, (std::vector<Start>{{0, 0}}));
    EXPECT_EQ(vector.started, (std::vector<Start>{{kMacCycles, 1}}));
    EXPECT_EQ(ctx.endCycles[0], kMacCycles);
    EXPECT_EQ(ctx.endCycles[1], kMacCycles + kVectorCycles);
    // The ELTWISE's token waits for room in the full compute->store queue until the stub store
    // takes the CONV's token.
    const UnitStats& stats = ctx.stats.units.at("compute");
    EXPECT_EQ(stats.instructions, 2U);
    EXPECT_EQ(stats.busyCycles, kMacCycles + kVectorCycles);
    EXPECT_EQ(stats.stallCycles.at("token_full"), kTakeCycle - kMacCycles - kVectorCycles);
    EXPECT_EQ(l2c.count(), 0U);
    EXPECT_EQ(c2s.count(), 1U);
    EXPECT_EQ(c2l.count(), 0U);
  }).join();
}

/// A DMA unit's side of the DDR port: for each (request cycle, hold) in turn, requests the port at
/// that cycle (or when the previous hold ends, if later), logs the grant cycle, holds it.
class StubRequester : public sc_core::sc_module {
 public:
  sc_core::sc_port<DdrPortIf> ddr_port;

  StubRequester(const sc_core::sc_module_name& name, DdrPortIf::Requester who,
                std::vector<std::pair<std::uint64_t, std::uint64_t>> requests)
      : sc_core::sc_module(name),
        ddr_port("ddr_port"),
        m_who(who),
        m_requests(std::move(requests)) {
    SC_HAS_PROCESS(StubRequester);
    SC_THREAD(run);
  }
  std::vector<std::uint64_t> granted;

 private:
  void run() {
    for (const auto& [cycle, hold] : m_requests) {
      if (cycle > currentCycle()) {
        sc_core::wait(cycles(cycle - currentCycle()));
      }
      ASSERT_TRUE(ddr_port->acquire(m_who));
      granted.push_back(currentCycle());
      sc_core::wait(cycles(hold));
      ddr_port->release();
    }
  }
  DdrPortIf::Requester m_who;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> m_requests;
};

TEST(SystemcUnits, DdrPortServesRequestsInCycleOrderAndTheStoreWinsATie) {
  std::thread([&] {
    const SimulationContext simulationContext;
    DdrPort port("ddr_port");
    // Cycle 0: both ask and the store wins the tie. The older request wins otherwise, even
    // against the store.
    StubRequester load("load", DdrPortIf::kLoad, {{0, 7}, {20, 5}});
    StubRequester store("store", DdrPortIf::kStore, {{0, 10}, {10, 4}, {19, 1}});
    load.ddr_port.bind(port);
    store.ddr_port.bind(port);
    sc_core::sc_start();
    // store 0-10; load (asked at 0) beats store (asked at 10): 10-17; store 17-21; load (asked
    // at 20) beats store (asked at 21, after its hold): 21-26; store 26-27.
    EXPECT_EQ(store.granted, (std::vector<std::uint64_t>{0, 17, 26}));
    EXPECT_EQ(load.granted, (std::vector<std::uint64_t>{10, 21}));
    EXPECT_EQ(port.owner(), -1);
    port.shutdown();
    sc_core::sc_start();
  }).join();
}

TEST(SystemcUnits, NpuTopEmbedsBesideATlmMemory) {
  const isa::Program program = testing::assembleProgram(
      "LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "STORE ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=16\n"
      "END\n");
  isa::DdrImage ddr = isa::DdrImage::fromProgram(program);
  ASSERT_NE(ddr.readRange(0x2000, 16), std::vector<std::uint8_t>(16, 0));
  const SimOptions options;
  std::thread([&] {
    const SimulationContext simulationContext;
    TimedContext ctx(program.config, program.instructions, options);
    DdrMemory memory("ddr", ddr);
    NpuTop top("npu", ctx);
    top.rd.bind(memory.rd);
    top.wr.bind(memory.wr);
    for (const char* name : {"npu.fetch",
                             "npu.fetch.q_push_0",
                             "npu.load_dma",
                             "npu.load_dma.q_head",
                             "npu.load_dma.tq_c2l",
                             "npu.load_dma.tq_l2c",
                             "npu.load_dma.ddr_port",
                             "npu.compute",
                             "npu.compute.go_mac",
                             "npu.compute.go_vector",
                             "npu.compute.tq_s2c",
                             "npu.mac_array",
                             "npu.vector",
                             "npu.store_dma",
                             "npu.store_dma.tq_c2s",
                             "npu.ddr_port",
                             "npu.q_load",
                             "npu.q_compute",
                             "npu.q_store",
                             "npu.tq_l2c",
                             "npu.tq_c2l",
                             "npu.tq_c2s",
                             "npu.tq_s2c",
                             "npu.rd",
                             "npu.wr",
                             "ddr.rd",
                             "ddr.wr"}) {
      EXPECT_NE(sc_core::sc_find_object(name), nullptr) << name;
    }
    EXPECT_EQ(sc_core::sc_find_object("npu.load_dma.tq_c2s"), nullptr);
    sc_core::sc_start();
    EXPECT_TRUE(top.finished());
    EXPECT_FALSE(ctx.fault.has_value());
    ctx.stop();
    sc_core::sc_start();
  }).join();
  // The STORE reached the memory through npu.wr: the output SRAM's zeros replaced the fill
  // pattern.
  EXPECT_EQ(ddr.readRange(0x2000, 16), std::vector<std::uint8_t>(16, 0));
}

}  // namespace
}  // namespace npu::sim
