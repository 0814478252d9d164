// What a run reports: totals, latency histograms, a timeline of fixed intervals, and the invariant
// violations it found (simulation.h lists the invariants).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/latency_histogram.h"

namespace erails::sim {

struct TimelineRow {
  uint64_t reads = 0, writes = 0;          // completed in this interval
  double read_bytes = 0, write_bytes = 0;  // client bytes completed
  double held_bytes_max = 0;               // largest total of held bytes seen in the interval
  double read_gc_blocked = 0;              // seconds during which some read waited on GC
  uint64_t mixed_reads = 0;                // reads that used a write-phase shard
};

// What delayed a client read, so that a tail can be traced to its cause: the first that applies of
// a shard that waited on garbage collection, a shard submitted while its data device still had
// writes in progress (under rails/erails: writes applied before the switch), or neither.
enum ReadCause : uint8_t { kReadWaitedOnGc, kReadWithWrites, kReadClean, kReadCauses };

struct RunResult {
  LatencyHistogram read_latency, write_latency;
  LatencyHistogram read_latency_by_cause[kReadCauses];
  double interval = 1;
  std::vector<TimelineRow> timeline;
  uint64_t reads = 0, writes = 0;
  uint64_t mixed_reads = 0;       // reads that had to use write-phase shards
  uint64_t memory_reads = 0;      // shard reads served from held (not yet applied) data
  uint64_t shard_reads = 0;       // shard reads of client reads (fast_read: all it fetched)
  uint64_t late_reads = 0;        // reads a scheduler dispatched after their OSD left the read phase
  // Completed requests per stream per timeline interval; kept with a scheduler or any target.
  std::vector<std::vector<uint64_t>> stream_timeline;
  uint64_t unavailable_requests = 0;  // requests that found fewer than k shards up
  uint64_t slow_osds = 0;             // OSDs given a slow data device by [slow] sections
  double read_gc_blocked = 0;     // seconds during which at least one read waited on GC
  double client_end = 0;          // when the last client request completed
  double drained_at = 0;          // when the last held write reached its data device
  double max_osd_held = 0;        // largest held bytes of any single OSD
  double gc_blocked_seconds = 0;  // summed over data devices
  uint64_t gc_events = 0;
  uint64_t events = 0;            // discrete events processed
  uint64_t device_ops = 0;        // requests submitted to data and journal devices
  uint64_t invariant_violations = 0;
  std::vector<std::string> first_violations;  // up to 10 descriptions
};

// The row of the interval holding time t (>= 0), the timeline grown to reach it.
inline TimelineRow& timeline_row(RunResult& result, double t) {
  const auto i = static_cast<size_t>(t / result.interval);
  if (i >= result.timeline.size()) result.timeline.resize(i + 1);
  return result.timeline[i];
}

}  // namespace erails::sim
