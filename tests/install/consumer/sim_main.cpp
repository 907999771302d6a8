// A consumer built with pkg-config alone (no CMake): assembles a program text and runs it on the
// timed simulator, printing the cycle count. Its `.hw` preset name is found through the data
// folder ($NPU_DATA_DIR, which the test points at pkg-config's datadir).
#include <cstdio>

#include "npu/isa/assembly.h"
#include "npu/simulator/simulate.h"
#include "npu/support/error.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: npu_sim_consumer PROGRAM.s\n");
    return 2;
  }
  try {
    const npu::isa::Program program = npu::isa::assembleFile(argv[1]);
    const npu::sim::SimResult result = npu::sim::simulate(program, npu::sim::SimOptions{});
    if (result.fault) {
      std::fprintf(stderr, "npu_sim_consumer: the program faulted\n");
      return 1;
    }
    std::printf("%llu\n", static_cast<unsigned long long>(result.stats.totalCycles));
    return 0;
  } catch (const npu::Error& e) {
    std::fprintf(stderr, "npu_sim_consumer: %s\n", e.what());
    return 3;
  }
}
