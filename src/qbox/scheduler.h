#pragma once
// The queue in front of one black box, whichever scheduler orders it. The controller and the
// simulator both queue through it, so the three schedulers are compared on equal terms:
//   qbox   — EDF on d = e/u with e the request's estimated device time (utilization-based);
//   fifo   — the thesis' throughput-based baseline: the same EDF with every request priced the
//            same, so clients get request counts, not device time, in proportion to u;
//   mclock — the project's mClock, reservation/weight/limit in requests per second with cost 1
//            per request (throughput-based, as an OSD configures it).
//
// Requests are the caller's handles; the caller keeps what they stand for. Single-threaded; `now`
// is always passed in.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "common/error.h"
#include "qbox/cost_estimator.h"
#include "qbox/mclock_queue.h"
#include "qbox/qbox_queue.h"

namespace erails::qbox {

enum class SchedulerKind { qbox, fifo, mclock };

// Parses "qbox", "fifo" or "mclock"; the error names field `scheduler`.
Expected<SchedulerKind> parse_scheduler(const std::string& text);
const char* to_string(SchedulerKind kind);

// What a client is entitled to: qbox and fifo read its utilization, mclock its settings.
struct ClientShare {
  double utilization = 1;
  MClockSettings mclock;
};

struct SchedulerConfig {
  SchedulerKind kind = SchedulerKind::qbox;
  std::size_t max_in_flight = 0;  // dequeued and not completed at most; 0 = unbounded
  // Without an estimator, qbox prices every request at the fallback its caller gives.
  std::optional<CostEstimatorConfig> estimator;
  double probe = 0;  // alternating price perturbation of sequential requests (qbox only); 0 = off
};

class Scheduler {
 public:
  using ClientId = std::uint32_t;
  using Handle = std::uint64_t;

  // `start` begins the estimator's first window.
  Scheduler(const SchedulerConfig& config, Seconds start);

  // Errors: the share is out of range for the scheduler; the client is already registered.
  Status add_client(ClientId client, const ClientShare& share);
  Status set_share(ClientId client, const ClientShare& share);

  // The device time a request of class `c` takes: the estimator's current cost once it has seen
  // the class, `fallback` until then.
  Seconds estimate(RequestClass c, Seconds fallback) const;
  // The cost hint the queue gets: the estimate for qbox, one request for fifo and mclock.
  Seconds price(RequestClass c, Seconds fallback) const;

  // Error only if the client is unknown or the price invalid.
  Status enqueue(ClientId client, Handle request, Seconds price, Seconds now);
  // The next request to send, or nothing (queue empty, depth reached, or mclock limits). Each
  // dequeued request counts as in flight until on_completion() or give_back().
  std::optional<Handle> dequeue(Seconds now);
  // The request at the head of `client`'s queue; nothing for mclock, whose heads are per tag.
  std::optional<Handle> head(ClientId client) const;
  // qbox and fifo: `client`'s head instead of the earliest deadline when that head is due at most
  // `slack` seconds later (QBoxQueue::dequeue_preferring); mclock: dequeue().
  std::optional<Handle> dequeue_preferring(ClientId client, Seconds slack, Seconds now);
  // A dispatched request turned out to cost `extra` more device time than it was priced at: qbox
  // moves the client's deadlines by it; fifo and mclock price requests, not time, and ignore it.
  void charge(ClientId client, Seconds extra);
  // qbox: QBoxQueue::reprice; fifo and mclock price requests, not time, and ignore it.
  template <class Recost>
  void reprice(ClientId client, Recost&& recost) {
    if (kind_ == SchedulerKind::qbox) std::get<QBox>(queue_).reprice(client, recost);
  }

  // The dequeued request reached the device.
  void on_dispatch(Seconds now);
  void on_completion(RequestClass c, Seconds now);
  // A dequeued request that was not sent (it waits elsewhere): frees its place only.
  void give_back();
  // Closes the estimator's windows that ended by `now`.
  void advance(Seconds now);

  // When a limit-held mclock head becomes eligible; infinity otherwise. If dequeue() gave nothing
  // below the dispatch depth, the caller retries then; at the depth, a completion frees a place.
  Seconds next_ready() const;
  bool at_depth() const;
  bool empty() const;
  std::size_t size() const;
  std::size_t in_flight() const;
  // Null without an estimator.
  const CostEstimator* estimator() const { return estimator_ ? &*estimator_ : nullptr; }

 private:
  using QBox = QBoxQueue<ClientId, Handle>;
  using MClock = MClockQueue<ClientId, Handle>;

  SchedulerKind kind_;
  double probe_;
  std::variant<QBox, MClock> queue_;
  std::optional<CostEstimator> estimator_;
};

}  // namespace erails::qbox
