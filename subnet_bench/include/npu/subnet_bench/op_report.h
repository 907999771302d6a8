// The report files of an `npu opcheck` sweep (opcheck.json, opcheck.md, junit.xml), and the
// merge of a sharded sweep's folders into the files one run of the whole sweep writes.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "npu/subnet_bench/op_sweep.h"

namespace npu::bench {

/// Written into a report folder when a sweep starts and removed once its reports are written.
inline constexpr std::string_view kOpcheckPartialMarker = "opcheck.partial";

/// The schema version of opcheck.json ("schema_version"; 2: "format" became "schema_version",
/// "provenance" came).
inline constexpr int kOpcheckSchemaVersion = 2;

/// opcheck.json of a sweep (or of one shard of it): the run (op, seed, count, shard, hardware,
/// engine, injected bug, field limits, tools), counts and lowering paths per op kind, the
/// unsupported reasons, and every failure with its shrunk repro.
std::string opcheckJson(const SweepReport& report, const SweepOptions& options);

/// Writes opcheck.md, junit.xml and opcheck.json into `dir`, all rendered from `json` (what
/// opcheckJson or mergeOpcheckOutputs returned), so a merge writes exactly what one run would.
void writeOpcheckReports(const std::filesystem::path& dir, const std::string& json);

/// "opcheck all on npu-s (functional): 3000 cases, 2990 pass, 0 fail, 10 unsupported; ...".
std::string opcheckSummaryLine(const std::string& json);

/// The report of a sweep whose shards wrote `dirs` (their --report folders), as opcheck.json
/// text: counts added up, failures in case order, the shards listed. Throws Error, one line naming
/// the culprit, for a folder that is empty, unfinished or holds no readable opcheck.json, shards
/// of different sweeps (op, seed, count, hardware, engine, injected bug, field limits, repro
/// limit, tools), a shard given twice, and (unless `allowPartial`, which the report then states)
/// missing shards.
std::string mergeOpcheckOutputs(const std::vector<std::filesystem::path>& dirs, bool allowPartial);

/// Whether a report's JSON is a pass (no failed case, no missing shard).
bool opcheckPassed(const std::string& json);

}  // namespace npu::bench
