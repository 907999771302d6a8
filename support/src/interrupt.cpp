// The interrupt flag: set by the signal handler (async-signal-safe: one atomic store, or the
// default action on a second signal), read by the loops that poll it.
#include "npu/support/interrupt.h"

#include <fmt/format.h>

#include <atomic>
#include <csignal>

#include "npu/support/error.h"

namespace npu {
namespace {

std::atomic<int> g_pending{0};
std::atomic<int> g_scopes{0};  // open InterruptibleScopes
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void onInterrupt(int signal) {
  if (g_pending.load() != 0 || g_scopes.load() == 0) {
    // Asked twice, or nothing is polling: the default action ends the process now.
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  g_pending.store(signal);
}

}  // namespace

void installInterruptHandlers() {
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // reads and writes in progress complete; the loops poll the flag
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int pendingInterrupt() {
  return g_pending.load();
}

std::string pendingInterruptName() {
  switch (const int signal = g_pending.load()) {
    case 0:
      return "";
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return fmt::format("signal {}", signal);
  }
}

void throwIfInterrupted() {
  if (g_pending.load() != 0) {
    fail(ErrorKind::Interrupted, "interrupted by {}", pendingInterruptName());
  }
}

void setPendingInterrupt(int signal) {
  g_pending.store(signal);
}

InterruptibleScope::InterruptibleScope() {
  ++g_scopes;
}

InterruptibleScope::~InterruptibleScope() {
  --g_scopes;
}

}  // namespace npu
