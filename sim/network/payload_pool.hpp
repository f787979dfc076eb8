// Recycled payload buffers: a sender keeps the encoded messages it handed out and
// re-encodes into one that nobody holds any more (no transfer, mailbox or receiver), so a
// stream of messages allocates nothing once the pool has as many buffers as messages
// are ever in flight at once (usually one or two).
//
// A buffer is free when its use count is 1: the pool's own reference is the only one.
// Nobody can take a new reference to a buffer the pool alone holds (it never hands out
// weak pointers), so a count of 1 stays 1 until acquire() hands the buffer out again.
//
// Threads: a pool belongs to one sender (one worker's message stream) and is used by
// one thread at a time: the engine thread, or the pool thread running that worker's
// compute job (sim/runtime/compute_job.hpp; phases are separated by the job pool's
// synchronization). Other threads may drop their references concurrently (a receiver's
// job decoding and releasing a message): std::shared_ptr's count is atomic and its
// decrement a release operation, and acquire() follows a count of 1 with an acquire
// fence, so the last holder's reads of the bytes happen before the pool's next write.
// Reading a count of 2 while the other holder is letting go only costs a new buffer.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "sim/network/message.hpp"

namespace dlsim::sim {

class PayloadPool {
 public:
  /// A buffer only this pool holds (its previous contents left for the caller to
  /// overwrite), or a new one added to the pool.
  std::shared_ptr<models::Encoded> acquire() {
    const std::size_t n = buffers_.size();
    std::size_t k = next_;  // round robin: the oldest first (no division: called per message)
    for (std::size_t i = 0; i < n; ++i, k = k + 1 == n ? 0 : k + 1) {
      if (buffers_[k].use_count() == 1) {
        std::atomic_thread_fence(std::memory_order_acquire);
        next_ = k + 1 == n ? 0 : k + 1;
        return buffers_[k];
      }
    }
    buffers_.push_back(std::make_shared<models::Encoded>());
    next_ = 0;
    return buffers_.back();
  }

  /// Buffers ever created (the most messages of this stream in flight at once).
  std::size_t size() const { return buffers_.size(); }

 private:
  std::vector<std::shared_ptr<models::Encoded>> buffers_;
  std::size_t next_ = 0;
};

}  // namespace dlsim::sim
