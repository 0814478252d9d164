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
//     may_apply_writes allows (one whose turn comes later goes back to the head of the held queue)
//     and no read the scheduler queued in the OSD's read phase still waits there.
// Every read is counted under what delayed it (RunResult::read_latency_by_cause): GC on its device
// (directly, or while it waited in the scheduler), writes still in progress on its device, or
// neither; the report shows whether the tail is GC alone.
// Failures ([failure NAME] sections) stop an OSD for good: its held writes are gone, later writes
// skip it (degraded), reads decode around it; no recovery is modelled. "Lost" then means a shard on
// a surviving OSD is stale, or fewer than k shards of an object are current.
#pragma once

#include "common/error.h"
#include "sim/config.h"
#include "sim/run_result.h"
#include "sim/streams.h"

namespace erails::sim {

// Runs the configuration to completion (clients stop at config.duration, held writes drain for at
// most config.drain_limit more seconds). Deterministic: same config and traces, same result.
// Precondition: config came from parse_config/load_config (validated).
RunResult run_simulation(const SimConfig& config, const Traces& traces);

// Loads the trace of every stream of kind trace.
erails::Expected<Traces> load_traces(const SimConfig& config);

}  // namespace erails::sim
