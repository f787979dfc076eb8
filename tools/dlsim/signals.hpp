// SIGINT/SIGTERM during `dlsim run`: the first one asks the run to stop after the
// current iteration (sim/run/interrupt.hpp) so that metrics.csv and summary.json
// ("complete": false) are written; the handler is one-shot, so a second signal kills
// the process the default way. The exit code is then 128 + the signal (130, 143).
#pragma once

namespace dlsim::tool {

void install_stop_signal_handlers();

/// 128 + the signal that interrupted the run, or 0 when none did.
int interrupted_exit_code();

}  // namespace dlsim::tool
