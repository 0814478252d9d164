#include "sim/held_writes.h"

#include <gtest/gtest.h>

namespace erails::sim {
namespace {

HeldWrite write_of(uint64_t object, uint32_t bytes) { return {object, 1, bytes, 0, 0}; }

TEST(HeldWrites, AdmitsWithinTheBudgetAndQueuesTheRestInOrder) {
  HeldWrites h(100);
  EXPECT_TRUE(h.admit({1, 0, 60}));
  EXPECT_FALSE(h.admit({2, 0, 60}));  // does not fit
  EXPECT_FALSE(h.admit({3, 0, 10}));  // would fit, but 2 came first
  EXPECT_EQ(h.held_bytes(), 60);
  EXPECT_EQ(h.waiting(), 2u);
  EXPECT_FALSE(h.admit_waiting());
  h.hold(write_of(1, 60));
  ASSERT_TRUE(h.start_apply(4));
  h.applied(60);
  const auto second = h.admit_waiting();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->request, 2u);
  const auto third = h.admit_waiting();
  ASSERT_TRUE(third);
  EXPECT_EQ(third->request, 3u);
  EXPECT_EQ(h.held_bytes(), 70);
  EXPECT_EQ(h.waiting(), 0u);
}

TEST(HeldWrites, AppliesOldestFirstAtMostDepthAtATime) {
  HeldWrites h(1000);
  for (uint64_t o = 0; o < 3; ++o) {
    ASSERT_TRUE(h.admit({o, 0, 10}));
    h.hold(write_of(o, 10));
  }
  EXPECT_EQ(h.start_apply(2)->object, 0u);
  EXPECT_EQ(h.start_apply(2)->object, 1u);
  EXPECT_FALSE(h.start_apply(2));  // two applying
  EXPECT_EQ(h.applying(), 2);
  h.applied(10);
  EXPECT_EQ(h.held_bytes(), 20);
  EXPECT_EQ(h.start_apply(2)->object, 2u);
  EXPECT_EQ(h.held(), 0u);
}

TEST(HeldWrites, AWritePutBackIsTheFirstToApplyNextTime) {
  HeldWrites h(1000);
  for (uint64_t o = 0; o < 2; ++o) h.hold(write_of(o, 10));
  const auto first = h.start_apply(4);
  h.put_back(*first);
  EXPECT_EQ(h.applying(), 0);
  EXPECT_EQ(h.start_apply(4)->object, 0u);
  EXPECT_EQ(h.start_apply(4)->object, 1u);
}

TEST(HeldWrites, AFailureDropsHeldAndWaitingButNotWritesBeingApplied) {
  HeldWrites h(30);
  for (uint64_t o = 0; o < 3; ++o) {
    ASSERT_TRUE(h.admit({o, 0, 10}));
    h.hold(write_of(o, 10));
  }
  EXPECT_FALSE(h.admit({7, 1, 10}));
  ASSERT_TRUE(h.start_apply(4));
  const auto [writes, bytes] = h.drop_held();
  EXPECT_EQ(writes, 2u);
  EXPECT_EQ(bytes, 20);
  EXPECT_EQ(h.held_bytes(), 10);  // the write being applied
  const auto waiting = h.drop_waiting();
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_EQ(waiting.front().request, 7u);
  EXPECT_EQ(h.waiting(), 0u);
  h.applied(10);
  EXPECT_EQ(h.held_bytes(), 0);
}

TEST(HeldWrites, ReleaseReturnsReservedBytes) {
  HeldWrites h(10);
  ASSERT_TRUE(h.admit({1, 0, 10}));
  h.release(10);
  EXPECT_TRUE(h.admit({2, 0, 10}));
}

}  // namespace
}  // namespace erails::sim
