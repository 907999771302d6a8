#!/usr/bin/env bash
# Synthesizes the MAC array datapath and the post-processing pipeline (rtl/synth/
# npu_mac_pp_synth.sv) with yosys at ROWSxCOLS (default 16x16) and prints the cell statistics.
# Usage: scripts/rtl-synth.sh [ROWS COLS]
set -euo pipefail
cd "$(dirname "$0")/.."
rows="${1:-16}"; cols="${2:-16}"
yosys -q -l /dev/stdout -p "
  read_verilog -sv rtl/sv/npu_mac_cells.sv rtl/sv/npu_requant.sv rtl/sv/npu_pp_lane.sv
  read_verilog -sv rtl/synth/npu_mac_pp_synth.sv
  chparam -set R $rows -set C $cols npu_mac_pp_synth
  synth -top npu_mac_pp_synth -flatten
  tee -o /dev/stdout stat
" | sed -n '/Printing statistics/,$p'
