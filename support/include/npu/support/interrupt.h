// SIGINT and SIGTERM as a request to stop cleanly: long loops (bench subnets, opcheck cases, run
// inputs, calibration samples, export segments) open an InterruptibleScope and poll for it, write
// what finished marked interrupted, remove their temporary files, and the CLI exits 128 + the
// signal (130, 143). Outside such a scope (an import, a compile) a signal has its default effect
// at once, as does a second signal anywhere (docs/reliability.md, "Interrupts").
#pragma once

#include <string>

namespace npu {

/// Installs the SIGINT/SIGTERM handlers (the CLI does, once, before running a command).
void installInterruptHandlers();

/// The signal that asked to stop (SIGINT or SIGTERM), or 0.
int pendingInterrupt();

/// "SIGINT", "SIGTERM" (or "signal N") for the pending interrupt; "" when there is none.
std::string pendingInterruptName();

/// Throws an Error of kind Interrupted ("interrupted by SIGINT") when a stop was asked for.
void throwIfInterrupted();

/// For tests: asks to stop as `signal` would, or clears the request (0).
void setPendingInterrupt(int signal);

/// While one exists, SIGINT and SIGTERM only ask to stop (the code in it polls
/// pendingInterrupt() or throwIfInterrupted()); with none, they end the process as by default.
class InterruptibleScope {
 public:
  InterruptibleScope();
  ~InterruptibleScope();
  InterruptibleScope(const InterruptibleScope&) = delete;
  InterruptibleScope& operator=(const InterruptibleScope&) = delete;
  InterruptibleScope(InterruptibleScope&&) = delete;
  InterruptibleScope& operator=(InterruptibleScope&&) = delete;
};

}  // namespace npu
