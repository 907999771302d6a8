// The three engines behind one interface.
#include "npu/runtime/engine.h"

#include <fmt/format.h>

#include <array>

#include "npu/support/error.h"

namespace npu::runtime {
namespace {

constexpr std::array<std::string_view, 3> kEngineNames{"functional", "timed", "rtl"};

}  // namespace

std::string_view engineName(Engine engine) {
  return kEngineNames.at(static_cast<std::size_t>(engine));
}

std::optional<Engine> parseEngine(std::string_view name) {
  for (std::size_t i = 0; i < kEngineNames.size(); ++i) {
    if (kEngineNames[i] == name) {
      return static_cast<Engine>(i);
    }
  }
  return std::nullopt;
}

std::string engineNames() {
  return fmt::format("{}", fmt::join(kEngineNames, ", "));
}

sim::SimOptions simOptionsFor(Engine engine) {
  if (engine == Engine::Rtl) {
    fail(ErrorKind::Usage, "the RTL is not a simulator mode (use runOnEngine)");
  }
  sim::SimOptions options;
  options.mode = engine == Engine::Timed ? sim::SimMode::Timed : sim::SimMode::Functional;
  return options;
}

EngineRun runOnEngine(const isa::Program& program, Engine engine, const EngineOptions& options) {
  EngineRun run;
  if (engine == Engine::Rtl) {
    rtl::checkRtlHardware(program.config);
    try {
      rtl::RtlResult result = rtl::runRtl(program, options.rtl);
      run.ddr = std::move(result.ddr);
      run.totalCycles = result.totalCycles;
      run.endCycles = std::move(result.endCycles);
      run.seconds = result.seconds;
    } catch (const Error& e) {
      run.ddr = isa::DdrImage::fromProgram(program);
      run.fault = fmt::format("rtl: {}", e.what());
    }
    return run;
  }
  sim::SimOptions simOptions = options.sim;
  simOptions.mode = simOptionsFor(engine).mode;
  const double started = cpuSeconds();
  sim::SimResult result = sim::simulate(program, simOptions);
  run.seconds = cpuSeconds() - started;
  run.ddr = std::move(result.ddr);
  run.totalCycles = result.stats.totalCycles;
  run.endCycles = std::move(result.endCycles);
  run.stats = std::move(result.stats);
  run.trace = std::move(result.trace);
  if (result.fault) {
    run.fault = fmt::format("{}: {}", engineName(engine), result.fault->what());
  }
  return run;
}

}  // namespace npu::runtime
