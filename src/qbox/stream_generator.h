#pragma once
// Produces one client's request stream for qbox-bench from its ClientSpec: offsets for sequential,
// random and semi-sequential patterns (thesis 3.4.2-3.4.3), or the requests of an MSR trace mapped
// into the stream's region; and, in open loop, arrival times.

#include <cstdint>
#include <random>
#include <vector>

#include "common/msr_trace.h"
#include "qbox/client_spec.h"
#include "qbox/seconds.h"

namespace erails::qbox {

struct StreamRequest {
  Operation operation = Operation::read;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
};

class StreamGenerator {
 public:
  // The stream stays within [region_start, region_start + region_bytes). Preconditions:
  // region_bytes >= spec.size and >= 1 MiB for traces; both multiples of 4096. `trace` must be
  // non-null and non-empty for pattern=trace and outlive the generator.
  StreamGenerator(const ClientSpec& spec, std::uint64_t region_start, std::uint64_t region_bytes,
                  const std::vector<TraceRecord>* trace, std::uint64_t seed);

  StreamRequest next();

  // Open loop: when the next request arrives, in seconds since the run began. Traces use their
  // own timestamps (replayed cyclically); other patterns are evenly spaced at `rate`.
  Seconds next_arrival() const { return next_arrival_; }

 private:
  std::uint64_t random_offset(std::uint32_t length);
  StreamRequest from_trace();

  ClientSpec spec_;
  std::uint64_t region_start_;
  std::uint64_t region_bytes_;
  const std::vector<TraceRecord>* trace_;
  std::mt19937_64 rng_;
  std::uint64_t cursor_;        // next sequential offset, relative to the region
  std::uint64_t position_ = 0;  // requests generated so far
  Seconds next_arrival_ = 0;
  Seconds trace_period_ = 0;
};

}  // namespace erails::qbox
