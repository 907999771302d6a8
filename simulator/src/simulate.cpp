// Entry points: fetch the stream, analyse tokens and hazards, then run the chosen engine. Faults
// come back inside the result so callers still get the DDR and stats so far.
#include "npu/simulator/simulate.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine_common.h"
#include "npu/isa/encoding.h"
#include "npu/simulator/timing.h"
#include "verified_streams.h"

namespace npu::sim {

std::vector<isa::Instruction> fetchStream(std::uint64_t ddrBytes, std::uint64_t codeAddress,
                                          const WordReader& read) {
  std::vector<isa::Instruction> stream;
  for (std::uint64_t address = codeAddress;; address += isa::kWordBytes) {
    const std::size_t index = stream.size();
    if (address + isa::kWordBytes > ddrBytes) {
      throw SimFault(FaultKind::DdrOutOfRange, static_cast<std::int64_t>(index),
                     fmt::format("ddr-out-of-range fault at instruction {} (fetch unit): fetch "
                                 "reached the end of DDR at 0x{:x} without an END",
                                 index, address));
    }
    isa::InstructionWord word{};
    read(address, word);
    try {
      stream.push_back(isa::decode(word, index));
    } catch (const Error& e) {
      throw SimFault(
          FaultKind::IllegalWord, static_cast<std::int64_t>(index),
          fmt::format("illegal-word fault at instruction {} (fetch unit, DDR 0x{:x}): {}", index,
                      address, e.what()));
    }
    if (std::holds_alternative<isa::End>(stream.back())) {
      return stream;
    }
  }
}

std::vector<isa::Instruction> fetchStream(const isa::DdrImage& ddr, std::uint64_t codeAddress) {
  return fetchStream(
      ddr.size(), codeAddress,
      [&ddr](std::uint64_t address, std::span<std::uint8_t> out) { ddr.read(address, out); });
}

void checkBeforeTimedRun(const std::vector<isa::Instruction>& stream, const isa::NpuConfig& config,
                         const SimOptions& options) {
  checkStream(stream, config, options.checkHazards);
}

void countInstruction(const isa::Instruction& instruction, const isa::NpuConfig& config,
                      SimStats& stats) {
  ++stats.opcodeCounts[std::string(isa::mnemonicOf(instruction))];
  stats.macs += macCount(instruction);
  const DdrTraffic traffic = ddrTraffic(instruction, config);
  stats.ddrBytesRead += traffic.bytesRead;
  stats.ddrBytesWritten += traffic.bytesWritten;
  stats.ddrBurstBytes += traffic.burstBytes;
}

SimResult simulate(const isa::NpuConfig& config, isa::DdrImage ddr, std::uint64_t codeAddress,
                   const SimOptions& options) {
  std::vector<isa::Instruction> stream;
  try {
    stream = fetchStream(ddr, codeAddress);
  } catch (const SimFault& fault) {
    SimResult result;
    result.ddr = std::move(ddr);
    result.stats.mode = options.mode == SimMode::Timed ? "timed" : "functional";
    result.fault = fault;
    return result;
  }
  if (options.mode == SimMode::Functional) {
    return runFunctional(config, std::move(ddr), stream, options);
  }
  return runTimed(config, std::move(ddr), stream, options);
}

SimResult simulate(const isa::Program& program, const SimOptions& options) {
  return simulate(program.config, isa::DdrImage::fromProgram(program), program.codeAddress,
                  options);
}

}  // namespace npu::sim
