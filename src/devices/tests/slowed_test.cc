#include <gtest/gtest.h>

#include <limits>
#include <memory>

#include "devices/hdd.h"
#include "devices/slowed.h"
#include "devices/ssd.h"

namespace erails::devices {
namespace {

constexpr IoRequest kRead{Operation::read, 1 << 30, 4096};

SlowedDevice slowed_hdd() { return SlowedDevice(std::make_unique<HddModel>(HddParams{})); }

// The latency of a read on an idle device.
double alone(Device& d, double now) { return d.submit(now, kRead).completion - now; }

TEST(SlowedDevice, NeverSlowedItIsTheModelToTheBit) {
  SsdModel plain{SsdParams{}};
  SlowedDevice wrapped(std::make_unique<SsdModel>(SsdParams{}));
  double now = 0;
  for (int i = 0; i < 2000; ++i) {
    const IoRequest req{i % 3 ? Operation::write : Operation::read, static_cast<uint64_t>(i) * 7919 * 4096, 65536};
    const IoResult a = plain.submit(now, req);
    const IoResult b = wrapped.submit(now, req);
    ASSERT_EQ(a.completion, b.completion) << i;
    ASSERT_EQ(a.gc_wait, b.gc_wait) << i;
    now += 0.0001;
  }
  EXPECT_EQ(plain.drained_at(), wrapped.drained_at());
  EXPECT_EQ(plain.stats().busy_seconds, wrapped.stats().busy_seconds);
}

TEST(SlowedDevice, ARequestAfterTheChangeTakesFactorTimesAsLong) {
  SlowedDevice reference = slowed_hdd();
  const double latency = alone(reference, 100);
  SlowedDevice d = slowed_hdd();
  ASSERT_TRUE(d.set_slowdown(10, 50).ok());
  EXPECT_NEAR(alone(d, 100), 10 * latency, 1e-12);
  EXPECT_DOUBLE_EQ(d.stats().busy_seconds, 10 * reference.stats().busy_seconds);
  // Healthy again: the next request on the idle device takes what it did.
  ASSERT_TRUE(d.set_slowdown(1, 200).ok());
  EXPECT_NEAR(alone(d, 300), latency, 1e-12);
}

TEST(SlowedDevice, WhatWasSubmittedBeforeKeepsItsCompletionAndTheQueueCarriesOver) {
  constexpr IoRequest kOther{Operation::read, 3ull << 30, 4096};
  HddModel reference{HddParams{}};
  const double first = reference.submit(0, kRead).completion;
  const double second_unslowed = reference.submit(first / 2, kOther).completion;
  SlowedDevice d = slowed_hdd();
  ASSERT_EQ(d.submit(0, kRead).completion, first);
  ASSERT_TRUE(d.set_slowdown(4, first / 2).ok());
  EXPECT_EQ(d.drained_at(), first);
  // The next read waits out the first one's remaining half, and its own time, at the new speed.
  const double second = d.submit(first / 2, kOther).completion;
  EXPECT_NEAR(second, first / 2 + 4 * (second_unslowed - first / 2), 1e-12);
  EXPECT_EQ(d.drained_at(), second);
  EXPECT_DOUBLE_EQ(d.slowdown(), 4);
}

TEST(SlowedDevice, AFactorOutsideOneToAThousandIsRefusedAndChangesNothing) {
  SlowedDevice d = slowed_hdd();
  for (const double bad : {0.0, 0.5, -3.0, 1000.5, std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN()}) {
    const Status s = d.set_slowdown(bad, 1);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.error().key, "slowdown");
    EXPECT_NE(s.error().message.find("1..1000"), std::string::npos) << s.error().message;
  }
  EXPECT_EQ(d.slowdown(), 1);
  SlowedDevice reference = slowed_hdd();
  EXPECT_EQ(alone(d, 5), alone(reference, 5));
}

}  // namespace
}  // namespace erails::devices
