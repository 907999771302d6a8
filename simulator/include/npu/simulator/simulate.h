// Running a program: options, statistics, trace and the two engines (functional and timed).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "npu/isa/ddr_image.h"
#include "npu/isa/program.h"
#include "npu/simulator/sim_fault.h"
#include "npu/support/provenance.h"

namespace npu::sim {

enum class SimMode : std::uint8_t { Functional, Timed };

struct SimOptions {
  SimMode mode = SimMode::Timed;
  /// Watchdog: a timed run still going after this many cycles stops with a watchdog fault;
  /// 0 derives it from the program (cycleBudget in timing.h).
  std::uint64_t maxCycles = 0;
  /// Check that tokens order every conflicting access (a compiler bug otherwise).
  bool checkHazards = true;
  /// Debug switch: no overlap between units (each instruction waits for the previous one).
  bool forceSerial = false;
  /// Debug switch: timing only, no datapath (the final DDR is the initial one).
  bool countOnly = false;
  /// Record trace spans (timed mode): one per instruction on its unit, one per dispatched word on
  /// fetch, and each CONV again on mac_array, each ELTWISE, POOL and NORM on vector.
  bool collectTrace = false;
  /// Host threads a large CONV's datapath may use (output rows split between them). Results,
  /// cycles and stats are identical for every value; 1 keeps the simulator single-threaded,
  /// which is what callers running several simulations in parallel want.
  unsigned datapathThreads = 1;
};

/// Busy and stall cycles of one unit; stalls by reason ("token_wait", "ddr_port", ...).
struct UnitStats {
  std::uint64_t instructions = 0;
  std::uint64_t busyCycles = 0;
  std::map<std::string, std::uint64_t> stallCycles;
};

struct SimStats {
  std::string mode;
  std::uint64_t totalCycles = 0;
  std::map<std::string, UnitStats> units;  // fetch, load, compute, mac_array, vector, store
  std::uint64_t macs = 0;
  /// macs / (totalCycles * rows * cols); 0 in functional mode.
  double macUtilization = 0.0;
  std::uint64_t ddrBytesRead = 0;
  std::uint64_t ddrBytesWritten = 0;
  /// Bytes the DDR port moved in whole bursts for those reads and writes (docs/timing.md): the
  /// requested bytes over this is the DDR access efficiency.
  std::uint64_t ddrBurstBytes = 0;
  std::map<std::string, std::uint64_t> opcodeCounts;
};

/// One instruction on one unit's track, in cycles: its execution, or on fetch its dispatch.
struct TraceSpan {
  std::string unit;
  std::size_t instruction = 0;
  std::string name;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
};

struct SimResult {
  isa::DdrImage ddr{0};
  SimStats stats;
  std::vector<TraceSpan> trace;
  /// Set when the run stopped on a fault; ddr and stats then hold the state so far.
  std::optional<SimFault> fault;
  /// Cycle at which each instruction finished (timed mode), for co-simulation diffs.
  std::vector<std::uint64_t> endCycles;
};

/// Runs a program from its initial DDR image.
SimResult simulate(const isa::Program& program, const SimOptions& options);

/// Runs whatever the DDR holds at `codeAddress`: fetch decodes words until END (an illegal word
/// is an illegal-word fault naming its index).
SimResult simulate(const isa::NpuConfig& config, isa::DdrImage ddr, std::uint64_t codeAddress,
                   const SimOptions& options);

/// The schema version of the stats JSON (its "schema_version"), raised when a key changes meaning
/// or goes away.
inline constexpr int kStatsSchemaVersion = 1;

/// Stats as JSON text (docs/timing.md lists the keys), stamped with `provenance` (an empty one
/// gives an empty "provenance" object).
std::string statsToJson(const SimStats& stats, const std::optional<SimFault>& fault,
                        const Provenance& provenance);

/// Version of the trace JSON's layout, in its "otherData" with the provenance.
inline constexpr int kTraceSchemaVersion = 1;

/// Chrome/Perfetto trace-event JSON: one track per unit (fetch, load, compute, mac_array, vector,
/// store), one complete event per span, timestamps in cycles shown as microseconds; the schema
/// version and `provenance` in the format's metadata object, "otherData".
std::string traceToJson(const std::vector<TraceSpan>& trace, const Provenance& provenance);

/// VCD of one busy signal per unit (the same six), high while a span of that unit runs; time
/// stamps strictly increase and the last is `totalCycles`.
std::string traceToVcd(const std::vector<TraceSpan>& trace, std::uint64_t totalCycles);

}  // namespace npu::sim
