// The cluster simulation: OSDs (data device + journal device + held writes) grouped in colors with
// the ordered placement (shard i of every PG on an OSD of color i), EC (k, m) or replication (k = 1),
// clients as streams or MSR traces, under one of the policies:
//   none    reads go to the data shards (a random copy for k = 1); writes go to the data devices.
//   rails / erails
//           reads take the shards rails::choose_read_shards picks for the schedule's read set;
//           writes are journaled and acknowledged, held, and applied only while
//           rails::Schedule::may_apply_writes allows (write phase, minus the guard), within a per-OSD
//           budget: a write that does not fit waits (throttling to the slowest device, §4.4.2.2).
//
// Invariants checked on every run (violations are returned, never hidden):
//   - a read sees, on every shard it uses, at least the version acknowledged before it was issued;
//   - after the final drain every shard of every object on its data device holds the latest
//     acknowledged version (no acknowledged write lost);
//   - held bytes on an OSD never exceed the budget;
//   - with rails/erails and no OSD failed yet, every device read goes to a read-phase OSD and no
//     read mixes phases (after a failure mixing is allowed, and counted in mixed_reads). With a
//     scheduler ([sim] scheduler) this is checked when the OSD is chosen; a read the scheduler holds
//     past the switch is counted in late_reads, and held writes are only submitted while
//     may_apply_writes allows (one whose turn comes later goes back to the head of the held queue).
// Failures ([failure NAME] sections) stop an OSD for good: its held writes are gone, later writes
// skip it (degraded), reads decode around it; no recovery is modelled. "Lost" then means a shard on
// a surviving OSD is stale, or fewer than k shards of an object are current.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/config.h"
#include "devices/device.h"
#include "sim/latency_histogram.h"
#include "common/msr_trace.h"

namespace erails::sim {

struct TimelineRow {
  uint64_t reads = 0, writes = 0;          // completed in this interval
  double read_bytes = 0, write_bytes = 0;  // client bytes completed
  double held_bytes_max = 0;               // largest total of held bytes seen in the interval
  double read_gc_blocked = 0;              // seconds during which some read waited on GC
  uint64_t mixed_reads = 0;                // reads that used a write-phase shard
};

struct RunResult {
  LatencyHistogram read_latency, write_latency;
  double interval = 1;
  std::vector<TimelineRow> timeline;
  uint64_t reads = 0, writes = 0;
  uint64_t mixed_reads = 0;       // reads that had to use write-phase shards
  uint64_t memory_reads = 0;      // shard reads served from held (not yet applied) data
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

// Traces keyed by the stream's trace path; streams of kind trace must have theirs here.
using Traces = std::map<std::string, std::vector<TraceRecord>>;

// Runs the configuration to completion (clients stop at config.duration, held writes drain for at
// most config.drain_limit more seconds). Deterministic: same config and traces, same result.
// Precondition: config came from parse_config/load_config (validated).
RunResult run_simulation(const SimConfig& config, const Traces& traces);

// Loads the trace of every stream of kind trace.
erails::Expected<Traces> load_traces(const SimConfig& config);

}  // namespace erails::sim
