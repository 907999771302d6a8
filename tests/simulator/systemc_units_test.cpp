// One SystemC unit alone: the load DMA unit bound to stub channels, a stub DDR port arbiter and
// the DDR memory model, with no fetch, compute, store or arbiter around it.
#include <gtest/gtest.h>

#include <systemc>

#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "npu/simulator/timing.h"
#include "sim_test_util.h"
#include "systemc/channels.h"
#include "systemc/ddr_memory.h"
#include "systemc/dma_unit.h"
#include "systemc/simulation_context.h"
#include "systemc/timed_context.h"

namespace npu::sim {
namespace {

/// A DDR port granted at once, logging every acquire and release with its cycle.
class StubDdrPort : public sc_core::sc_prim_channel, public DdrPortIf {
 public:
  StubDdrPort() : sc_core::sc_prim_channel("stub_ddr") {}
  bool acquire(Requester who) override {
    acquired.emplace_back(TimedContext::now(), who);
    return true;
  }
  void release() override { released.push_back(TimedContext::now()); }

  std::vector<std::pair<std::uint64_t, Requester>> acquired;
  std::vector<std::uint64_t> released;
};

/// Stands in for fetch and compute: dispatches instructions 0 and 1 at cycle 0 and closes the
/// queue, then hands the load unit a compute->load token at cycle `tokenCycle`.
class StubNeighbours : public sc_core::sc_module {
 public:
  sc_core::sc_port<CommandQueueIf> q_push;
  sc_core::sc_port<TokenQueueIf> tq_c2l;

  StubNeighbours(const sc_core::sc_module_name& name, std::uint64_t tokenCycle)
      : sc_core::sc_module(name), q_push("q_push"), tq_c2l("tq_c2l"), m_tokenCycle(tokenCycle) {
    SC_HAS_PROCESS(StubNeighbours);
    SC_THREAD(run);
  }

 private:
  void run() {
    q_push->push(0);
    q_push->push(1);
    q_push->close();
    sc_core::wait(cycles(m_tokenCycle));
    tq_c2l->put();
  }
  std::uint64_t m_tokenCycle;
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
    StubNeighbours neighbours("neighbours", kTokenCycle);
    DmaUnit load("load_dma", ctx, isa::Unit::Load);
    load.q_head.bind(queue);
    load.tokenPort(TokenQueue::ComputeToLoad).bind(c2l);
    load.tokenPort(TokenQueue::LoadToCompute).bind(l2c);
    load.ddr_port.bind(port);
    load.ddr.bind(memory.rd);
    neighbours.q_push.bind(queue);
    neighbours.tq_c2l.bind(c2l);
    EXPECT_FALSE(load.hasTokenPort(TokenQueue::ComputeToStore));
    sc_core::sc_start();

    EXPECT_FALSE(ctx.fault.has_value());
    EXPECT_TRUE(ctx.unitFinished[isa::unitIndex(isa::Unit::Load)]);
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

}  // namespace
}  // namespace npu::sim
