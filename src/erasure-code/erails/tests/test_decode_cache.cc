#include "erasure-code/erails/decode_cache.h"

#include <gtest/gtest.h>

#include <thread>

namespace erails {
namespace {

std::shared_ptr<const DecodePlan> plan_of(size_t table_bytes) {
  auto plan = std::make_shared<DecodePlan>();
  plan->tables.assign(table_bytes, 0);
  return plan;
}

DecodeCache::Key key(uint64_t erased) { return {4, 2, erased}; }

TEST(DecodeCache, BuildsOnceThenHits) {
  DecodeCache cache(1 << 20);
  int builds = 0;
  auto build = [&] {
    ++builds;
    return plan_of(256);
  };
  auto first = cache.get(key(1), build);
  auto second = cache.get(key(1), build);
  EXPECT_EQ(first, second);
  EXPECT_EQ(builds, 1);
  const DecodeCacheStats stats = cache.stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.bytes, first->bytes());
}

TEST(DecodeCache, GeometryIsPartOfTheKey) {
  DecodeCache cache(1 << 20);
  auto a = cache.get({4, 2, 1}, [] { return plan_of(1); });
  auto b = cache.get({5, 2, 1}, [] { return plan_of(2); });
  auto c = cache.get({4, 3, 1}, [] { return plan_of(3); });
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(cache.stats().entries, 3u);
}

TEST(DecodeCache, EvictsTheLeastRecentlyUsedToStayWithinCapacity) {
  const size_t one = plan_of(1000)->bytes();
  DecodeCache cache(3 * one);
  for (uint64_t e : {1, 2, 3}) cache.get(key(e), [] { return plan_of(1000); });
  cache.get(key(1), [] { return nullptr; });  // a hit: pattern 1 becomes the most recent
  cache.get(key(4), [] { return plan_of(1000); });
  DecodeCacheStats stats = cache.stats();
  EXPECT_EQ(stats.entries, 3u);
  EXPECT_EQ(stats.evictions, 1u);
  EXPECT_LE(stats.bytes, stats.capacity_bytes);
  int rebuilt = 0;
  auto count = [&] {
    ++rebuilt;
    return plan_of(1000);
  };
  cache.get(key(1), count);
  cache.get(key(3), count);
  cache.get(key(4), count);
  EXPECT_EQ(rebuilt, 0);
  cache.get(key(2), count);  // the one evicted
  EXPECT_EQ(rebuilt, 1);
}

TEST(DecodeCache, KeepsAPlanLargerThanTheCapacityUntilTheNextOne) {
  DecodeCache cache(100);
  auto big = cache.get(key(1), [] { return plan_of(5000); });
  EXPECT_EQ(cache.stats().entries, 1u);
  cache.get(key(2), [] { return plan_of(5000); });
  EXPECT_EQ(cache.stats().entries, 1u);
  EXPECT_EQ(big->tables.size(), 5000u);  // still valid in the caller's hands
}

TEST(DecodeCache, AFailedBuildIsNotCached) {
  DecodeCache cache(1 << 20);
  EXPECT_EQ(cache.get(key(1), [] { return nullptr; }), nullptr);
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_NE(cache.get(key(1), [] { return plan_of(8); }), nullptr);
}

TEST(DecodeCache, ConcurrentCallersAgreeOnOnePlanPerKey) {
  DecodeCache cache(1 << 20);
  std::vector<std::thread> threads;
  std::vector<std::shared_ptr<const DecodePlan>> seen(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) seen[t] = cache.get(key(i % 16), [] { return plan_of(64); });
    });
  for (auto& thread : threads) thread.join();
  const DecodeCacheStats stats = cache.stats();
  EXPECT_EQ(stats.entries, 16u);
  EXPECT_EQ(stats.hits + stats.misses, 8000u);
  for (int t = 0; t < 8; ++t) EXPECT_EQ(seen[t], cache.get(key(999 % 16), [] { return nullptr; }));
}

}  // namespace
}  // namespace erails
