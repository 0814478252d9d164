// Deterministic event queue: events at equal times fire in the order they were scheduled, so a
// run depends only on its inputs and seed, never on heap internals.
//
// Why not std::priority_queue: the event loop is a large share of a run's time. This is a 4-ary
// heap (half the depth of a binary one; a node's four children are 128 contiguous bytes) that
// moves a hole instead of swapping, and orders events by one 128-bit integer key: the bits of a
// non-negative double order like the double, so (time bits, seq) compares in one step instead of
// two branches on doubles. The order is exactly (time, seq).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace erails::sim {

struct Event {
  double time;
  uint64_t seq;      // tie-breaker: scheduling order
  uint32_t type;     // meaning chosen by the owner of the queue
  uint32_t a;        // payload
  uint64_t b;        // payload
};

class EventQueue {
 public:
  // Precondition: time >= now() (events never go back in time). now() starts at 0, so time is
  // never negative or NaN, which the integer key relies on.
  void schedule(double time, uint32_t type, uint32_t a = 0, uint64_t b = 0) {
    // Adding +0.0 turns -0.0 into +0.0, whose bits order correctly.
    const Event e{time + 0.0, next_seq_++, type, a, b};
    const Key k = key(e);
    size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (!(k < key(heap_[parent]))) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  bool empty() const { return heap_.empty(); }
  // Precondition: !empty(). Advances now() to the event's time.
  Event pop() {
    const Event top = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    const size_t n = heap_.size();
    if (n > 0) {
      const Key k = key(last);
      size_t i = 0;
      for (;;) {
        const size_t first = i * kArity + 1;
        if (first >= n) break;
        const size_t end = first + kArity < n ? first + kArity : n;
        size_t best = first;
        Key best_key = key(heap_[first]);
        for (size_t c = first + 1; c < end; ++c) {
          const Key ck = key(heap_[c]);
          if (ck < best_key) {
            best = c;
            best_key = ck;
          }
        }
        if (!(best_key < k)) break;
        heap_[i] = heap_[best];
        i = best;
      }
      heap_[i] = last;
    }
    now_ = top.time;
    return top;
  }
  double now() const { return now_; }
  uint64_t scheduled() const { return next_seq_; }

 private:
  using Key = unsigned __int128;
  static constexpr size_t kArity = 4;

  static Key key(const Event& e) {
    uint64_t bits;
    std::memcpy(&bits, &e.time, sizeof bits);
    return (static_cast<Key>(bits) << 64) | e.seq;
  }

  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
  double now_ = 0;
};

}  // namespace erails::sim
