// The queue in front of one simulated data device when a QoS scheduler is configured: the QBox
// library's own QBoxQueue or MClockQueue (src/qbox, linked, not copied), keyed by stream.
//
// The simulation enqueues every request bound for the device with the stream that caused it and
// the request's price, dequeues while the queue allows (at most dispatch_depth in flight), submits
// what it gets to the device model, and reports each completion. `now` is always the simulator's
// clock; nothing here reads a clock.
#pragma once

#include <cstdint>
#include <optional>
#include <variant>

#include "sim/config.h"
#include "qbox/cost_estimator.h"
#include "qbox/mclock_queue.h"
#include "qbox/qbox_queue.h"

namespace erails::sim {

class DeviceScheduler {
 public:
  // Precondition: config validated, config.scheduler != kNone. Every stream is a client.
  explicit DeviceScheduler(const SimConfig& config);

  // The price the scheduler charges a request of `bytes` bytes: device seconds for qbox (from the
  // profile, or the estimator's current cost for the class once it has one), 1 (one request) for
  // the throughput-based fifo and mclock.
  double price(qbox::RequestClass request_class, uint32_t bytes) const;

  // `op` is the caller's handle for the request. Error only if the price is invalid (a bug).
  erails::Status enqueue(uint32_t stream, uint64_t op, double price, double now);
  // The next request to submit, or nothing (queue empty, depth reached, or mclock limits).
  // Each dequeued request counts as in flight until on_completion() or give_back().
  std::optional<uint64_t> dequeue(double now);
  // The dequeued request reached the device at `now` (the estimator's dispatch).
  void on_submitted(double now);
  void on_completion(qbox::RequestClass request_class, double now);
  // A dequeued request that was not submitted (it waits elsewhere): frees its place only.
  void give_back();
  // When a limit-held mclock head becomes eligible (infinity otherwise): if dequeue() gave nothing
  // below the dispatch depth, the caller retries then; at the depth, a completion frees a place.
  double next_ready() const;
  bool at_depth() const;
  bool empty() const;

 private:
  using Qbox = qbox::QBoxQueue<uint32_t, uint64_t>;
  using Mclock = qbox::MClockQueue<uint32_t, uint64_t>;
  Scheduler kind_;
  std::size_t depth_;
  double read_cost_, write_cost_;
  std::variant<Qbox, Mclock> queue_;
  std::optional<qbox::CostEstimator> estimator_;  // cost_source estimator only
};

}  // namespace erails::sim
