#include "qbox/qbox_queue.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>

namespace erails::qbox {
namespace {

using Queue = QBoxQueue<std::string, int>;

TEST(QBoxQueue, RelativeDeadlineIsCostOverUtilizationAndAccumulates) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("a", 0.25));
  ASSERT_TRUE(queue.enqueue("a", 1, 0.002, 0));
  ASSERT_TRUE(queue.enqueue("a", 2, 0.001, 0));
  auto first = queue.dequeue(0);
  ASSERT_TRUE(first);
  EXPECT_DOUBLE_EQ(first->tag.relative, 0.008);
  EXPECT_DOUBLE_EQ(first->tag.absolute, 0.008);
  auto second = queue.dequeue(0);
  ASSERT_TRUE(second);
  EXPECT_DOUBLE_EQ(second->tag.relative, 0.004);
  EXPECT_DOUBLE_EQ(second->tag.absolute, 0.012);
}

TEST(QBoxQueue, DispatchesInEarliestDeadlineOrderAcrossClients) {
  Queue queue;
  // Powers of two keep the deadlines exact so the ties below are real ties.
  ASSERT_TRUE(queue.add_client("slow", 0.25));
  ASSERT_TRUE(queue.add_client("fast", 0.5));
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(queue.enqueue("slow", 100 + k, 0.125, 0));  // deadlines 0.5, 1, 1.5
    ASSERT_TRUE(queue.enqueue("fast", k, 0.25, 0));         // deadlines 0.5, 1, 1.5
  }
  ASSERT_TRUE(queue.enqueue("fast", 3, 0.125, 0));  // 1.75
  std::vector<int> order;
  Seconds previous = 0;
  while (auto next = queue.dequeue(0)) {
    EXPECT_GE(next->tag.absolute, previous);
    previous = next->tag.absolute;
    order.push_back(next->request);
  }
  // Ties break on registration order ("slow" first), deadlines otherwise.
  EXPECT_EQ(order, (std::vector<int>{100, 0, 101, 1, 102, 2, 3}));
}

TEST(QBoxQueue, FifoWithinAClientEvenWhenLaterRequestsAreCheaper) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("a", 0.5));
  ASSERT_TRUE(queue.enqueue("a", 1, 0.01, 0));
  ASSERT_TRUE(queue.enqueue("a", 2, 0.0, 0));
  EXPECT_EQ(queue.dequeue(0)->request, 1);
  EXPECT_EQ(queue.dequeue(0)->request, 2);
}

TEST(QBoxQueue, BackloggedClientsShareDeviceTimeByUtilization) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("seq", 0.3));
  ASSERT_TRUE(queue.add_client("rand", 0.7));
  const std::map<std::string, Seconds> cost{{"seq", 0.0002}, {"rand", 0.008}};
  std::map<std::string, Seconds> time_used;
  for (int k = 0; k < 8; ++k) {
    ASSERT_TRUE(queue.enqueue("seq", k, cost.at("seq"), 0));
    ASSERT_TRUE(queue.enqueue("rand", k, cost.at("rand"), 0));
  }
  for (int served = 0; served < 20000; ++served) {
    auto next = queue.dequeue(0);
    ASSERT_TRUE(next);
    queue.on_completion();
    time_used[next->client] += cost.at(next->client);
    ASSERT_TRUE(queue.enqueue(next->client, 0, cost.at(next->client), 0));
  }
  const Seconds total = time_used["seq"] + time_used["rand"];
  EXPECT_NEAR(time_used["seq"] / total, 0.3, 0.01);
  EXPECT_NEAR(time_used["rand"] / total, 0.7, 0.01);
}

TEST(QBoxQueue, IdleClientIsBroughtForwardToTheFrontierAndBanksNoCredit) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("busy", 0.5));
  ASSERT_TRUE(queue.add_client("idle", 0.5));
  for (int k = 0; k < 100; ++k) ASSERT_TRUE(queue.enqueue("busy", k, 0.01, 0));
  for (int k = 0; k < 50; ++k) queue.dequeue(0);
  EXPECT_DOUBLE_EQ(queue.frontier(), 1.0);  // 50 x 0.01 / 0.5
  ASSERT_TRUE(queue.enqueue("idle", 7, 0.01, 0));
  // Without the rule its deadline would be 0.02 and it could take 50 requests' worth of time.
  auto next = queue.dequeue(0);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->client, "busy");  // both heads are at 1.02; the tie breaks on registration order
  auto after = queue.dequeue(0);
  EXPECT_EQ(after->client, "idle");
  EXPECT_DOUBLE_EQ(after->tag.absolute, 1.02);
}

TEST(QBoxQueue, NewClientStartsAtTheFrontier) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("a", 1.0));
  for (int k = 0; k < 10; ++k) ASSERT_TRUE(queue.enqueue("a", k, 0.1, 0));
  for (int k = 0; k < 10; ++k) queue.dequeue(0);
  ASSERT_TRUE(queue.add_client("late", 1.0));
  ASSERT_TRUE(queue.enqueue("late", 1, 0.1, 0));
  EXPECT_NEAR(queue.dequeue(0)->tag.absolute, 1.1, 1e-12);
}

TEST(QBoxQueue, DispatchDepthIsBounded) {
  Queue queue(2);
  ASSERT_TRUE(queue.add_client("a", 1.0));
  for (int k = 0; k < 4; ++k) ASSERT_TRUE(queue.enqueue("a", k, 0.001, 0));
  EXPECT_TRUE(queue.dequeue(0));
  EXPECT_TRUE(queue.dequeue(0));
  EXPECT_FALSE(queue.dequeue(0));
  EXPECT_EQ(queue.in_flight(), 2u);
  queue.on_completion();
  EXPECT_TRUE(queue.dequeue(0));
  EXPECT_EQ(queue.size(), 1u);
}

TEST(QBoxQueue, UtilizationChangeAppliesToLaterRequests) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("a", 0.5));
  ASSERT_TRUE(queue.enqueue("a", 1, 0.01, 0));
  ASSERT_TRUE(queue.set_utilization("a", 0.1));
  ASSERT_TRUE(queue.enqueue("a", 2, 0.01, 0));
  EXPECT_DOUBLE_EQ(queue.dequeue(0)->tag.relative, 0.02);
  EXPECT_DOUBLE_EQ(queue.dequeue(0)->tag.relative, 0.1);
}

TEST(QBoxQueue, ChargeMovesTheClientsLaterDeadlines) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("a", 0.5));
  ASSERT_TRUE(queue.add_client("b", 0.5));
  ASSERT_TRUE(queue.enqueue("a", 1, 0.25, 0));  // deadline 0.5
  EXPECT_EQ(queue.dequeue(0)->request, 1);
  ASSERT_TRUE(queue.charge("a", 0.5));  // the request cost 0.5 s more: T = 0.5 + 1
  ASSERT_TRUE(queue.enqueue("a", 2, 0.25, 0));  // 2.0
  ASSERT_TRUE(queue.enqueue("b", 3, 0.5, 0));   // from the frontier 0.5: 1.5
  EXPECT_EQ(queue.dequeue(0)->request, 3);
  const auto charged = queue.dequeue(0);
  EXPECT_EQ(charged->request, 2);
  EXPECT_DOUBLE_EQ(charged->tag.absolute, 2.0);
  ASSERT_TRUE(queue.enqueue("a", 4, 0.25, 0));  // 2.5
  ASSERT_TRUE(queue.charge("a", -0.25));        // a refund moves T back to 2.0
  ASSERT_TRUE(queue.enqueue("a", 5, 0.25, 0));  // 2.5, not 3.0
  EXPECT_DOUBLE_EQ(queue.dequeue(0)->tag.absolute, 2.5);
  EXPECT_DOUBLE_EQ(queue.dequeue(0)->tag.absolute, 2.5);
  EXPECT_EQ(queue.charge("ghost", 0.1).error().key, "client");
  EXPECT_EQ(queue.charge("a", std::nan("")).error().key, "cost");
}

TEST(QBoxQueue, RepriceTagsTheQueuedRequestsAgain) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("w", 0.5));
  ASSERT_TRUE(queue.add_client("r", 0.5));
  ASSERT_TRUE(queue.charge("w", 1.0));  // w starts 2 s later: T = 2
  // Tagged at a price four times too high: 4, 6, 8.
  for (int request = 1; request <= 3; ++request) ASSERT_TRUE(queue.enqueue("w", request, 1.0, 0));
  ASSERT_TRUE(queue.enqueue("r", 10, 0.5, 0));  // 1
  EXPECT_EQ(queue.dequeue(0)->request, 10);      // the frontier: 1
  // The queued requests at 0.25 s, except request 3 whose price is kept.
  const auto recost = [](int& request) -> std::optional<Seconds> {
    if (request == 3) return std::nullopt;
    request += 100;
    return 0.25;
  };
  ASSERT_TRUE(queue.reprice("w", recost));
  ASSERT_TRUE(queue.enqueue("r", 11, 0.6, 0));  // from the frontier 1: 2.2
  // w's first interval began at 2: 2.5, 3, then request 3's 2 s: 5.
  auto next = queue.dequeue(0);
  EXPECT_EQ(next->request, 11);
  next = queue.dequeue(0);
  EXPECT_EQ(next->request, 101);
  EXPECT_DOUBLE_EQ(next->tag.absolute, 2.5);
  next = queue.dequeue(0);
  EXPECT_EQ(next->request, 102);
  EXPECT_DOUBLE_EQ(next->tag.absolute, 3.0);
  ASSERT_TRUE(queue.enqueue("w", 4, 0.25, 0));  // after request 3: 5.5
  next = queue.dequeue(0);
  EXPECT_EQ(next->request, 3);
  EXPECT_DOUBLE_EQ(next->tag.absolute, 5.0);
  EXPECT_DOUBLE_EQ(queue.dequeue(0)->tag.absolute, 5.5);
  // With nothing queued there is nothing to tag.
  ASSERT_TRUE(queue.reprice("w", recost));
  ASSERT_TRUE(queue.enqueue("w", 5, 0.25, 0));
  EXPECT_DOUBLE_EQ(queue.dequeue(0)->tag.absolute, 6.0);
  EXPECT_EQ(queue.reprice("ghost", recost).error().key, "client");
}

// Clients w and r, half the device each, have had one request each served (w's cost 0.5 s, r's
// 1 s): the frontier is at 2.
void serve_one_request_each(Queue& queue) {
  ASSERT_TRUE(queue.add_client("w", 0.5));
  ASSERT_TRUE(queue.add_client("r", 0.5));
  ASSERT_TRUE(queue.enqueue("w", 1, 0.5, 0));   // 1
  ASSERT_TRUE(queue.enqueue("r", 10, 1.0, 0));  // 2
  EXPECT_EQ(queue.dequeue(0)->request, 1);
  EXPECT_EQ(queue.dequeue(0)->request, 10);
}

// Tagged cheaper, a client's head never goes before the other clients' heads, where it would be
// served before everyone until it caught up; with nobody else queued, not before the frontier.
TEST(QBoxQueue, TaggedCheaperAHeadGoesBackOnlyToTheOthersHeads) {
  Queue queue;
  serve_one_request_each(queue);
  ASSERT_TRUE(queue.enqueue("w", 2, 2.0, 0));   // 6
  ASSERT_TRUE(queue.enqueue("r", 11, 0.5, 0));  // 3
  Seconds price = 0.25;
  const auto recost = [&price](int&) -> std::optional<Seconds> { return price; };
  // At 0.25 s w's head would be 2.5: it goes back only to r's head.
  ASSERT_TRUE(queue.reprice("w", recost));
  EXPECT_DOUBLE_EQ(queue.dequeue(0)->tag.absolute, 3.0);
  EXPECT_DOUBLE_EQ(queue.dequeue(0)->tag.absolute, 3.0);  // the frontier: 3
  ASSERT_TRUE(queue.enqueue("w", 3, 2.0, 0));   // 7
  ASSERT_TRUE(queue.enqueue("r", 12, 0.5, 0));  // 4
  EXPECT_EQ(queue.dequeue(0)->request, 12);     // the frontier: 4
  // Nobody else queued: at 0.1 s w's head would be 3.2, before the frontier.
  price = 0.1;
  ASSERT_TRUE(queue.reprice("w", recost));
  EXPECT_DOUBLE_EQ(queue.dequeue(0)->tag.absolute, 4.0);
}

// What a cheaper tag could not give back pays for the client's next requests tagged dearer: else
// a price that fell and rose back would leave the client later by what the floor kept, at every
// swing (bench/qbox/README.md, "Re-pricing only what is queued").
TEST(QBoxQueue, WhatACheaperTagCouldNotGiveBackPaysForDearerOnes) {
  Queue queue;
  serve_one_request_each(queue);
  ASSERT_TRUE(queue.enqueue("w", 2, 1.0, 0));   // 4
  ASSERT_TRUE(queue.enqueue("r", 11, 0.6, 0));  // 3.2
  Seconds price = 0.25;
  const auto recost = [&price](int&) -> std::optional<Seconds> { return price; };
  // Cheaper, w's head would go to 2.5; it stops at r's 3.2, and 0.35 s is kept.
  ASSERT_TRUE(queue.reprice("w", recost));
  // Back to the first price the head would go to 4.7; the 0.35 s kept brings it back to 4, where
  // it was before the price swung.
  price = 1.0;
  ASSERT_TRUE(queue.reprice("w", recost));
  EXPECT_EQ(queue.dequeue(0)->request, 11);
  auto next = queue.dequeue(0);
  EXPECT_EQ(next->request, 2);
  EXPECT_DOUBLE_EQ(next->tag.absolute, 4.0);
  // Nothing is kept any more: tagged dearer, w's head moves whole, from 5 to 6.
  ASSERT_TRUE(queue.enqueue("w", 3, 0.5, 0));
  ASSERT_TRUE(queue.reprice("w", recost));
  next = queue.dequeue(0);
  EXPECT_EQ(next->request, 3);
  EXPECT_DOUBLE_EQ(next->tag.absolute, 6.0);
}

TEST(QBoxQueue, DequeuePreferringBendsEarliestDeadlineFirstByAtMostTheSlack) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("a", 0.5));
  ASSERT_TRUE(queue.add_client("b", 0.5));
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(queue.enqueue("a", k, 0.125, 0));       // deadlines 0.25, 0.5, 0.75
    ASSERT_TRUE(queue.enqueue("b", 10 + k, 0.125, 0));  // the same
  }
  ASSERT_NE(queue.head("b"), nullptr);
  EXPECT_EQ(*queue.head("b"), 10);
  EXPECT_EQ(queue.head("ghost"), nullptr);
  std::vector<int> order;
  for (int k = 0; k < 6; ++k) order.push_back(queue.dequeue_preferring("b", 0.3, 0)->request);
  // b runs while its head is within 0.3 s of a's (0.25): 0.25 and 0.5 yes, 0.75 not until a moves.
  EXPECT_EQ(order, (std::vector<int>{10, 11, 0, 12, 1, 2}));
  EXPECT_EQ(queue.head("b"), nullptr);
  EXPECT_FALSE(queue.dequeue_preferring("b", 0.3, 0));
}

TEST(QBoxQueue, DequeueEarliestWhereTakesTheEarliestEligibleHead) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("writer", 0.5));
  ASSERT_TRUE(queue.add_client("reader", 0.25));
  ASSERT_TRUE(queue.add_client("other", 0.25));
  ASSERT_TRUE(queue.enqueue("writer", 1, 0.125, 0));   // deadline 0.25
  ASSERT_TRUE(queue.enqueue("reader", -2, 0.125, 0));  // 0.5
  ASSERT_TRUE(queue.enqueue("other", -3, 0.25, 0));    // 1
  ASSERT_TRUE(queue.enqueue("other", -4, 0.0, 0));     // 1
  const auto negative = [](int request) { return request < 0; };
  ASSERT_NE(queue.earliest_where(negative), nullptr);
  EXPECT_EQ(*queue.earliest_where(negative), "reader");
  EXPECT_EQ(queue.dequeue_earliest_where(negative, 0)->request, -2);
  EXPECT_EQ(queue.dequeue_earliest_where(negative, 0)->request, -3);
  EXPECT_EQ(queue.dequeue_earliest_where(negative, 0)->request, -4);
  // Only the writer's head is left, and it is not eligible; it stays for dequeue().
  EXPECT_EQ(queue.earliest_where(negative), nullptr);
  EXPECT_FALSE(queue.dequeue_earliest_where(negative, 0));
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue.dequeue(0)->request, 1);
}

TEST(QBoxQueue, RejectsInvalidUtilizations) {
  Queue queue;
  for (double bad : {0.0, -0.5, 1.5, std::nan(""), std::numeric_limits<double>::infinity()}) {
    const Status status = queue.add_client("a", bad);
    ASSERT_FALSE(status) << bad;
    EXPECT_EQ(status.error().key, "utilization");
    EXPECT_NE(status.error().message.find("(0, 1]"), std::string::npos);
  }
  ASSERT_TRUE(queue.add_client("a", 1.0));
  EXPECT_EQ(queue.set_utilization("a", 2.0).error().key, "utilization");
}

TEST(QBoxQueue, RejectsUnknownAndDuplicateClients) {
  Queue queue;
  const Status unknown = queue.enqueue("ghost", 1, 0.001, 0);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().key, "client");
  EXPECT_NE(unknown.error().message.find("ghost"), std::string::npos);
  EXPECT_FALSE(queue.set_utilization("ghost", 0.5));
  EXPECT_FALSE(queue.remove_client("ghost"));
  ASSERT_TRUE(queue.add_client("a", 0.5));
  EXPECT_EQ(queue.add_client("a", 0.5).error().key, "client");
}

TEST(QBoxQueue, RejectsBadCostHints) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("a", 0.5));
  for (double bad : {-1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    const Status status = queue.enqueue("a", 1, bad, 0);
    ASSERT_FALSE(status);
    EXPECT_EQ(status.error().key, "cost");
  }
  EXPECT_TRUE(queue.empty());
}

TEST(QBoxQueue, RemovingAClientNeedsAnEmptyQueueAndFreesItsSlot) {
  Queue queue;
  ASSERT_TRUE(queue.add_client("a", 0.5));
  ASSERT_TRUE(queue.enqueue("a", 1, 0.001, 0));
  const Status busy = queue.remove_client("a");
  ASSERT_FALSE(busy);
  EXPECT_NE(busy.error().message.find("1 queued"), std::string::npos);
  queue.dequeue(0);
  ASSERT_TRUE(queue.remove_client("a"));
  EXPECT_EQ(queue.client_count(), 0u);
  ASSERT_TRUE(queue.add_client("b", 0.5));
  ASSERT_TRUE(queue.enqueue("b", 2, 0.001, 0));
  EXPECT_EQ(queue.dequeue(0)->client, "b");
}

TEST(QBoxQueue, EnqueueFrontPutsARequeuedRequestFirstWithoutChargingAgain) {
  Queue queue(1);
  ASSERT_TRUE(queue.add_client("a", 0.5));
  ASSERT_TRUE(queue.enqueue("a", 1, 0.01, 0));
  ASSERT_TRUE(queue.enqueue("a", 2, 0.01, 0));
  auto first = queue.dequeue(0);
  EXPECT_FALSE(queue.dequeue(0));  // depth 1 reached
  ASSERT_TRUE(queue.enqueue_front("a", std::move(first->request), 0));
  EXPECT_EQ(queue.in_flight(), 0u);
  const auto again = queue.dequeue(0);
  EXPECT_EQ(again->request, 1);
  EXPECT_DOUBLE_EQ(again->tag.absolute, 0.04);  // the head's deadline, not a new charge
  queue.on_completion();
  EXPECT_EQ(queue.dequeue(0)->request, 2);
  EXPECT_EQ(queue.enqueue_front("ghost", 3, 0).error().key, "client");
}

TEST(QBoxQueue, DumpsStateAsJson) {
  Queue queue(8);
  ASSERT_TRUE(queue.add_client("a\"1", 0.5));
  ASSERT_TRUE(queue.add_client("b", 0.25));
  ASSERT_TRUE(queue.enqueue("a\"1", 1, 0.001, 0));
  EXPECT_EQ(queue.dump_json(),
            "{\"scheduler\":\"qbox\",\"queued\":1,\"in_flight\":0,\"max_in_flight\":8,"
            "\"frontier\":null,\"clients\":["
            "{\"id\":\"a\\\"1\",\"utilization\":0.5,\"accumulated_deadline\":0.002,\"queued\":1,"
            "\"head_deadline\":0.002},"
            "{\"id\":\"b\",\"utilization\":0.25,\"accumulated_deadline\":0,\"queued\":0,"
            "\"head_deadline\":null}]}");
}

}  // namespace
}  // namespace erails::qbox
