// The engines a program runs on, under one name: the functional simulator, the SystemC cycle
// model and the Verilator RTL. `npu run`, `sim`, `opcheck`, `bench` and `cosim` all spell them
// this way; runOnEngine runs a program on any of them and returns what every engine leaves.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "npu/isa/ddr_image.h"
#include "npu/isa/program.h"
#include "npu/rtl/rtl_sim.h"
#include "npu/simulator/simulate.h"

namespace npu::runtime {

enum class Engine : std::uint8_t {
  Functional,  ///< the functional simulator: results only, no cycles
  Timed,       ///< the SystemC cycle model
  Rtl,         ///< the Verilator RTL (only the hardware config it was generated for)
};

/// "functional", "timed", "rtl".
std::string_view engineName(Engine engine);

/// The engine named `name`, or nullopt.
std::optional<Engine> parseEngine(std::string_view name);

/// Every engine name, comma separated, for error messages and help texts.
std::string engineNames();

/// The simulator options of a simulator engine (Functional or Timed), everything else default.
sim::SimOptions simOptionsFor(Engine engine);

struct EngineOptions {
  /// For Functional and Timed (the mode is set from the engine).
  sim::SimOptions sim;
  /// For Rtl.
  rtl::RtlOptions rtl;
};

/// What a run leaves, whichever engine ran it.
struct EngineRun {
  isa::DdrImage ddr{0};
  /// Cycles to END (0 on the functional engine, which counts none).
  std::uint64_t totalCycles = 0;
  /// Cycle at which each instruction finished (Timed and Rtl).
  std::vector<std::uint64_t> endCycles;
  /// What stopped the run early, prefixed with the engine's name; ddr then holds the state so
  /// far (the simulators) or the initial image (the RTL).
  std::optional<std::string> fault;
  /// Per-unit figures of the simulators (empty for the RTL).
  sim::SimStats stats;
  /// The timed simulator's spans, with EngineOptions::sim.collectTrace.
  std::vector<sim::TraceSpan> trace;
  /// CPU seconds the run took.
  double seconds = 0.0;
};

/// Runs `program` on `engine`. A program the engine rejects or faults on gives a run with a
/// fault; a program built for another hardware config than the RTL's throws npu::Error (the
/// question cannot be asked of that engine).
EngineRun runOnEngine(const isa::Program& program, Engine engine,
                      const EngineOptions& options = {});

}  // namespace npu::runtime
