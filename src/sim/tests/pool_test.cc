#include "sim/pool.h"

#include <gtest/gtest.h>

namespace erails::sim {
namespace {

TEST(Pool, ReusesTheLastFreedIdFirst) {
  Pool<int> pool;
  EXPECT_EQ(pool.add(10), 0u);
  EXPECT_EQ(pool.add(11), 1u);
  EXPECT_EQ(pool.add(12), 2u);
  pool.release(0);
  pool.release(2);
  EXPECT_EQ(pool.add(20), 2u);
  EXPECT_EQ(pool.add(21), 0u);
  EXPECT_EQ(pool.add(22), 3u);
  EXPECT_EQ(pool[0], 21);
  EXPECT_EQ(pool[1], 11);
  EXPECT_EQ(pool[2], 20);
}

}  // namespace
}  // namespace erails::sim
