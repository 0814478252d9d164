#include "sim/version_table.h"

#include <gtest/gtest.h>

namespace erails::sim {
namespace {

TEST(VersionTable, StartsAtZeroAndKeepsRecordsApart) {
  VersionTable t(1000, 6);
  EXPECT_EQ(t.objects(), 1000u);
  for (uint64_t o = 0; o < 1000; ++o) {
    t.object(o).acked = static_cast<uint32_t>(o);
    t.object(o).next = static_cast<uint32_t>(o + 1);
    for (int s = 0; s < 6; ++s) {
      EXPECT_EQ(t.shard(o, s).on_device, 0u);
      t.shard(o, s).on_device = static_cast<uint32_t>(o * 10 + s);
      t.shard(o, s).held = static_cast<uint32_t>(o * 10 + s + 5);
    }
  }
  for (uint64_t o = 0; o < 1000; ++o) {
    EXPECT_EQ(t.object(o).acked, o);
    EXPECT_EQ(t.object(o).next, o + 1);
    for (int s = 0; s < 6; ++s) {
      EXPECT_EQ(t.shard(o, s).on_device, o * 10 + s);
      EXPECT_EQ(t.shard(o, s).held, o * 10 + s + 5);
    }
  }
}

TEST(VersionTable, EmptyTableIsValid) {
  VersionTable t(0, 2);
  EXPECT_EQ(t.objects(), 0u);
}

}  // namespace
}  // namespace erails::sim
