#include "tools/dlsim/signals.hpp"

#include <csignal>

#include "sim/run/interrupt.hpp"

namespace dlsim::tool {

namespace {
void on_stop_signal(int signal_number) {
  sim::request_interrupt(signal_number);
}
}  // namespace

void install_stop_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // a second signal terminates at once
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int interrupted_exit_code() {
  const int signal_number = sim::interrupt_signal();
  return signal_number > 0 ? 128 + signal_number : 0;
}

}  // namespace dlsim::tool
