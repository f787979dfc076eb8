#include "sim/network/sized_payload.hpp"

#include <array>
#include <map>
#include <mutex>
#include <utility>

namespace dlsim::sim {

namespace {

using Size = std::pair<std::uint64_t, std::int64_t>;  // (bits, dimension)

// The process's payloads by size: a node-based map, so an entry never moves. A run uses
// one or two sizes; a sweep in one process a few per scenario.
const models::Encoded& interned(const Size& size) {
  static std::mutex mutex;
  static std::map<Size, models::Encoded> table;
  const std::lock_guard lock(mutex);
  auto [it, added] = table.try_emplace(size);
  if (added) {
    it->second.bits = size.first;
    it->second.dimension = size.second;
  }
  return it->second;
}

}  // namespace

Payload sized_payload(std::uint64_t bits, std::int64_t dimension) {
  // The last payloads this thread was given (each knows its size): steady state takes no
  // lock (a million workers each encode per round). A run calls this from the engine
  // thread only (jobs without math do not go to the pool); the lock and the thread-local
  // cache keep it safe for processes that run several engines on threads of their own.
  thread_local std::array<const models::Encoded*, 4> recent{};
  thread_local std::size_t next = 0;
  for (const models::Encoded* p : recent)
    if (p && p->bits == bits && p->dimension == dimension)
      return Payload(Payload(), p);  // aliasing an empty owner: no count to keep
  const models::Encoded* p = &interned({bits, dimension});
  recent[next] = p;
  next = (next + 1) % recent.size();
  return Payload(Payload(), p);
}

}  // namespace dlsim::sim
