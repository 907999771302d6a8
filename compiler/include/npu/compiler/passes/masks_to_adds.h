// The masks-to-adds pass: masksToAdds().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Rewrites a Where that masks scores with a constant condition, Where(C, x, m) with m a scalar
/// constant at or below -1e30 (GPT-2's causal mask: the float minimum where a query may not see
/// a key), into Add(x, M) with the constant M = 0 where C holds and m elsewhere: x + m is m in
/// fp32 for any |x| below 1e30, so the results are identical, and the NPU adds a mask where it
/// has no Where (docs/numerics.md "Masked scores").
void masksToAdds(Graph& graph);

}  // namespace npu::compiler
