// CPU time of the process, for speed figures.
#pragma once

namespace npu {

/// CPU seconds used by this process so far (all threads: SystemC may run its processes on
/// threads of its own); speed figures use it rather than wall time so that other load on the
/// machine does not skew them.
double cpuSeconds();

}  // namespace npu
