#include "sim/streams.h"

#include <gtest/gtest.h>

namespace erails::sim {
namespace {

StreamConfig stream(StreamKind kind, uint64_t objects) {
  StreamConfig s;
  s.kind = kind;
  s.objects = objects;
  return s;
}

TEST(Streams, RangesAreDisjointAndConsecutiveInConfigOrder) {
  StreamConfig a = stream(StreamKind::kClosed, 10);
  a.sequential = true;
  StreamConfig b = stream(StreamKind::kClosed, 5);
  b.sequential = true;
  const std::vector<StreamConfig> configs{a, b};
  Streams streams(configs, {});
  devices::Rng rng(1);
  EXPECT_EQ(streams.objects(), 15u);
  for (uint64_t i = 0; i < 12; ++i) EXPECT_EQ(streams.next(0, 0, rng).request.object, i % 10);
  for (uint64_t i = 0; i < 7; ++i) EXPECT_EQ(streams.next(1, 0, rng).request.object, 10 + i % 5);
}

TEST(Streams, ClosedStreamsStartAllTheirRequestsAndScheduleNoArrival) {
  StreamConfig s = stream(StreamKind::kClosed, 100);
  s.outstanding = 3;
  s.start = 2;
  const std::vector<StreamConfig> configs{s};
  Streams streams(configs, {});
  devices::Rng rng(1);
  EXPECT_EQ(streams.first_arrivals(0, rng), (std::vector<double>{2, 2, 2}));
  const Arrival a = streams.next(0, 2, rng);
  EXPECT_FALSE(a.next_at);
  EXPECT_EQ(a.request.operation, Operation::read);  // read_fraction 1
  EXPECT_EQ(a.request.bytes, s.size);
  EXPECT_LT(a.request.object, 100u);
}

TEST(Streams, ReadOnlyStreamsDrawOnlyTheObject) {
  // The choice of read or write is not drawn when there is none to make, so a read-only stream's
  // objects are the generator's draws one for one.
  const std::vector<StreamConfig> configs{stream(StreamKind::kClosed, 1000)};
  Streams streams(configs, {});
  devices::Rng rng(7), same(7);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(streams.next(0, 0, rng).request.object, same.below(1000));
}

TEST(Streams, OpenStreamsArriveAtTheirRate) {
  StreamConfig s = stream(StreamKind::kOpen, 100);
  s.rate = 1000;
  s.read_fraction = 0.25;
  const std::vector<StreamConfig> configs{s};
  Streams streams(configs, {});
  devices::Rng rng(3);
  double now = streams.first_arrivals(0, rng).at(0);
  int reads = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const Arrival a = streams.next(0, now, rng);
    ASSERT_TRUE(a.next_at);
    ASSERT_GE(*a.next_at, now);
    now = *a.next_at;
    reads += a.request.operation == Operation::read;
  }
  EXPECT_NEAR(now, n / 1000.0, 0.5);
  EXPECT_NEAR(reads / static_cast<double>(n), 0.25, 0.02);
}

TEST(Streams, TracesReplayTheirRecordsMappedToTheStreamsObjects) {
  StreamConfig s = stream(StreamKind::kTrace, 4);
  s.trace = "t.csv";
  s.size = 4096;
  s.start = 1;
  s.trace_speed = 2;
  const std::vector<StreamConfig> configs{stream(StreamKind::kClosed, 10), s};
  const Traces traces{{"t.csv", {{0, Operation::write, 5 * 4096, 512}, {4, Operation::read, 4096, 8192}}}};
  Streams streams(configs, traces);
  devices::Rng rng(1);
  EXPECT_EQ(streams.first_arrivals(1, rng), (std::vector<double>{1}));
  const Arrival first = streams.next(1, 1, rng);
  EXPECT_EQ(first.request.operation, Operation::write);
  EXPECT_EQ(first.request.object, 10u + 5 % 4);  // after stream 0's 10 objects
  EXPECT_EQ(first.request.bytes, 512u);           // the record's size, not the stream's
  ASSERT_TRUE(first.next_at);
  EXPECT_EQ(*first.next_at, 1 + 4 / 2.0);
  const Arrival second = streams.next(1, 3, rng);
  EXPECT_EQ(second.request.object, 11u);
  EXPECT_FALSE(second.next_at);  // the trace is over
}

TEST(Streams, IssueStopsAtStopDurationOrMaxRequests) {
  StreamConfig s = stream(StreamKind::kClosed, 100);
  s.stop = 5;
  s.max_requests = 2;
  const std::vector<StreamConfig> configs{s};
  Streams streams(configs, {});
  devices::Rng rng(1);
  EXPECT_TRUE(streams.may_issue(0, 0, 10));
  EXPECT_FALSE(streams.may_issue(0, 5, 10));  // its stop
  EXPECT_FALSE(streams.may_issue(0, 4, 4));   // the clients' end
  streams.next(0, 0, rng);
  EXPECT_TRUE(streams.may_issue(0, 0, 10));
  streams.next(0, 0, rng);
  EXPECT_FALSE(streams.may_issue(0, 0, 10));  // max_requests issued
}

}  // namespace
}  // namespace erails::sim
