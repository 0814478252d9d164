#include "sim/invariants.h"

#include <gtest/gtest.h>

#include "sim/read_blocked.h"

namespace erails::sim {
namespace {

TEST(Invariants, ViolationsAreAllCountedAndTheFirstTenDescribed) {
  RunResult r;
  for (int i = 0; i < 12; ++i) record_violation(r, "v" + std::to_string(i));
  EXPECT_EQ(r.invariant_violations, 12u);
  ASSERT_EQ(r.first_violations.size(), 10u);
  EXPECT_EQ(r.first_violations.front(), "v0");
  EXPECT_EQ(r.first_violations.back(), "v9");
}

TEST(Invariants, AReadMissesOnlyWhatNeitherDeviceNorMemoryHas) {
  EXPECT_FALSE(misses_acknowledged({3, 0}, 3));
  EXPECT_FALSE(misses_acknowledged({1, 3}, 3));  // held, not yet applied
  EXPECT_TRUE(misses_acknowledged({2, 2}, 3));
}

TEST(Invariants, DrainedRunLosesNothing) {
  VersionTable v(2, 3);
  v.object(0).acked = 2;
  for (int s = 0; s < 3; ++s) v.shard(0, s).on_device = 2;
  RunResult r;
  check_drained(v, 2, 3, [](uint64_t, int) { return true; }, r);
  EXPECT_EQ(r.invariant_violations, 0u);
}

TEST(Invariants, AStaleShardOnAnUpOsdIsALostWrite) {
  VersionTable v(1, 3);
  v.object(0).acked = 2;
  v.shard(0, 0).on_device = 2;
  v.shard(0, 1).on_device = 2;
  v.shard(0, 2).on_device = 1;
  RunResult up;
  check_drained(v, 2, 3, [](uint64_t, int) { return true; }, up);
  ASSERT_EQ(up.invariant_violations, 1u);
  EXPECT_EQ(up.first_violations[0], "acknowledged write lost: object 0 shard 2 has version 1 < 2");
  RunResult down;  // the stale shard's OSD failed: degraded, not lost, while k shards are current
  check_drained(v, 2, 3, [](uint64_t, int s) { return s != 2; }, down);
  EXPECT_EQ(down.invariant_violations, 0u);
}

TEST(Invariants, FewerThanKCurrentShardsIsALostObject) {
  VersionTable v(1, 3);
  v.object(0).acked = 1;
  v.shard(0, 0).on_device = 1;
  RunResult r;
  check_drained(v, 2, 3, [](uint64_t, int) { return false; }, r);
  ASSERT_EQ(r.invariant_violations, 1u);
  EXPECT_EQ(r.first_violations[0], "object 0 has only 1 current shards");
}

TEST(ReadBlockedTime, OverlappingWaitsCountOnceAndSplitAtIntervalEdges) {
  RunResult r;
  r.interval = 1;
  ReadBlockedTime blocked;
  blocked.add(0.5, 1.0, r);
  blocked.add(0.75, 1.25, r);  // overlaps the first
  blocked.add(3.0, 3.5, r);    // apart
  blocked.flush(r);
  EXPECT_DOUBLE_EQ(r.read_gc_blocked, 0.75 + 0.5);
  ASSERT_EQ(r.timeline.size(), 4u);
  EXPECT_DOUBLE_EQ(r.timeline[0].read_gc_blocked, 0.5);
  EXPECT_DOUBLE_EQ(r.timeline[1].read_gc_blocked, 0.25);
  EXPECT_DOUBLE_EQ(r.timeline[2].read_gc_blocked, 0);
  EXPECT_DOUBLE_EQ(r.timeline[3].read_gc_blocked, 0.5);
}

}  // namespace
}  // namespace erails::sim
