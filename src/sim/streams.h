// The clients: one generator per [stream NAME] section, each over its own range of objects (the
// streams' ranges are disjoint and consecutive in config order, so a write of one stream never
// changes what another reads).
//   closed  `outstanding` requests in flight; the simulation issues the next as one completes;
//   open    Poisson arrivals at `rate`, whatever the cluster does;
//   trace   the records of an MSR trace at their times (divided by trace_speed), each record's
//           offset mapped to an object of the stream's range and its size kept.
// Requests are drawn from the simulation's one generator, in a fixed order (read or write, then
// the object, then the next arrival), so a run depends only on its config and seed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/msr_trace.h"
#include "common/operation.h"
#include "devices/rng.h"
#include "sim/config.h"

namespace erails::sim {

// Traces keyed by the stream's trace path; streams of kind trace must have theirs here.
using Traces = std::map<std::string, std::vector<TraceRecord>>;

// A request a stream issues.
struct ClientRequest {
  Operation operation;
  uint64_t object;  // in [0, Streams::objects())
  uint32_t bytes;
};

// What a stream issues now, and when it issues again if that does not wait for a completion.
struct Arrival {
  ClientRequest request;
  std::optional<double> next_at;
};

// Seconds to the next arrival of a Poisson process of `rate` per second.
double exponential(double rate, devices::Rng& rng);

class Streams {
 public:
  // Preconditions: configs validated (sim/config.h); every trace stream's trace is in `traces`,
  // non-empty. Both outlive this object.
  Streams(const std::vector<StreamConfig>& configs, const Traces& traces);

  // Objects of all streams together.
  uint64_t objects() const { return objects_; }

  // When stream s first issues: `outstanding` times its start for closed, one time otherwise.
  std::vector<double> first_arrivals(uint32_t s, devices::Rng& rng) const;

  // Whether stream s may issue at `now`: before its stop, before the clients' end (`duration`),
  // and below its max_requests.
  bool may_issue(uint32_t s, double now, double duration) const;

  // Stream s's request at `now`, counted as issued. Precondition: may_issue(s, now, ...).
  Arrival next(uint32_t s, double now, devices::Rng& rng);

 private:
  struct State {
    uint64_t first_object = 0;
    uint64_t next_sequential = 0;
    uint64_t issued = 0;
    size_t trace_index = 0;
    const std::vector<TraceRecord>* trace = nullptr;
  };

  const std::vector<StreamConfig>& configs_;
  std::vector<State> states_;
  uint64_t objects_ = 0;
};

}  // namespace erails::sim
