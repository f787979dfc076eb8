// Stopping a run early on request (SIGINT/SIGTERM, docs/design.md §5 crash safety): a signal
// handler records the signal with request_interrupt() (async-signal-safe: one lock-free
// atomic store); run() checks interrupt_signal() after every completed iteration, and the
// engine polls the same flag every 1,024 events (one iteration may never end: a link that
// drops almost every packet); either stops the engine, and run() writes the rows so far
// plus a summary.json with "complete": false.
#pragma once

#include <atomic>

namespace dlsim::sim {

/// Records that the run should stop; `signal_number` > 0. Safe in a signal handler.
void request_interrupt(int signal_number) noexcept;

/// The signal recorded by request_interrupt(), or 0 when none was.
int interrupt_signal() noexcept;

/// The flag request_interrupt() sets (the signal number, 0 for none), for
/// Engine::set_stop_request.
const std::atomic<int>& interrupt_request() noexcept;

/// Forgets a recorded request (tests run several interrupted runs in one process).
void clear_interrupt() noexcept;

}  // namespace dlsim::sim
