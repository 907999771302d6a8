// The Verilator harness: clocks npu_top and plays the DDR behind its instruction port and its
// data port with the timing rules of docs/rtl.md (latency L-1 cycles from request to response,
// one instruction word and one W-byte data beat per cycle), recording when each instruction ends.
#include "npu/rtl/rtl_sim.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <deque>
#include <memory>
#include <type_traits>

#include "Vnpu_top.h"
#include "npu/isa/instruction.h"
#include "npu/support/error.h"
#include "verilated.h"
#include "verilated_fst_c.h"

namespace npu::rtl {
namespace {

using u64 = std::uint64_t;

/// npu_top's end-trace channels (npu_rtl_pkg's SLOTS): load, compute's MAC side, store, and
/// compute's vector side.
constexpr unsigned kEndSlots = 4;

/// The number of 32-bit words of a Verilator wide signal.
template <typename Wide>
struct WideWords;
template <std::size_t N>
struct WideWords<VlWide<N>> {
  static constexpr std::size_t value = N;
};
// trace_end_idx packs one 32-bit instruction index per slot.
static_assert(WideWords<std::remove_cvref_t<decltype(Vnpu_top::trace_end_idx)>>::value == kEndSlots,
              "kEndSlots must match npu_top's SLOTS (the words of trace_end_idx)");

/// A read burst on its way back: `len` bytes from `address`, first beat at cycle `readyAt`.
struct ReadBurst {
  u64 readyAt = 0;
  u64 address = 0;
  u64 len = 0;
  u64 sent = 0;
};

/// Copies `n` bytes into a Verilator wide signal (32-bit words, least significant first).
template <typename Wide>
void packBytes(Wide& wide, const std::uint8_t* bytes, std::size_t n, std::size_t words) {
  for (std::size_t w = 0; w < words; ++w) {
    std::uint32_t value = 0;
    for (std::size_t b = 0; b < 4; ++b) {
      const std::size_t i = 4 * w + b;
      value |= static_cast<std::uint32_t>(i < n ? bytes[i] : 0) << (8 * b);
    }
    wide[w] = value;
  }
}

template <typename Wide>
std::uint8_t byteOf(const Wide& wide, std::size_t i) {
  return static_cast<std::uint8_t>(wide[i / 4] >> (8 * (i % 4)));
}

/// The DDR behind both ports, and the bookkeeping of one run.
class DdrModel {
 public:
  DdrModel(isa::DdrImage& ddr, const isa::NpuConfig& config)
      : m_ddr(ddr),
        m_width(static_cast<u64>(config.ddrBytesPerCycle)),
        m_burst(static_cast<u64>(config.ddrBurstBytes)),
        m_delay(static_cast<u64>(config.ddrLatencyCycles) - 1) {}

  /// Drives the inputs of cycle `t` from requests made up to cycle t.
  void driveInputs(Vnpu_top& top, u64 t) {
    std::array<std::uint8_t, isa::kWordBytes> word{};
    top.if_valid = m_fetching && t >= m_fetchReadyAt ? 1 : 0;
    if (top.if_valid != 0) {
      const u64 address = m_fetchAddress + m_fetched * isa::kWordBytes;
      if (address + isa::kWordBytes <= m_ddr.size()) {
        m_ddr.read(address, word);
      }
    }
    packBytes(top.if_data, word.data(), word.size(), isa::kWordBytes / 4);

    std::vector<std::uint8_t> beat(m_width, 0);
    top.rd_valid = !m_reads.empty() && m_reads.front().readyAt <= t ? 1 : 0;
    if (top.rd_valid != 0) {
      // The whole burst occupies the bus: beats past the requested bytes carry none.
      const ReadBurst& burst = m_reads.front();
      const u64 n = burst.sent < burst.len ? std::min(m_width, burst.len - burst.sent) : 0;
      checkRange(burst.address + burst.sent, n, "read");
      m_ddr.read(burst.address + burst.sent, std::span(beat.data(), n));
    }
    packBytes(top.rd_data, beat.data(), beat.size(), (m_width + 3) / 4);
    top.rd_req_ready = 1;
    top.wr_ready = 1;
    top.wr_ack = !m_acks.empty() && m_acks.front() <= t ? 1 : 0;
  }

  /// Takes the requests of cycle `t`; returns true when one of them is answered in cycle t
  /// itself (latency 1), so the inputs must be driven again.
  bool takeRequests(const Vnpu_top& top, u64 t) {
    bool now = false;
    if (top.if_req_valid != 0 && !m_fetching) {
      m_fetching = true;
      m_fetchAddress = top.if_req_addr;
      m_fetchReadyAt = t + m_delay;
      now = now || m_delay == 0;
    }
    if (top.rd_req_valid != 0 && !m_readTaken) {
      if (top.rd_req_len == 0 || top.rd_req_addr % m_burst + top.rd_req_len > m_burst) {
        fail(
            "RTL protocol error at cycle {}: read request of {} bytes at 0x{:x} is not inside "
            "one aligned {}-byte burst",
            t, top.rd_req_len, top.rd_req_addr, m_burst);
      }
      m_reads.push_back({t + m_delay, top.rd_req_addr, top.rd_req_len, 0});
      m_readTaken = true;
      now = now || (m_delay == 0 && m_reads.size() == 1);
    }
    if (top.wr_valid != 0 && !m_writeTaken) {
      const u64 n = top.wr_bytes;
      if (n > m_width) {
        fail("RTL protocol error at cycle {}: write beat of {} bytes (width {})", t, n, m_width);
      }
      checkRange(top.wr_addr, n, "write");
      for (u64 i = 0; i < n; ++i) {
        m_ddr.writeByte(top.wr_addr + i, byteOf(top.wr_data, i));
      }
      if (top.wr_last != 0) {
        m_acks.push_back(t + m_delay);
        now = now || (m_delay == 0 && m_acks.size() == 1);
      }
      m_writeTaken = true;
    }
    return now;
  }

  /// The handshakes of cycle `t` complete at its clock edge.
  void clockEdge(const Vnpu_top& top) {
    if (top.if_valid != 0 && top.if_ready != 0) {
      ++m_fetched;
    }
    if (top.rd_valid != 0) {
      ReadBurst& burst = m_reads.front();
      burst.sent += m_width;
      if (burst.sent >= m_burst) {
        m_reads.pop_front();
      }
    }
    if (top.wr_ack != 0) {
      m_acks.pop_front();
    }
    m_readTaken = false;
    m_writeTaken = false;
  }

 private:
  /// A masked beat (n == 0) moves nothing, whatever its address.
  void checkRange(u64 address, u64 n, const char* what) const {
    if (n > 0 && address + n > m_ddr.size()) {
      fail("RTL DDR {} of {} bytes at 0x{:x} is outside the {}-byte DDR", what, n, address,
           m_ddr.size());
    }
  }

  isa::DdrImage& m_ddr;
  u64 m_width;
  u64 m_burst;
  u64 m_delay;
  bool m_fetching = false;
  u64 m_fetchAddress = 0;
  u64 m_fetchReadyAt = 0;
  u64 m_fetched = 0;
  std::deque<ReadBurst> m_reads;
  std::deque<u64> m_acks;
  bool m_readTaken = false;
  bool m_writeTaken = false;
};

/// The RTL's compute control relies on an overlapped ELTWISE pushing no token (at most one
/// compute side pushes a given token queue in a cycle; docs/timing.md). isa::validate rejects
/// such an instruction, but runRtl takes any isa::Program, not only validated ones.
void checkOverlappedPushes(const isa::Program& program) {
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    const auto* eltwise = std::get_if<isa::Eltwise>(&program.instructions[i]);
    if (eltwise != nullptr && eltwise->overlap != 0 &&
        (eltwise->push_prev != 0 || eltwise->push_next != 0)) {
      fail(
          "RTL: instruction {} (ELTWISE with overlap = 1) pushes a token (push_prev = {}, "
          "push_next = {}); an overlapped ELTWISE pushes none",
          i, eltwise->push_prev, eltwise->push_next);
    }
  }
}

bool sameHardware(const isa::NpuConfig& a, const isa::NpuConfig& b) {
  isa::NpuConfig named = b;
  named.name = a.name;
  return a == named;
}

}  // namespace

void checkRtlHardware(const isa::NpuConfig& target) {
  const isa::NpuConfig& config = rtlConfig();
  if (!sameHardware(config, target)) {
    fail(ErrorKind::Unsupported,
         "the program targets hardware config '{}', but the RTL model was built for '{}'",
         target.name, config.name);
  }
}

RtlResult runRtl(const isa::Program& program, const RtlOptions& options) {
  const isa::NpuConfig& config = rtlConfig();
  checkRtlHardware(program.config);
  checkOverlappedPushes(program);
  RtlResult result;
  result.ddr = isa::DdrImage::fromProgram(program);
  result.endCycles.assign(program.instructions.size(), 0);
  DdrModel ddr(result.ddr, config);

  const auto context = std::make_unique<VerilatedContext>();
  context->traceEverOn(!options.waveform.empty());
  const auto top = std::make_unique<Vnpu_top>(context.get(), "npu");
  std::unique_ptr<VerilatedFstC> wave;
  if (!options.waveform.empty()) {
    wave = std::make_unique<VerilatedFstC>();
    top->trace(wave.get(), 99);
    wave->open(options.waveform.c_str());
  }
  u64 time = 0;
  auto evalAndDump = [&] {
    top->eval();
    if (wave) {
      wave->dump(time);
    }
    ++time;
  };

  // Reset, then cycle 0 is the first cycle with rst low.
  top->code_addr = static_cast<std::uint32_t>(program.codeAddress);
  top->rst = 1;
  for (int i = 0; i < 2; ++i) {
    top->clk = 0;
    evalAndDump();
    top->clk = 1;
    evalAndDump();
  }
  top->rst = 0;

  const double started = cpuSeconds();
  u64 t = 0;
  for (;; ++t) {
    if (t >= options.maxCycles) {
      fail("RTL watchdog: still running after {} cycles", options.maxCycles);
    }
    top->clk = 0;
    ddr.driveInputs(*top, t);
    top->eval();
    if (ddr.takeRequests(*top, t)) {
      ddr.driveInputs(*top, t);
      top->eval();
    }
    if (wave) {
      wave->dump(time);
    }
    ++time;
    if (top->illegal != 0) {
      fail("RTL fetch: illegal opcode in instruction {}", top->trace_fetch_idx);
    }
    // One end channel per execution slot: load, compute's MAC side, store, compute's vector side
    // (an overlapped ELTWISE may end in the same cycle as a CONV).
    for (unsigned slot = 0; slot < kEndSlots; ++slot) {
      if ((top->trace_end_valid >> slot) & 1U) {
        const u64 index = top->trace_end_idx[slot];
        if (index < result.endCycles.size()) {
          result.endCycles[index] = t;
        }
      }
    }
    if (top->trace_fetch_end != 0 && top->trace_fetch_idx < result.endCycles.size()) {
      result.endCycles[top->trace_fetch_idx] = t;
    }
    if (top->done != 0) {
      break;
    }
    ddr.clockEdge(*top);
    top->clk = 1;
    evalAndDump();
  }
  result.seconds = cpuSeconds() - started;
  top->final();
  if (wave) {
    wave->close();
  }
  for (const u64 end : result.endCycles) {
    result.totalCycles = std::max(result.totalCycles, end);
  }
  return result;
}

}  // namespace npu::rtl
