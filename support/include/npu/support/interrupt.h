// SIGINT and SIGTERM as a request to stop cleanly: long loops (bench subnets, opcheck cases, run
// inputs, export segments) poll for it, write what finished marked interrupted, remove their
// temporary files, and the CLI exits 128 + the signal (130, 143). A second signal ends the
// process at once (docs/reliability.md, "Interrupts").
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

}  // namespace npu
