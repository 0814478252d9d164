#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "devices/rng.h"

namespace erails::sim {
namespace {

// The simulator's determinism rests on this order: by time, then by scheduling order.
TEST(EventQueue, PopsByTimeThenSchedulingOrder) {
  EventQueue q;
  devices::Rng rng(7);
  std::vector<std::tuple<double, uint64_t>> expected;
  // Coarse times so that many events tie; 0 and -0.0 must tie too.
  for (uint64_t i = 0; i < 5000; ++i) {
    double t = static_cast<double>(rng.below(50)) * 0.25;
    if (i % 97 == 0) t = (i % 2) ? -0.0 : 0.0;
    q.schedule(t, 0, 0, i);
    expected.emplace_back(t == 0 ? 0.0 : t, i);
  }
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& x, const auto& y) { return std::get<0>(x) < std::get<0>(y); });
  for (const auto& [time, id] : expected) {
    ASSERT_FALSE(q.empty());
    const Event e = q.pop();
    EXPECT_EQ(e.time, time);
    EXPECT_EQ(e.b, id);
    EXPECT_EQ(q.now(), time);
  }
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, InterleavedScheduleAndPopKeepOrder) {
  EventQueue q;
  devices::Rng rng(11);
  double last_time = 0;
  uint64_t last_seq = 0;
  bool first = true;
  for (int round = 0; round < 20000; ++round) {
    // Schedule 0-2 events at or after now, then pop one, as the simulator's handlers do.
    for (int j = static_cast<int>(rng.below(3)); j > 0; --j)
      q.schedule(q.now() + static_cast<double>(rng.below(4)) * 1e-3, 1, 0, 0);
    if (q.empty()) continue;
    const Event e = q.pop();
    EXPECT_TRUE(first || e.time > last_time || (e.time == last_time && e.seq > last_seq));
    first = false;
    last_time = e.time;
    last_seq = e.seq;
  }
}

}  // namespace
}  // namespace erails::sim
