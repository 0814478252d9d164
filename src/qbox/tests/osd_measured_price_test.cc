// Ops priced by what they measure inside the OSD (osd_shares.h, "Prices are measured"): each op's
// share of the time ops run, charged to its account when its thread comes back.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "qbox/osd_shares.h"
#include "qbox/shard_queue.h"
#include "qbox/share_table.h"

namespace erails::qbox {
namespace {

constexpr RequestClass kRead{Operation::read, Access::random};

double client_field(const std::string& status, const std::string& client,
                    const std::string& key) {
  const auto entry = status.find("\"name\":\"" + client + "\"");
  EXPECT_NE(entry, std::string::npos) << client << " in " << status;
  const auto at = status.find("\"" + key + "\":", entry);
  return at == std::string::npos ? -1 : std::stod(status.substr(at + key.size() + 3));
}

ShareTable equal_table() {
  ShareTable table;
  table.epoch = 1;
  table.clients = {{"client.big", 0.45, {1}}, {"client.small", 0.45, {2}}};
  table.background_recovery = 0.05;
  table.background_best_effort = 0.05;
  return table;
}

OsdSharesConfig one_second_windows() {
  OsdSharesConfig config;
  config.window = 1.0;
  return config;
}

// Two readers with equal targets, one shard thread in front of a device: client.big's reads take
// 4 ms (128 KiB on the SSD model), client.small's 1 ms (4 KiB), and the OSD cannot tell them
// apart (both are "random reads" of cost 0). Priced by class, each would get as many ops, and
// client.big 80% of the device; priced by what each op measured, the device time splits evenly.
TEST(OsdMeasuredPrice, ReadsOfDifferentSizesShareDeviceTimeByTarget) {
  OsdShares shares(one_second_windows(), 0);
  shares.set_table(equal_table(), 0);
  ShardQueue<int> queue(shares);
  Seconds now = 0;
  Seconds device[2] = {0, 0};
  constexpr Seconds kCost[2] = {0.004, 0.001};
  int queued[2] = {0, 0};  // each client keeps 8 ops queued (closed loop)
  while (now < 20.5) {
    for (int c = 0; c < 2; ++c) {
      for (; queued[c] < 8; ++queued[c]) {
        queue.enqueue(c, {OpClass::client, static_cast<std::uint64_t>(c + 1), kRead}, now);
      }
    }
    const auto op = queue.dequeue(now);
    --queued[op->op];
    now += kCost[op->op];
    if (now > 10) device[op->op] += kCost[op->op];
    queue.complete(op->running, now);
  }
  EXPECT_NEAR(device[0] / (device[0] + device[1]), 0.5, 0.03);
  const std::string status = shares.status_json({"active", "", "", "", 1}, now);
  EXPECT_NEAR(client_field(status, "client.big", "achieved"), 0.5, 0.03) << status;
  EXPECT_NEAR(client_field(status, "client.small", "achieved"), 0.5, 0.03) << status;
}

// Ops running at the same time split each instant evenly: the ops' prices add up to the time
// some op ran, whatever the overlap.
TEST(OsdMeasuredPrice, OverlappingOpsSplitTheTimeTheyRunTogether) {
  OsdShares shares(one_second_windows(), 0);
  shares.set_table(equal_table(), 0);
  ShardQueue<int> first_shard(shares);
  ShardQueue<int> second_shard(shares);
  first_shard.enqueue(1, {OpClass::client, 1, kRead}, 0);
  second_shard.enqueue(2, {OpClass::client, 2, kRead}, 0);
  const auto big = first_shard.dequeue(0);
  const auto small = second_shard.dequeue(0.5);
  second_shard.complete(small->running, 0.75);
  first_shard.complete(big->running, 0.875);
  const std::string status = shares.status_json({"active", "", "", "", 1}, 1.0);
  // client.big alone for 0.5 s, half of 0.25 s, alone again for 0.125 s; client.small half of
  // 0.25 s.
  EXPECT_DOUBLE_EQ(client_field(status, "client.big", "achieved"), 0.75) << status;
  EXPECT_DOUBLE_EQ(client_field(status, "client.small", "achieved"), 0.125) << status;
  EXPECT_NE(status.find(R"("running":0.875)"), std::string::npos) << status;
}

// An immediate op (a replica sub-op) takes its share of the running time and charges no one.
TEST(OsdMeasuredPrice, ImmediateOpsTakeTheirShareAndChargeNoOne) {
  OsdShares shares(one_second_windows(), 0);
  shares.set_table(equal_table(), 0);
  ShardQueue<int> first_shard(shares);
  ShardQueue<int> second_shard(shares);
  first_shard.enqueue(1, {OpClass::client, 1, kRead}, 0);
  second_shard.enqueue(2, {OpClass::immediate, 0, kRead}, 0);
  const auto client = first_shard.dequeue(0);
  const auto replica = second_shard.dequeue(0);
  EXPECT_DOUBLE_EQ(second_shard.complete(replica->running, 0.5), 0.25);
  first_shard.complete(client->running, 0.5);
  const std::string status = shares.status_json({"active", "", "", "", 1}, 1.0);
  EXPECT_DOUBLE_EQ(client_field(status, "client.big", "achieved"), 0.25) << status;
}

// The estimate an op is tagged with follows its account's measured ops, per operation.
TEST(OsdMeasuredPrice, AnAccountsOpsAreTaggedWithItsMeasuredMean) {
  OsdShares shares(one_second_windows(), 0);
  shares.set_table(equal_table(), 0);
  ShardQueue<int> queue(shares);
  Seconds now = 0;
  for (int i = 0; i < 200; ++i) {
    queue.enqueue(i, {OpClass::client, 1, kRead}, now);
    const auto op = queue.dequeue(now);
    now += 0.003;
    queue.complete(op->running, now);
  }
  queue.enqueue(0, {OpClass::client, 1, kRead}, now);
  EXPECT_NEAR(queue.dequeue(now)->running.estimate, 0.003, 1e-9);
  // client.small has measured nothing yet: the estimator's cost for a random read (3 ms here).
  queue.enqueue(1, {OpClass::client, 2, kRead}, now);
  EXPECT_NEAR(queue.dequeue(now)->running.estimate, 0.003, 0.0005);
  // Writes are priced by their length, at the write pricer's prior until it has fitted one.
  queue.enqueue(2, {OpClass::client, 1, {Operation::write, Access::random}, 4096}, now);
  const WritePricerConfig prior;
  EXPECT_DOUBLE_EQ(queue.dequeue(now)->running.estimate,
                   prior.prior_per_op + prior.prior_per_byte * 4096);
}

// `qbox status` reports each account's mean price per operation once it has one (the mgr converts
// throughput SLAs at it), and nothing for an operation it has not completed.
TEST(OsdMeasuredPrice, StatusReportsAnAccountsPriceOnceItsOpsCompleted) {
  OsdShares shares(one_second_windows(), 0);
  shares.set_table(equal_table(), 0);
  ShardQueue<int> queue(shares);
  queue.enqueue(0, {OpClass::client, 1, kRead}, 0);
  const auto op = queue.dequeue(0);
  const std::string before = shares.status_json({"active", "", "", "", 1}, 0.001);
  EXPECT_EQ(before.find("\"price\""), std::string::npos) << before;
  queue.complete(op->running, 0.002);
  const std::string after = shares.status_json({"active", "", "", "", 1}, 0.003);
  const auto big = after.find("\"name\":\"client.big\"");
  const auto small = after.find("\"name\":\"client.small\"");
  ASSERT_LT(big, small) << after;
  EXPECT_NE(after.find("\"price\":{\"read\":0.002}", big), std::string::npos) << after;
  EXPECT_LT(after.find("\"price\":{\"read\":0.002}", big), small) << after;
  EXPECT_EQ(after.find("\"price\"", small), std::string::npos) << after;
}

}  // namespace
}  // namespace erails::qbox
