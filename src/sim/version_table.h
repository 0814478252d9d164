// Per-object version records kept for the invariant checks (simulation.h): for each object the
// newest acknowledged and the last handed-out version, and for each of its k+m shards the newest
// version on the data device and the newest journaled.
//
// Why its own layout: with millions of objects these records dominate the simulator's cache and
// TLB misses (every request touches a random object). One record holds the object and all its
// shards, so a request's accesses share a cache line or two, and the table lives in one anonymous
// mapping advised to use transparent huge pages, so a random access costs one TLB entry per 2 MiB
// instead of per 4 KiB (page walks are especially dear inside a VM). Untouched pages read as zero.
#pragma once

#include <cstddef>
#include <cstdint>

namespace erails::sim {

struct ObjectVersions {
  uint32_t acked = 0;  // newest version acknowledged to a client
  uint32_t next = 0;   // last version handed to a writer
};

struct ShardVersions {
  uint32_t on_device = 0;  // newest version on the shard's data device
  uint32_t held = 0;       // newest version journaled (held or applied)
};

class VersionTable {
 public:
  // All versions start at 0. Precondition: shards >= 1. Aborts (std::bad_alloc) if the mapping fails.
  VersionTable(uint64_t objects, int shards);
  ~VersionTable();
  VersionTable(const VersionTable&) = delete;
  VersionTable& operator=(const VersionTable&) = delete;

  uint64_t objects() const { return objects_; }
  // Preconditions: o < objects(), 0 <= s < shards.
  ObjectVersions& object(uint64_t o) { return *reinterpret_cast<ObjectVersions*>(record(o)); }
  const ObjectVersions& object(uint64_t o) const { return *reinterpret_cast<const ObjectVersions*>(record(o)); }
  ShardVersions& shard(uint64_t o, int s) { return reinterpret_cast<ShardVersions*>(record(o) + 1)[s]; }
  const ShardVersions& shard(uint64_t o, int s) const {
    return reinterpret_cast<const ShardVersions*>(record(o) + 1)[s];
  }

 private:
  // A record is 1 + shards slots of 8 bytes: the object's pair, then each shard's pair.
  uint64_t* record(uint64_t o) const { return base_ + o * stride_; }

  uint64_t objects_;
  uint64_t stride_;
  std::size_t bytes_;
  uint64_t* base_;
};

}  // namespace erails::sim
