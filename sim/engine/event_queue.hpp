// The pending-event set, ordered by (time, sequence number): equal times run in
// scheduling order (docs/design.md §6), as in ns-3's FIFO tie-break.
//
// A radix heap on the time (Ahuja, Mehlhorn, Orlin and Tarjan 1990, "Faster algorithms
// for the shortest path problem"). It relies on the clock being monotone: no event is
// scheduled before the last one taken out. Bucket b >= 1 holds the events whose time
// first differs from `base_` (the time of the last refill) in bit b - 1; bucket 0 holds
// the events at `base_` itself, in sequence order. Taking the earliest event out of an
// empty bucket 0 moves the first non-empty bucket down, relative to its own minimum, so
// an event is moved at most 63 times in all. On the hold model with a million events
// pending this is several times faster than a binary heap (bench/engine_bench.cpp),
// because each move is a sequential append instead of a cache miss per heap level.
//
// The order is exact without sorting: all events at one time sit in the same bucket (it
// depends on the time and the base only), in scheduling order, because pushes append and
// a refill moves a bucket's events in order. So they reach bucket 0 in sequence order.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/engine/prefetch.hpp"
#include "sim/engine/units.hpp"

namespace dlsim::sim {

class EventHandler;

/// One scheduled event. `handler == nullptr` means "resume the coroutine whose
/// address is `arg`"; otherwise `handler->on_event(arg)` is called. It carries no
/// sequence number: the queue keeps equal times in push order by itself (above), and
/// 24 bytes instead of 32 matter with millions pending.
struct Event {
  SimTime time;
  EventHandler* handler;
  std::uint64_t arg;
};

class EventQueue {
 public:
  EventQueue() = default;
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  /// Adds an event no earlier than the last one popped.
  void push(const Event& e) {
    const int b = bucket_of(e.time);
    append(b, e);
    ++size_;
    if (b > 0 && next_known_ && e.time < next_time_) next_time_ = e.time;
  }
  /// Takes out the earliest event (the first scheduled among equal times). Not empty.
  Event pop() {
    Bucket& now = buckets_[0];
    if (now.head == nullptr) refill();
    const Event e = now.head->events[read_++];
    if (read_ == now.head->count) {  // this chunk is read: recycle it
      Chunk* done = now.head;
      now.head = done->next;
      if (now.head == nullptr)
        now.tail = nullptr, filled_ &= ~std::uint64_t(1);
      else
        prefetch(now.head->next);
      release(done);
      read_ = 0;
    }
    --size_;
    return e;
  }
  /// The time of the earliest event, without taking it out (that would move the base
  /// past times still allowed for push). Not empty.
  SimTime next_time() const {
    if (buckets_[0].head != nullptr) return base_;
    if (!next_known_) {
      SimTime earliest = SimTime::max();
      for (const Chunk* c = buckets_[first_filled_bucket()].head; c; c = c->next) {
        prefetch(c->next);
        for (std::uint32_t i = 0; i < c->count; ++i)
          earliest = std::min(earliest, c->events[i].time);
      }
      next_time_ = earliest;
      next_known_ = true;
    }
    return next_time_;
  }
  /// The event `ahead` places after the earliest one, when both are among the events at
  /// the current time already in line (bucket 0's first chunk); null otherwise. A hint,
  /// for prefetching what that event will touch.
  const Event* look_ahead(std::uint32_t ahead) const {
    const Chunk* c = buckets_[0].head;
    if (c == nullptr) return nullptr;
    const std::uint32_t i = read_ + ahead;
    return i < c->count ? &c->events[i] : nullptr;
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  void clear() {
    for (Bucket& bucket : buckets_) {
      while (Chunk* c = bucket.head) bucket.head = c->next, release(c);
      bucket.tail = nullptr;
    }
    filled_ = 0;
    read_ = 0;
    size_ = 0;
    next_known_ = false;
  }

 private:
  // Bucket 0, and one per bit of a time: times are non-negative (< 2^63), so two of them
  // first differ in bit 62 at most.
  static constexpr int kBuckets = 64;
  // Buckets are lists of fixed-size chunks from one free list, so after the largest
  // pending count has been reached once nothing is allocated any more, however the
  // events move between buckets (tests/allocation_test.cpp).
  static constexpr std::uint32_t kChunkEvents = 64;
  struct Chunk {
    Event events[kChunkEvents];
    Chunk* next = nullptr;
    std::uint32_t count = 0;
  };
  struct Bucket {
    Chunk* head = nullptr;
    Chunk* tail = nullptr;
  };

  int bucket_of(SimTime t) const {
    const auto differing = std::uint64_t(t.ps) ^ std::uint64_t(base_.ps);
    return differing == 0 ? 0 : 64 - std::countl_zero(differing);
  }
  int first_filled_bucket() const { return std::countr_zero(filled_ & ~std::uint64_t(1)); }
  void append(int b, const Event& e) {
    Bucket& bucket = buckets_[b];
    if (bucket.tail == nullptr || bucket.tail->count == kChunkEvents) {
      Chunk* c = acquire();
      (bucket.tail ? bucket.tail->next : bucket.head) = c;
      bucket.tail = c;
      filled_ |= std::uint64_t(1) << b;
    }
    bucket.tail->events[bucket.tail->count++] = e;
  }
  Chunk* acquire() {
    if (free_ == nullptr) {
      storage_.push_back(std::make_unique<Chunk>());
      return storage_.back().get();
    }
    Chunk* c = free_;
    free_ = c->next;
    c->next = nullptr;
    c->count = 0;
    return c;
  }
  void release(Chunk* c) {
    c->next = free_;
    free_ = c;
  }
  // Bucket 0 is used up: rebase on the earliest pending time and spread the first
  // non-empty bucket over the lower ones (all of it lands below, since its events agree
  // with the new base above the bit that put them there). Chunks are recycled as soon
  // as they are read, so the spread needs no more memory than the events themselves.
  void refill() {
    const int source = first_filled_bucket();
    base_ = next_time();
    next_known_ = false;
    Chunk* c = buckets_[source].head;
    buckets_[source] = Bucket{};
    filled_ &= ~(std::uint64_t(1) << source);
    while (c) {
      prefetch(c->next);
      for (std::uint32_t i = 0; i < c->count; ++i)
        append(bucket_of(c->events[i].time), c->events[i]);
      Chunk* next = c->next;
      release(c);
      c = next;
    }
    read_ = 0;
    if (buckets_[0].head) prefetch(buckets_[0].head->next);
  }
  // A chunk about to be read: with a million events pending, the chunks of a bucket lie
  // anywhere (they come from the free list), and reading one cold is 25 cache misses in
  // a row. Loaded a chunk ahead, its lines arrive while the current one is read.
  static void prefetch(const Chunk* c) {
    if (c != nullptr) prefetch_lines(c, sizeof(Chunk));
  }

  std::array<Bucket, kBuckets> buckets_;
  std::uint64_t filled_ = 0;  // bit b: bucket b is not empty
  std::uint32_t read_ = 0;    // next event in bucket 0's first chunk
  std::size_t size_ = 0;
  SimTime base_{};
  mutable SimTime next_time_{};  // cache: the earliest time in buckets 1 and up
  mutable bool next_known_ = false;
  Chunk* free_ = nullptr;
  std::vector<std::unique_ptr<Chunk>> storage_;  // owns every chunk
};

}  // namespace dlsim::sim
