// Deterministic event queue: events at equal times fire in the order they were scheduled, so a
// run depends only on its inputs and seed, never on heap internals.
#pragma once

#include <cstdint>
#include <queue>
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
  // Precondition: time >= now() (events never go back in time).
  void schedule(double time, uint32_t type, uint32_t a = 0, uint64_t b = 0) {
    heap_.push(Event{time, next_seq_++, type, a, b});
  }
  bool empty() const { return heap_.empty(); }
  // Precondition: !empty(). Advances now() to the event's time.
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    now_ = e.time;
    return e;
  }
  double now() const { return now_; }
  uint64_t scheduled() const { return next_seq_; }

 private:
  struct Later {
    bool operator()(const Event& x, const Event& y) const {
      return x.time != y.time ? x.time > y.time : x.seq > y.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  uint64_t next_seq_ = 0;
  double now_ = 0;
};

}  // namespace erails::sim
