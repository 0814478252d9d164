#include "qbox_osd/retry_waiters.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace erails::qbox_osd {
namespace {

constexpr std::uint64_t kFirst = 1;   // the shard's first thread: comes straight back
constexpr std::uint64_t kSecond = 2;  // waits until its retry time

// `thread` is answered "retry in 10 ms" at `now` and comes back `after` later, nothing enqueued.
void answer_and_return(RetryWaiters& waiters, std::uint64_t thread, qbox::Seconds now,
                       qbox::Seconds after, std::uint64_t enqueues = 0) {
  waiters.on_retry(thread, now, now + 0.01, enqueues);
  waiters.on_call(thread, now + after, enqueues);
}

void poll(RetryWaiters& waiters, std::uint64_t thread, int times) {
  for (int i = 0; i < times; ++i) answer_and_return(waiters, thread, i * 1e-5, 2e-6);
}

TEST(RetryWaiters, AThreadThatComesStraightBackPolls) {
  RetryWaiters waiters;
  poll(waiters, kFirst, RetryWaiters::kPollingReturns - 1);
  EXPECT_FALSE(waiters.polls(kFirst));
  poll(waiters, kFirst, 1);
  EXPECT_TRUE(waiters.polls(kFirst));
  EXPECT_EQ(waiters.polling_threads(), 1u);
}

TEST(RetryWaiters, APollerSleepsOnlyWhenAnotherThreadWaitsForTheRetryTime) {
  RetryWaiters waiters;
  poll(waiters, kFirst, RetryWaiters::kPollingReturns);
  EXPECT_FALSE(waiters.may_sleep(kFirst)) << "nobody would wake for the hold's end";
  answer_and_return(waiters, kSecond, 1.0, 0.01);
  EXPECT_TRUE(waiters.may_sleep(kFirst));
  EXPECT_FALSE(waiters.may_sleep(kSecond));
}

TEST(RetryWaiters, APollerAloneOnItsShardIsNotAnsweredRetry) {
  RetryWaiters waiters;
  EXPECT_TRUE(waiters.may_hold(kFirst));
  poll(waiters, kFirst, RetryWaiters::kPollingReturns);
  EXPECT_FALSE(waiters.may_hold(kFirst));
  EXPECT_TRUE(waiters.may_hold(kSecond));
  answer_and_return(waiters, kSecond, 1.0, 0.01);
  EXPECT_TRUE(waiters.may_hold(kFirst));
}

TEST(RetryWaiters, AThreadWokenByAnEnqueueHasWaited) {
  RetryWaiters waiters;
  poll(waiters, kFirst, RetryWaiters::kPollingReturns);
  waiters.on_retry(kSecond, 1.0, 1.01, 0);
  waiters.on_call(kSecond, 1.002, 1);
  EXPECT_TRUE(waiters.may_sleep(kFirst));
}

TEST(RetryWaiters, AThreadWokenEarlyByAnEnqueueOrByACommitDoesNotPoll) {
  RetryWaiters waiters;
  for (int i = 0; i < 3 * RetryWaiters::kPollingReturns; ++i) {
    const qbox::Seconds at = i * 0.02;
    waiters.on_retry(kSecond, at, at + 0.01, i);
    waiters.on_call(kSecond, at + 1e-6, i + 1);  // back at once: an op was enqueued
    waiters.on_retry(kSecond, at + 0.002, at + 0.012, i + 1);
    waiters.on_call(kSecond, at + 0.002 + 2 * RetryWaiters::kQuickReturn, i + 1);  // a commit
  }
  EXPECT_FALSE(waiters.polls(kSecond));
}

TEST(RetryWaiters, QuickReturnsMustComeInARow) {
  RetryWaiters waiters;
  for (int round = 0; round < 10; ++round) {
    poll(waiters, kFirst, RetryWaiters::kPollingReturns - 1);
    answer_and_return(waiters, kFirst, 5.0 + round, 0.02);  // waited until the retry time
  }
  EXPECT_FALSE(waiters.polls(kFirst));
}

TEST(RetryWaiters, APollerThatLaterWaitsIsNoLongerToldToSleep) {
  RetryWaiters waiters;
  poll(waiters, kFirst, RetryWaiters::kPollingReturns);
  answer_and_return(waiters, kSecond, 1.0, 0.01);
  ASSERT_TRUE(waiters.may_sleep(kFirst));
  answer_and_return(waiters, kFirst, 2.0, 0.01);
  EXPECT_FALSE(waiters.may_sleep(kFirst));
}

TEST(RetryWaiters, TwoPollersLeaveNobodyToSleep) {
  RetryWaiters waiters;
  answer_and_return(waiters, kSecond, 0.5, 0.01);
  poll(waiters, kFirst, RetryWaiters::kPollingReturns);
  poll(waiters, kSecond, RetryWaiters::kPollingReturns);
  EXPECT_FALSE(waiters.may_sleep(kFirst));
  EXPECT_FALSE(waiters.may_sleep(kSecond));
}

TEST(RetryWaiters, ACallWithoutAnAnswerPendingChangesNothing) {
  RetryWaiters waiters;
  waiters.on_call(kFirst, 0, 0);  // e.g. a messenger thread's empty() before its enqueue
  EXPECT_EQ(waiters.polling_threads(), 0u);
  EXPECT_FALSE(waiters.polls(kFirst));
}

}  // namespace
}  // namespace erails::qbox_osd
