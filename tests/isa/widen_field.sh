#!/bin/sh
# A scratch copy of the instruction table with CONV's kernel fields and LOAD's top padding widened
# (4 -> 5 bits, 15 -> 31; 6 -> 7 bits, 63 -> 127): the limits every check reads (partition,
# codegen, the hardware config check; isa/include/npu/isa/limits.h) must follow it, with nothing
# retyped anywhere. A probe translation unit is compiled against the scratch table first.
# usage: widen_field.sh CXX SOURCE_DIR
set -eu
cxx=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/include/npu/isa"
sed -e 's/^NPU_FIELD(Conv, kh, 188, 4, Unsigned, 1, 15,/NPU_FIELD(Conv, kh, 188, 5, Unsigned, 1, 31,/' \
    -e 's/^NPU_FIELD(Conv, kw, 192, 4, Unsigned, 1, 15,/NPU_FIELD(Conv, kw, 192, 5, Unsigned, 1, 31,/' \
    -e 's/^NPU_FIELD(Load, pad_top, 184, 6, Unsigned, 0, 63,/NPU_FIELD(Load, pad_top, 184, 7, Unsigned, 0, 127,/' \
    "$src/isa/include/npu/isa/instructions.def" > "$tmp/include/npu/isa/instructions.def"
if cmp -s "$src/isa/include/npu/isa/instructions.def" "$tmp/include/npu/isa/instructions.def"; then
  echo "widen_field.sh: the rows to widen were not found in instructions.def" >&2
  exit 1
fi
cat > "$tmp/probe.cpp" <<'CPP'
#include "npu/isa/limits.h"
namespace lim = npu::isa::limits;
static_assert(lim::kConvKernelH == 31 && lim::kConvKernelW == 31, "kernel limit follows the table");
static_assert(lim::convWindowFits(31, 31, 1, 1, 1, 1), "a 31x31 kernel now fits");
static_assert(!lim::convWindowFits(32, 1, 1, 1, 1, 1), "32 still does not");
static_assert(lim::kPadTop == 127 && lim::paddingFits(127, 0, 0, 0), "top padding follows");
static_assert(lim::kPadLeft == 63 && !lim::paddingFits(0, 64, 0, 0), "other sides unchanged");
int main() { return 0; }
CPP
"$cxx" -std=c++20 -fsyntax-only -I "$tmp/include" -I "$src/isa/include" -I "$src/support/include" \
  "$tmp/probe.cpp"
echo "widened table: every limit followed"
