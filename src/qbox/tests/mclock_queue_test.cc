#include "qbox/mclock_queue.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

namespace erails::qbox {
namespace {

using Queue = MClockQueue<std::string, int>;

// Serves a saturated queue at `capacity` requests/s for `seconds` and counts requests per client.
std::map<std::string, int> serve(Queue& queue, double capacity, Seconds seconds) {
  std::map<std::string, int> served;
  Seconds now = 0;
  while (now < seconds) {
    auto next = queue.dequeue(now);
    now += 1.0 / capacity;
    if (!next) continue;
    queue.on_completion();
    ++served[next->client];
    EXPECT_TRUE(queue.enqueue(next->client, 0, 1, now));
  }
  return served;
}

void fill(Queue& queue, const std::vector<std::string>& clients) {
  for (const auto& c : clients) {
    for (int k = 0; k < 4; ++k) ASSERT_TRUE(queue.enqueue(c, k, 1, 0));
  }
}

TEST(MClockQueue, ReservationIsMetAndSpareGoesByWeight) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("reserved", MClockSettings{300, 1, 0}));
  ASSERT_TRUE(queue.add_client("heavy", MClockSettings{0, 3, 0}));
  ASSERT_TRUE(queue.add_client("light", MClockSettings{0, 1, 0}));
  fill(queue, {"reserved", "heavy", "light"});
  const auto served = serve(queue, 1000, 10);
  // mClock gives max(reservation, weighted share): the reserved client's proportion tags advance
  // with its reservation service (300/s > its 1/5 share of 1000/s), so the spare 700/s goes to the
  // others 3:1.
  EXPECT_NEAR(served.at("reserved") / 10.0, 300, 10);
  EXPECT_NEAR(served.at("heavy") / 10.0, 525, 10);
  EXPECT_NEAR(served.at("light") / 10.0, 175, 10);
}

TEST(MClockQueue, LimitCapsAClient) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("capped", MClockSettings{0, 10, 100}));
  ASSERT_TRUE(queue.add_client("other", MClockSettings{0, 1, 0}));
  fill(queue, {"capped", "other"});
  const auto served = serve(queue, 1000, 10);
  EXPECT_NEAR(served.at("capped") / 10.0, 100, 5);
  EXPECT_NEAR(served.at("other") / 10.0, 900, 10);
}

TEST(MClockQueue, OverLimitQueueReportsWhenToRetry) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("capped", MClockSettings{0, 1, 10}));
  ASSERT_TRUE(queue.enqueue("capped", 1, 1, 0));
  ASSERT_TRUE(queue.enqueue("capped", 2, 1, 0));
  EXPECT_TRUE(queue.dequeue(0));
  EXPECT_FALSE(queue.dequeue(0.05));
  EXPECT_DOUBLE_EQ(queue.next_ready(), 0.1);
  EXPECT_EQ(queue.dequeue(0.1)->request, 2);
}

TEST(MClockQueue, RejectsBadSettingsNamingTheField) {
  Queue queue;
  EXPECT_EQ(queue.add_client("a", MClockSettings{-1, 1, 0}).error().key, "reservation");
  EXPECT_EQ(queue.add_client("a", MClockSettings{0, 0, 0}).error().key, "weight");
  EXPECT_EQ(queue.add_client("a", MClockSettings{0, NAN, 0}).error().key, "weight");
  EXPECT_EQ(queue.add_client("a", MClockSettings{0, 1, -5}).error().key, "limit");
  EXPECT_EQ(queue.add_client("a", MClockSettings{100, 1, 50}).error().key, "limit");
  ASSERT_TRUE(queue.add_client("a", MClockSettings{}));
  EXPECT_EQ(queue.add_client("a", MClockSettings{}).error().key, "client");
  EXPECT_EQ(queue.enqueue("b", 1, 1, 0).error().key, "client");
  EXPECT_EQ(queue.enqueue("a", 1, -1, 0).error().key, "cost");
  EXPECT_EQ(queue.set_settings("b", MClockSettings{}).error().key, "client");
  ASSERT_TRUE(queue.enqueue("a", 1, 1, 0));
  EXPECT_EQ(queue.remove_client("a").error().key, "client");
}

TEST(MClockQueue, DumpsStateAsJson) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("a", MClockSettings{10, 2, 0}));
  ASSERT_TRUE(queue.enqueue("a", 1, 1, 0));
  EXPECT_EQ(queue.dump_json(),
            "{\"scheduler\":\"mclock\",\"queued\":1,\"in_flight\":0,\"max_in_flight\":0,"
            "\"clients\":[{\"id\":\"a\",\"reservation\":10,\"weight\":2,\"limit\":0,\"queued\":1,"
            "\"head\":{\"reservation\":0,\"proportion\":0,\"limit\":0}}]}");
}

}  // namespace
}  // namespace erails::qbox
