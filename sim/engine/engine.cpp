#include "sim/engine/engine.hpp"

#include <stdexcept>

namespace dlsim::sim {

Engine::~Engine() {
  // Destroying suspended coroutine frames runs their destructors; no event may
  // refer to them afterwards.
  queue_.clear();
  processes_.clear();
}

void Engine::schedule(SimTime at, EventHandler* handler, std::uint64_t arg) {
  if (at < now_) throw std::logic_error("event scheduled in the past");
  queue_.push(Event{at, next_seq_++, handler, arg});
}

void Engine::schedule_resume(SimTime at, std::coroutine_handle<> h) {
  schedule(at, nullptr, reinterpret_cast<std::uint64_t>(h.address()));
}

void Engine::spawn(Task<void> process) {
  auto h = process.handle();
  h.promise().observer = this;
  processes_.push_back(std::move(process));
  schedule_resume(now_, h);
}

void Engine::run(SimTime until) {
  stopped_ = false;
  while (!queue_.empty() && !stopped_) {
    if (queue_.top().time > until) {
      now_ = until;
      return;
    }
    Event e = queue_.pop();
    now_ = e.time;
    ++events_;
    if (e.handler) {
      e.handler->on_event(e.arg);
    } else {
      std::coroutine_handle<>::from_address(reinterpret_cast<void*>(e.arg)).resume();
    }
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }
}

void Engine::on_process_done(std::exception_ptr error) {
  ++finished_;
  if (error && !error_) error_ = error;
}

}  // namespace dlsim::sim
