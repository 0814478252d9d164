// Recording and checking the invariants simulation.h lists. A violation is recorded in the run's
// result (counted, the first ten described), never fatal: a run that breaks an invariant still
// reports its numbers, and says what went wrong and when.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "sim/run_result.h"
#include "sim/version_table.h"

namespace erails::sim {

void record_violation(RunResult& result, const std::string& what);

// Whether a shard read would miss the version acknowledged when the read was issued: neither the
// shard's data device nor its OSD's held writes have it.
inline bool misses_acknowledged(const ShardVersions& shard, uint32_t acknowledged) {
  return (shard.held > shard.on_device ? shard.held : shard.on_device) < acknowledged;
}

// After the final drain: no acknowledged write is lost, i.e. every shard whose OSD is up holds its
// object's newest acknowledged version on the data device, and so do at least k of each object's
// shards (enough to decode). `up(object, shard)` says whether that shard's OSD is up.
void check_drained(const VersionTable& versions, int k, int shards, const std::function<bool(uint64_t, int)>& up,
                   RunResult& result);

}  // namespace erails::sim
