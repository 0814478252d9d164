#include "sim/placement.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace erails::sim {
namespace {

TEST(Placement, ShardIIsOnColorIAndAPgKeepsItsOsds) {
  const int per_color = 5;
  Placement p(16, per_color);
  for (uint64_t o = 0; o < 1000; ++o)
    for (int s = 0; s < 6; ++s) EXPECT_EQ(p.osd_of(o, s) / per_color, s);
  // Objects of one PG share their OSDs: 16 PGs give at most 16 distinct OSD tuples.
  std::set<std::vector<int>> tuples;
  for (uint64_t o = 0; o < 1000; ++o) tuples.insert({p.osd_of(o, 0), p.osd_of(o, 1), p.osd_of(o, 2)});
  EXPECT_LE(tuples.size(), 16u);
}

TEST(Placement, ObjectsSpreadOverEveryOsdOfAColor) {
  Placement p(4096, 8);
  std::vector<int> count(8);
  for (uint64_t o = 0; o < 80000; ++o) count[p.osd_of(o, 0)]++;
  for (int n : count) EXPECT_NEAR(n, 10000, 2500);
}

}  // namespace
}  // namespace erails::sim
