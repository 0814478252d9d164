#include "qbox/shard_queue.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "qbox/share_table.h"

namespace erails::qbox {
namespace {

constexpr RequestClass kRead{Operation::read, Access::random};
constexpr RequestClass kWrite{Operation::write, Access::random};

ShareTable table_of(double alice, double bob) {
  ShareTable table;
  table.epoch = 3;
  table.clients = {{"client.alice", alice, {100, 101}}, {"client.bob", bob, {200}}};
  table.background_recovery = 0.05;
  table.background_best_effort = 0.05;
  return table;
}

OsdSharesConfig config() {
  OsdSharesConfig c;
  c.window = 1.0;
  c.default_cost = 0.001;
  return c;
}

// The items of a 2-OSD cluster as 16.2.15 queued them (doc/dev/ceph-abi.md): a client's 4 KiB
// write and read, a replica sub-op of a 4 KiB write, a peering event, and a class past client.
TEST(OpTraits, FromTheOsdsItems) {
  const OpTraits write = op_traits(3, 4100, 4096, false, false);
  EXPECT_EQ(write.op_class, OpClass::client);
  EXPECT_EQ(write.owner, 4100u);
  EXPECT_EQ(write.request_class.operation, Operation::write);
  EXPECT_EQ(write.bytes, 4096u);
  const OpTraits read = op_traits(3, 4100, 0, false, false);
  EXPECT_EQ(read.request_class.operation, Operation::read);
  EXPECT_EQ(read.bytes, 0u);
  const OpTraits replica = op_traits(2, 1, 4729, false, false);
  EXPECT_EQ(replica.op_class, OpClass::immediate);
  EXPECT_EQ(replica.request_class.operation, Operation::write);
  EXPECT_EQ(replica.bytes, 4729u);
  EXPECT_EQ(op_traits(7, 4100, 0, false, false).op_class, OpClass::client);
}

// 16.2.15's items that start recovery cost osd_recovery_cost (doc/dev/ceph-abi.md); a build whose
// recovery items carry their length keeps it.
TEST(OpTraits, ARecoveryItemIsAWriteOnlyWhereItsCostIsALength) {
  const OpTraits start = op_traits(0, 0, 20971520, false, false);
  EXPECT_EQ(start.op_class, OpClass::background_recovery);
  EXPECT_EQ(start.request_class.operation, Operation::read);
  EXPECT_EQ(start.bytes, 0u);
  const OpTraits push = op_traits(0, 0, 4194304, false, true);
  EXPECT_EQ(push.request_class.operation, Operation::write);
  EXPECT_EQ(push.bytes, 4194304u);
  EXPECT_EQ(op_traits(3, 4100, 4096, false, false).request_class.operation, Operation::write);
}

TEST(OpTraits, APeeringEventIsNoWriteWhateverItsCost) {
  const OpTraits peering = op_traits(2, 0, 10, true, false);
  EXPECT_EQ(peering.op_class, OpClass::immediate);
  EXPECT_EQ(peering.request_class.operation, Operation::read);
  EXPECT_EQ(peering.bytes, 0u);
}

// Queues `op` at `now`, takes it out at once and completes it `ran` later: an op that nothing
// queued competes with.
void serve(ShardQueue<int>& queue, int op, const OpTraits& traits, Seconds now, Seconds ran) {
  queue.enqueue(op, traits, now);
  const auto next = queue.dequeue(now);
  ASSERT_TRUE(next) << op;
  queue.complete(next->running, now + ran);
}

// Four saturated seconds of nothing but `traits`' immediate ops back to back: how many write fits
// the OSD made from them.
std::uint64_t fits_after_immediate_ops(const OpTraits& traits) {
  OsdShares shares(config(), 0);
  ShardQueue<int> queue(shares);
  for (int op = 0; op < 4000; ++op) serve(queue, op, traits, op * 0.001, 0.001);
  return shares.write_fits();
}

// Before peering events were told apart, their cost of 10 made them replica writes in the fit.
TEST(ShardQueue, PeeringEventsAreNotTheDevicesWrites) {
  EXPECT_GE(fits_after_immediate_ops(op_traits(2, 1, 4729, false, false)), 1u);
  EXPECT_EQ(fits_after_immediate_ops(op_traits(2, 0, 10, true, false)), 0u);
}

// While a reader is about, the writes' device time submitted and not yet done stays under
// write_backlog: a read passes the write at the head, and with no read queued the write waits
// for the backlog to drain, or for the reader to have been away reader_presence.
TEST(ShardQueue, WritesWaitForTheirBacklogWhileAReaderIsAbout) {
  OsdSharesConfig c = config();
  c.write_backlog = 0.25;
  c.reader_presence = 1.0;
  OsdShares shares(c, 0);
  shares.set_table(table_of(0.05, 0.7), 0);  // alice reads, bob writes, his deadlines first
  ShardQueue<int> queue(shares);
  queue.enqueue(1, {OpClass::client, 100, kRead}, 0);
  queue.complete(queue.dequeue(0)->running, 0.001);
  // A replica sub-op of 32 MiB: 3.36 s of the device at the prior price, owed by nobody here.
  queue.enqueue(2, {OpClass::immediate, 0, kWrite, 32u << 20}, 0.001);
  queue.complete(queue.dequeue(0.001)->running, 0.002);
  EXPECT_NEAR(shares.writes_submitted(), 3.3555, 1e-3);

  queue.enqueue(3, {OpClass::client, 200, kWrite, 65536}, 0.01);
  queue.enqueue(4, {OpClass::client, 100, kRead}, 0.01);
  const auto read = queue.dequeue(0.01);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->op, 4);  // bob's write is earlier in EDF order, but the backlog is full
  queue.complete(read->running, 0.011);
  EXPECT_TRUE(queue.only_held(0.011));
  EXPECT_FALSE(queue.dequeue(0.011));
  ASSERT_TRUE(queue.held_until());
  EXPECT_NEAR(*queue.held_until(), 1.011, 1e-9);  // alice's last read + reader_presence
  EXPECT_FALSE(queue.only_held(1.02));
  const auto write = queue.dequeue(1.02);
  ASSERT_TRUE(write);
  EXPECT_EQ(write->op, 3);
}

// The writes' lead drains at what the readers about leave the writes: alice, about with 0.9 (her
// last read ended 0.1 s ago, past the hold's anticipation), leaves 0.1 of the device a second,
// and bob's fourth 1 MiB write waits the lead's excess over write_backlog at that pace, not at
// the device's. Nothing runs while it waits: that time is the shard's choice, not the writes'.
TEST(ShardQueue, WhileAReaderIsAboutWritesGoAtWhatItsShareLeaves) {
  OsdSharesConfig c = config();
  c.write_backlog = 0.25;
  OsdShares shares(c, 0);
  shares.set_table(table_of(0.9, 0.05), 0);
  ShardQueue<int> queue(shares);
  queue.enqueue(0, {OpClass::client, 100, kRead}, 0);
  queue.complete(queue.dequeue(0)->running, 0.001);
  for (int op = 1; op <= 4; ++op) queue.enqueue(op, {OpClass::client, 200, kWrite, 1u << 20}, 0.1);
  for (int op = 1; op <= 3; ++op) {
    const auto write = queue.dequeue(0.1);
    ASSERT_TRUE(write) << op;
    queue.complete(write->running, 0.1);
  }
  const Seconds lead = shares.writes_submitted();
  EXPECT_GT(lead, 0.25);
  EXPECT_FALSE(queue.dequeue(0.1));
  ASSERT_TRUE(queue.held_until());
  const Seconds until = *queue.held_until();
  EXPECT_NEAR(until, 0.1 + (lead - 0.25) / 0.1, 1e-9);
  const std::string held = queue.write_lead_json(0.1);
  EXPECT_EQ(held.find(R"({"seconds":)" + json_number(lead) + R"(,"drain_rate":0.09999)"), 0u)
      << held;
  EXPECT_NE(held.find(R"("limit":0.25,"held":true})"), std::string::npos) << held;
  EXPECT_TRUE(queue.dequeue(until));
  const std::string status = shares.status_json({"active", "", "", "", 1}, until);
  const auto paced = status.find(R"("paced_idle_seconds":)");
  ASSERT_NE(paced, std::string::npos) << status;
  EXPECT_NEAR(std::stod(status.substr(paced + 21)), until - 0.1, 1e-9) << status;
}

// Alice writes alone, then only reads: her own reads do not slow the draining of the lead her
// writes left, though no write of hers is queued any more. Counted as a reader about, her 0.8
// let it drain at 0.2 a second, and a mix started after such a run held every writer for 33 s
// (bench/qbox/README.md, "A lead left by a client's own writes").
TEST(ShardQueue, AClientsOwnReadsDoNotSlowTheLeadItsWritesLeft) {
  OsdSharesConfig c = config();
  c.write_backlog = 0.25;
  OsdShares shares(c, 0);
  shares.set_table(table_of(0.8, 0.1), 0);
  ShardQueue<int> queue(shares);
  for (int op = 0; op < 30; ++op) serve(queue, op, {OpClass::client, 100, kWrite, 1u << 20}, 0, 0);
  for (int read = 0; read < 200; ++read) {
    serve(queue, 100 + read, {OpClass::client, 100, kRead}, 0.1 + read * 0.01, 0.005);
  }
  const Seconds lead = shares.writes_submitted() - 2.09;
  ASSERT_GT(lead, 1.0);
  const std::string json = queue.write_lead_json(2.09);
  EXPECT_EQ(json.find(R"({"seconds":)"), 0u) << json;
  EXPECT_NEAR(std::stod(json.substr(11)), lead, 1e-9) << json;
  EXPECT_NE(json.find(R"("drain_rate":1,)"), std::string::npos) << json;
}

TEST(DrainingBacklog, DrainsAtItsRateFromTheLastChange) {
  DrainingBacklog backlog(0.5);
  backlog.add(1.0, 2.0);
  EXPECT_DOUBLE_EQ(backlog.at(3.0), 0.5);
  EXPECT_DOUBLE_EQ(backlog.falls_to(0.25), 3.5);
  backlog.set_rate(0.25, 3.0);
  EXPECT_DOUBLE_EQ(backlog.falls_to(0.25), 4.0);
  EXPECT_DOUBLE_EQ(backlog.at(10.0), 0);
  backlog.set_rate(0, 3.0);
  EXPECT_EQ(backlog.falls_to(0.25), std::numeric_limits<Seconds>::infinity());
  EXPECT_DOUBLE_EQ(backlog.falls_to(0.5), 3.0);
}

// Nobody reads here: a writer alone is not held, whatever its backlog.
TEST(ShardQueue, AWriterAloneIsNotHeldForItsBacklog) {
  OsdSharesConfig c = config();
  c.write_backlog = 0.001;
  OsdShares shares(c, 0);
  shares.set_table(table_of(0.3, 0.3), 0);
  ShardQueue<int> queue(shares);
  for (int op = 0; op < 100; ++op) {
    serve(queue, op, {OpClass::client, 200, kWrite, 1u << 20}, op * 0.0001, 0.00001);
  }
  const std::string status = shares.status_json({"active", "", "", "", 1}, 0.01);
  EXPECT_NE(status.find(R"("backlog_seconds":10.)"), std::string::npos) << status;
}

TEST(ShardQueue, ImmediateOpsGoFirst) {
  OsdShares shares(config(), 0);
  ShardQueue<int> queue(shares);
  queue.enqueue(1, {OpClass::client, 7, kRead}, 0);
  queue.enqueue(2, {OpClass::immediate, 0, kRead}, 0);
  queue.enqueue(3, {OpClass::background_recovery, 0, kRead}, 0);
  EXPECT_EQ(queue.dequeue(0)->op, 2);
  EXPECT_FALSE(queue.empty());
  queue.dequeue(0);
  queue.dequeue(0);
  EXPECT_TRUE(queue.empty());
  EXPECT_FALSE(queue.dequeue(0));
}

TEST(ShardQueue, BackloggedClientsShareByUtilization) {
  OsdShares shares(config(), 0);
  shares.set_table(table_of(0.6, 0.3), 0);
  ShardQueue<int> queue(shares);
  for (int i = 0; i < 300; ++i) {
    queue.enqueue(1, {OpClass::client, 100, kRead}, 0);
    queue.enqueue(2, {OpClass::client, 200, kRead}, 0);
  }
  int alice = 0;
  for (int i = 0; i < 90; ++i) alice += queue.dequeue(0)->op == 1;
  EXPECT_NEAR(alice, 60, 2);
}

TEST(ShardQueue, UnknownOwnersShareTheUnreservedAccount) {
  OsdShares shares(config(), 0);
  shares.set_table(table_of(0.5, 0.1), 0);
  ShardQueue<int> queue(shares);
  queue.enqueue(1, {OpClass::client, 999, kRead}, 0);
  queue.enqueue(2, {OpClass::client, 998, kRead}, 0);
  EXPECT_EQ(queue.dequeue(0)->op, 1);
  EXPECT_EQ(queue.dequeue(0)->op, 2);
  const std::string status = shares.status_json({"active", "", "16.2.15", "ab", 1}, 0.5);
  EXPECT_NE(status.find(R"("name":"unreserved","owners":[],"class":"client","target":0.3)"),
            std::string::npos)
      << status;
}

TEST(ShardQueue, ANewTableAppliesToTheNextEnqueue) {
  OsdShares shares(config(), 0);
  ShardQueue<int> queue(shares);
  queue.enqueue(1, {OpClass::client, 100, kRead}, 0);
  shares.set_table(table_of(0.6, 0.3), 0);
  queue.enqueue(2, {OpClass::client, 100, kRead}, 0);
  shares.status_json({"active", "", "", "", 1}, 0);
  const auto first = queue.dequeue(0);
  queue.complete(first->running, 0.25);
  const auto second = queue.dequeue(0.25);
  queue.complete(second->running, 0.75);
  const std::string status = shares.status_json({"active", "", "", "", 1}, 1.5);
  // One op was queued while the owner was unreserved, one after the table named it; each is
  // charged the time it ran.
  EXPECT_NE(status.find(R"("name":"client.alice","owners":[100,101],"class":"client","target":0.6,"achieved":0.5,"backlogged":0.25,"ops":1)"),
            std::string::npos)
      << status;
  EXPECT_NE(status.find(R"("table_epoch":3)"), std::string::npos);
}

TEST(ShardQueue, RequeuedOpGoesAheadAndIsNotChargedAgain) {
  OsdShares shares(config(), 0);
  ShardQueue<int> queue(shares);
  queue.enqueue(1, {OpClass::client, 5, kRead}, 0);
  queue.enqueue(2, {OpClass::client, 5, kRead}, 0);
  auto first = queue.dequeue(0);
  queue.enqueue_front(std::move(first->op), {OpClass::client, 5, kRead}, 0);
  queue.complete(first->running, 0.125);
  auto again = queue.dequeue(0.125);
  EXPECT_EQ(again->op, 1);
  EXPECT_EQ(again->running.estimate, 0);
  queue.complete(again->running, 0.25);
  auto second = queue.dequeue(0.25);
  EXPECT_EQ(second->op, 2);
  queue.complete(second->running, 0.5);
  const std::string status = shares.status_json({"active", "", "", "", 1}, 1.0);
  // Charged what each run measured: 0.125 s before the requeue, 0.125 s again, 0.25 s.
  EXPECT_NE(status.find(R"("name":"unreserved","owners":[],"class":"client","target":0.85,"achieved":0.5,"backlogged":0.25,"ops":3,"queued":0)"),
            std::string::npos)
      << status;
}

// Writes queued before a write fit were tagged at the old price; the shard tags them again at
// the new one (and charges its account what its recent writes were charged too little).
TEST(ShardQueue, QueuedWritesAreTaggedAgainAfterAWriteFit) {
  OsdSharesConfig c = config();
  c.writes.windows_per_long = 1;
  OsdShares shares(c, 0);
  shares.set_table(table_of(0.6, 0.3), 0);
  ShardQueue<int> queue(shares);
  constexpr RequestClass kWrite{Operation::write, Access::random};
  const OpTraits alice_reads{OpClass::client, 100, kRead};
  const OpTraits bob_writes{OpClass::client, 200, kWrite, 65536};
  Seconds now = 0;
  const auto read = [&](Seconds takes) {
    queue.enqueue(1, alice_reads, now);
    const auto op = queue.dequeue(now, false);
    now += takes;
    queue.complete(op->running, now);
  };
  for (int i = 0; i < 100; ++i) read(0.01);  // the first second: reads alone, 10 ms each
  // The second: bob's writes come back at once, and alice's reads wait behind their device time.
  for (int i = 0; i < 49; ++i) {
    if (i % 5 == 0) {
      queue.enqueue(2, bob_writes, now);
      const auto write = queue.dequeue(now, false);
      queue.complete(write->running, now);
    }
    read(0.02);
  }
  const WritePrice prior = shares.write_price();
  for (int i = 0; i < 3; ++i) queue.enqueue(3, bob_writes, now);
  now = 2.01;
  queue.enqueue(4, alice_reads, now);  // closes the second: the first fit
  const WritePrice fitted = shares.write_price();
  ASSERT_STREQ(fitted.method, "residual");
  ASSERT_GT(fitted.of(65536), 2 * prior.of(65536));
  int writes = 0;
  while (const auto op = queue.dequeue(now, false)) {
    if (op->op == 3) {
      EXPECT_DOUBLE_EQ(op->running.estimate, fitted.of(65536));
      ++writes;
    }
  }
  EXPECT_EQ(writes, 3);
}

TEST(OsdShares, BackloggedIsTheFractionOfTheWindowWithOpsQueued) {
  OsdShares shares(config(), 0);
  ShardQueue<int> queue(shares);
  queue.enqueue(1, {OpClass::client, 5, kRead}, 0.25);
  queue.dequeue(0.75);
  const std::string status = shares.status_json({"active", "", "", "", 1}, 1.0);
  // Still running at the window's end: charged when it completes.
  EXPECT_NE(status.find(R"("name":"unreserved","owners":[],"class":"client","target":0.85,"achieved":0,"backlogged":0.5)"),
            std::string::npos)
      << status;
}

TEST(OsdShares, CostsComeFromCompletionsAndBusyTime) {
  OsdShares shares(config(), 0);
  ShardQueue<int> queue(shares);
  // One op at a time, each running 2 ms: the estimator must find about 2 ms per random read.
  Seconds now = 0;
  for (int i = 0; i < 2000; ++i) {
    queue.enqueue(i, {OpClass::client, 5, kRead}, now);
    const auto op = queue.dequeue(now);
    now += 0.002;
    queue.complete(op->running, now);
  }
  const std::string status = shares.status_json({"active", "", "", "", 1}, now);
  const auto at = status.find("\"rand_read\":");
  ASSERT_NE(at, std::string::npos) << status;
  EXPECT_NEAR(std::stod(status.substr(at + 12)), 0.002, 0.0002) << status;
  EXPECT_NE(status.find("\"seq_read\":null"), std::string::npos) << status;
}

}  // namespace
}  // namespace erails::qbox
