// Text artefacts generated from the instruction table and the hardware config table.
#pragma once

#include <string>
#include <string_view>

#include "npu/isa/npu_config.h"

namespace npu::isa {

/// SystemVerilog package with opcode and field position constants (rtl/generated/npu_isa_pkg.sv).
std::string generateIsaSvPackage();

/// SystemVerilog package with one configuration's parameters (array shape, SRAM and DDR sizes).
std::string generateConfigSvPackage(const NpuConfig& config);

/// Markdown field tables for docs/isa.md, one table per opcode.
std::string generateIsaMarkdownTables();

/// The key table of docs/hardware-config.md: key, type, range, RTL parameter and meaning of every
/// row of npu_config.def.
std::string generateConfigMarkdownTable();

/// Markers that delimit the generated part of docs/isa.md.
inline constexpr std::string_view kDocTablesBegin = "<!-- BEGIN GENERATED FIELD TABLES -->";
inline constexpr std::string_view kDocTablesEnd = "<!-- END GENERATED FIELD TABLES -->";
/// Markers that delimit the generated part of docs/hardware-config.md.
inline constexpr std::string_view kConfigTableBegin = "<!-- BEGIN GENERATED CONFIG TABLE -->";
inline constexpr std::string_view kConfigTableEnd = "<!-- END GENERATED CONFIG TABLE -->";

/// Replaces the text between the markers of `document` with `tables`; throws npu::Error when a
/// marker is missing.
std::string spliceGeneratedTables(std::string_view document, std::string_view tables,
                                  std::string_view beginMarker = kDocTablesBegin,
                                  std::string_view endMarker = kDocTablesEnd);

}  // namespace npu::isa
