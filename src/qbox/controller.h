#pragma once
// The QBox controller (thesis fig. 3.3): clients' requests enter per-client queues, the scheduler
// picks what goes to the black box next, and completions flow back into the cost estimator, whose
// estimates price the next requests (or, with Pricing::osd, into the OSD's accounting, which
// charges each completed request and moves its client's deadlines by the difference). The
// scheduler is any of scheduler.h's; mclock gets weight u and no reservations or limits.
//
// Single-threaded; `now` is always passed in. The controller owns no clock and no backend.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "qbox/backend.h"
#include "qbox/cost_estimator.h"
#include "qbox/scheduler.h"
#include "qbox/stream_classifier.h"
#include "qbox/write_pricer.h"

namespace erails::qbox {

// What a request's sequential/random class is judged against.
enum class Classification {
  // The same client's previous request (thesis 3.4.3). A seek a sequential stream pays because
  // another stream's request came between is not its own: it shows up in the random estimate.
  stream,
  // The request dispatched just before it, for devices that serve in submission order: a request
  // that pays a seek is counted as random, and qbox charges its client the difference between the
  // two estimates at dispatch, so each client pays for the device time its requests occupy.
  dispatch,
};

// Parses "stream" or "dispatch"; the error names field `classify`.
Expected<Classification> parse_classification(const std::string& text);

// What qbox charges a request.
enum class Pricing {
  // The thesis' estimator (cost_estimator.h, §3.3): each request class has a cost, fitted from
  // the windows' completions; a request costs its class's estimate.
  thesis,
  // The accounting QBox does inside ceph-osd (osd_shares.h): a read costs its measured share of
  // the time requests ran, a write the device time the write pricer infers from what the reads
  // leave. Runs the OSD's pricing in front of a device model, where every device second is known.
  osd,
};

// Parses "thesis" or "osd"; the error names field `pricing`.
Expected<Pricing> parse_pricing(const std::string& text);

struct ControllerConfig {
  SchedulerKind scheduler = SchedulerKind::qbox;
  std::size_t max_in_flight = 32;  // dispatch depth (thesis 3.4.1 bounds it, e.g. 200)
  CostEstimatorConfig estimator;
  // Prices used until the estimator has seen a class (reads seq/random, writes seq/random).
  CostPair default_read_cost{0.0002, 0.008};
  CostPair default_write_cost{0.0003, 0.010};
  std::uint64_t sequential_gap_bytes = 0;  // see StreamClassifier
  Classification classification = Classification::stream;
  // qbox only: a client whose next request continues where the last dispatched request ended keeps
  // the device while its head deadline is within this many seconds of the earliest, so EDF does not
  // break a sequential run for a request due only slightly sooner; 0 = strict EDF.
  Seconds sequential_slack = 0;
  double probe = 0.3;  // alternating price perturbation of sequential requests (qbox only); 0 = off
  Pricing pricing = Pricing::thesis;
};

// Errors: a combination the controller cannot run (osd pricing is qbox's, and prices by measured
// time, so it takes neither a throughput baseline nor dispatch classes).
Status check(const ControllerConfig& config);

// What one client got over a reporting window.
struct ClientWindow {
  std::uint64_t completions = 0;
  std::uint64_t bytes = 0;
  // Thesis pricing: the sum of the current estimate of each completed request's cost; osd
  // pricing: what each completed request was charged.
  Seconds estimated_time = 0;
  Seconds service_time = 0;    // sum of backend-reported service times (simulated devices only)
  std::uint64_t errors = 0;
};

class Controller {
 public:
  using ClientHandle = std::uint32_t;

  // `backend` must outlive the controller.
  Controller(const ControllerConfig& config, Backend& backend, Seconds start);
  ~Controller();

  // Errors: utilization outside (0, 1]; duplicate name.
  Expected<ClientHandle> add_client(const std::string& name, double utilization);
  Status set_utilization(ClientHandle client, double utilization);

  // A client request arrives. Errors: unknown handle, zero length.
  Status submit(ClientHandle client, Operation operation, std::uint64_t offset,
                std::uint32_t length, Seconds now);
  // Sends scheduled requests to the backend while the dispatch depth allows. Returns how many.
  // A backend error is returned after the failed request is counted as an error completion.
  Expected<std::size_t> dispatch(Seconds now);
  // Collects the backend's completions up to `now` and feeds them back. Returns how many.
  std::size_t reap(Seconds now);

  std::size_t queued() const;
  std::size_t in_flight() const;
  // Requests of `client` queued or in flight (closed-loop drivers keep this at their depth).
  std::size_t outstanding(ClientHandle client) const;
  const CostEstimator& estimator() const;
  // What a write costs under Pricing::osd; nothing under the thesis' pricing.
  std::optional<WritePrice> write_price() const;
  std::optional<Seconds> next_ready() const;

  // Per-client totals since the previous call, then reset.
  std::vector<ClientWindow> take_window();
  const std::string& name(ClientHandle client) const;
  std::size_t client_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace erails::qbox
