// The OSD-side accounting of device time (osd_shares.h) against a fake OSD whose writes, as
// BlueStore's do, return from the shard thread at submission and reach the device later.
#include <gtest/gtest.h>

#include <cstdio>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

#include "qbox/osd_shares.h"
#include "qbox/shard_queue.h"
#include "qbox/share_table.h"

namespace erails::qbox {
namespace {

constexpr RequestClass kRead{Operation::read, Access::random};
constexpr RequestClass kWrite{Operation::write, Access::random};

double field(const std::string& status, const std::string& key) {
  const auto at = status.find("\"" + key + "\":");
  EXPECT_NE(at, std::string::npos) << key << " in " << status;
  return at == std::string::npos ? -1 : std::stod(status.substr(at + key.size() + 3));
}

// One shard thread in front of one FIFO device. A read runs synchronously: the thread waits for
// the device, which serves it after the writes ahead of it. A write only takes a throttle slot
// (at most `throttle` writes submitted and not yet on the device's media, like BlueStore's
// throttle) and the thread comes back after `submit`; the device spends `write_cost` on it later.
struct FakeOsd {
  FakeOsd(Seconds read, Seconds write, std::size_t slots)
      : read_cost(read), write_cost(write), throttle(slots) {}

  Seconds read_cost;
  Seconds write_cost;
  std::size_t throttle;
  Seconds submit = 0.00001;

  Seconds device_free = 0;
  std::deque<Seconds> writes_done;  // device completion of each write holding a throttle slot

  // Runs one op dispatched at `now`; returns when the thread comes back to the scheduler.
  Seconds run(RequestClass op, Seconds now) {
    while (!writes_done.empty() && writes_done.front() <= now) writes_done.pop_front();
    if (op.operation == Operation::read) {
      device_free = std::max(device_free, now) + read_cost;
      return device_free;
    }
    if (writes_done.size() >= throttle) {
      now = std::max(now, writes_done.front());
      writes_done.pop_front();
    }
    device_free = std::max(device_free, now) + write_cost;
    writes_done.push_back(device_free);
    return now + submit;
  }
};

// Clients keep the shard's queue backlogged with a read/write mix that changes every 5 s (the
// estimator's long window), so the joint solve can tell reads from writes.
std::string run_backlogged(FakeOsd& osd, Seconds duration) {
  OsdSharesConfig config;
  config.window = 1.0;
  OsdShares shares(config, 0);
  ShardQueue<int> queue(shares);
  constexpr double kReadFractions[] = {0.2, 0.8, 0.5, 0.1, 0.6};
  Seconds now = 0;
  int next = 0;
  double credit = 0;
  while (now < duration) {
    const double reads = kReadFractions[static_cast<std::size_t>(now / 5.0) % 5];
    while (queue.size() < 8) {
      credit += reads;
      const bool read = credit >= 1;
      if (read) credit -= 1;
      queue.enqueue(next++, {OpClass::client, 7, read ? kRead : kWrite}, now);
    }
    const auto op = queue.dequeue(now);
    now = osd.run(op->running.request_class, now);
    queue.complete(op->running, now);
  }
  return shares.status_json({"active", "", "", "", 1}, now);
}

TEST(OsdWriteCost, WritesCompletingAtSubmissionArePricedAtTheirDeviceTime) {
  FakeOsd osd(0.001, 0.003, 4);
  // Read halfway through a long window: just after the mix changes, the device still serves
  // writes submitted in the window before, and the short windows' read estimate swings for a
  // few hundred milliseconds.
  const std::string status = run_backlogged(osd, 122.5);
  EXPECT_NEAR(field(status, "rand_read"), 0.001, 0.00015) << status;
  EXPECT_NEAR(field(status, "rand_write"), 0.003, 0.0002) << status;
  EXPECT_NEAR(field(status, "outstanding"), 1.0, 0.01) << status;
}

// The other side of the same fake: with a throttle deeper than what the clients keep in flight
// (Ceph's defaults on this project's clusters), the writes wait inside the device, not in the
// shard's queue; busy is a small part of the window and a write is priced at its submission.
// doc/dev/qbox-in-osd.md, "Costs", says why counting busy from enqueue cannot help here.
TEST(OsdWriteCost, WithoutAThrottleWritesArePricedAtSubmission) {
  FakeOsd osd(0.001, 0.003, 1000);
  OsdSharesConfig config;
  config.window = 1.0;
  OsdShares shares(config, 0);
  ShardQueue<int> queue(shares);
  constexpr std::size_t kInFlight = 16;  // per the clients, as `rados bench -t 16`
  Seconds now = 0;
  int next = 0;
  while (now < 60) {
    while (!osd.writes_done.empty() && osd.writes_done.front() <= now) osd.writes_done.pop_front();
    while (queue.size() + osd.writes_done.size() < kInFlight) {
      queue.enqueue(next++, {OpClass::client, 7, kWrite}, now);
    }
    if (queue.empty()) {
      now = osd.writes_done.front();
      continue;
    }
    const auto op = queue.dequeue(now);
    now = osd.run(op->running.request_class, now);
    queue.complete(op->running, now);
  }
  const std::string status = shares.status_json({"active", "", "", "", 1}, now);
  EXPECT_LT(field(status, "outstanding"), 0.1) << status;
  EXPECT_LT(field(status, "rand_write"), 0.0003) << status;
}

// The two clients of the runs below: a reader at 0.6 and a writer at `writer_share`.
ShareTable reader_and_writer(double writer_share) {
  ShareTable table;
  table.epoch = 1;
  table.clients = {{"client.reader", 0.6, {1}}, {"client.writer", writer_share, {2}}};
  return table;
}

// A reader and a writer, both backlogged, given 0.6 and 0.2 of the device, with Ceph's default
// throttle: the writes wait inside the device and every read waits behind them. Priced by their
// runs, the writes would cost their submission and the writer would take nearly the whole device
// while the reader paid for the writes' time in its slow reads. Priced by the time the reads
// leave (write_pricer.h), the device's own time splits 3:1.
TEST(OsdWriteCost, AReaderAndAWriterShareTheDeviceByTargetBehindADeepThrottle) {
  FakeOsd osd(0.001, 0.003, 1000);
  OsdSharesConfig config;
  config.window = 1.0;
  OsdShares shares(config, 0);
  shares.set_table(reader_and_writer(0.2), 0);
  ShardQueue<int> queue(shares);
  Seconds now = 0;
  Seconds device[2] = {0, 0};
  int queued[2] = {0, 0};
  while (now < 90) {
    for (int c = 0; c < 2; ++c) {
      for (; queued[c] < 8; ++queued[c]) {
        queue.enqueue(c, {OpClass::client, static_cast<std::uint64_t>(c + 1), c ? kWrite : kRead, 65536}, now);
      }
    }
    const auto op = queue.dequeue(now);
    --queued[op->op];
    if (now > 30) device[op->op] += op->op ? osd.write_cost : osd.read_cost;
    now = osd.run(op->running.request_class, now);
    queue.complete(op->running, now);
  }
  const std::string status = shares.status_json({"active", "", "", "", 1}, now);
  EXPECT_NEAR(device[0] / (device[0] + device[1]), 0.75, 0.05) << status;
  EXPECT_NE(status.find(R"("method":"residual")"), std::string::npos) << status;
}

// After a 30 s warm-up, in which the write pricer learns the writes' price.
struct ClosedLoopRun {
  double reader_part;  // of the device's time, counting the time writes were held for it
  int holds;           // dequeue() calls that held a write
  Seconds longest_read;  // from its enqueue to its completion
  std::string status;
};

struct ClosedLoop {
  Seconds read_anticipation = 0.01;
  Seconds write_cost = 0.003;  // on the device, against a read's 1 ms
  std::uint64_t write_bytes = 65536;
  double writer_share = 0.2;
  bool may_hold = true;  // the shard thread waits for a hold's end
  Seconds write_backlog = OsdSharesConfig{}.write_backlog;
  // The reader goes away this long after every reads_between_absences reads (0: never), as a
  // reader whose ops wait at another OSD does.
  Seconds away = 0;
  int reads_between_absences = 300;
};

// The same two clients, but the reader is closed-loop: one read at a time, the next sent 0.5 ms
// after the last came back, so its queue is empty between its reads.
ClosedLoopRun closed_loop(const ClosedLoop& setup) {
  FakeOsd osd(0.001, setup.write_cost, 1000);
  OsdSharesConfig config;
  config.window = 1.0;
  config.read_anticipation = setup.read_anticipation;
  config.write_backlog = setup.write_backlog;
  OsdShares shares(config, 0);
  shares.set_table(reader_and_writer(setup.writer_share), 0);
  ShardQueue<int> queue(shares);
  constexpr Seconds kThink = 0.0005;
  Seconds now = 0;
  Seconds next_read = 0;
  Seconds read_enqueued = 0;
  bool read_in_shard = false;
  int reads = 0;
  int writes_queued = 0;
  Seconds device[2] = {0, 0};
  int holds = 0;
  Seconds longest_read = 0;
  while (now < 90) {
    if (!read_in_shard && next_read <= now) {
      queue.enqueue(0, {OpClass::client, 1, kRead}, now);
      read_in_shard = true;
      read_enqueued = now;
    }
    for (; writes_queued < 8; ++writes_queued) {
      queue.enqueue(1, {OpClass::client, 2, kWrite, setup.write_bytes}, now);
    }
    const auto op = queue.dequeue(now, setup.may_hold);
    if (!op) {
      EXPECT_TRUE(queue.held_until().has_value());
      // The thread waits until the hold ends or the reader's next read arrives, which wakes it.
      const Seconds woken = std::min(*queue.held_until(), next_read);
      if (now > 30) {
        device[0] += std::max<Seconds>(0, woken - std::max(now, osd.device_free));
        ++holds;
      }
      now = woken;
      continue;
    }
    if (now > 30) device[op->op] += op->op ? osd.write_cost : osd.read_cost;
    now = osd.run(op->running.request_class, now);
    queue.complete(op->running, now);
    if (op->op == 0) {
      if (now > 30) longest_read = std::max(longest_read, now - read_enqueued);
      read_in_shard = false;
      const bool leaves = setup.away > 0 && ++reads % setup.reads_between_absences == 0;
      next_read = now + (leaves ? setup.away : kThink);
    } else {
      --writes_queued;
    }
  }
  ClosedLoopRun run{device[0] / (device[0] + device[1]), holds, longest_read,
                    shares.status_json({"active", "", "", "", 1}, now)};
  // The figures the comments and doc/dev quote, printed so that a run of the test shows them.
  std::printf("closed loop: reader part %.3f, longest read %.3f s, %d holds, write %.4f s per MiB\n",
              run.reader_part, run.longest_read, run.holds, field(run.status, "per_mib"));
  return run;
}

// Held, the reader keeps the device between its reads. The device idles while a write is held
// here, and the reader's next read, at its clean price, says so: counted as the writes' time, the
// holds priced a 64 KiB write at 0.2 s and left the writer almost nothing (reader part 0.98).
TEST(OsdWriteCost, WritesAreHeldForAClosedLoopReaderBetweenItsReads) {
  const ClosedLoopRun run = closed_loop({});
  EXPECT_GT(run.reader_part, 0.7) << run.status;
  EXPECT_LT(run.reader_part, 0.9) << run.status;
  const auto status_holds = run.status.find("\"write_holds\":");
  ASSERT_NE(status_holds, std::string::npos) << run.status;
  const std::string holds = run.status.substr(status_holds);
  EXPECT_GE(field(holds, "count"), run.holds);
  EXPECT_GT(field(holds, "idle_seconds"), 0.5 * field(holds, "seconds"));
  EXPECT_GT(run.holds, 1000);
}

// A write that costs about a read delays the reader no more than another reader would. (The
// writer's small share keeps its deadlines ahead of the reader's, where writes would be held.)
TEST(OsdWriteCost, AWriteThatCostsAboutAReadIsNotHeld) {
  ClosedLoop setup;
  setup.write_cost = 0.0015;
  setup.write_bytes = 4096;
  setup.writer_share = 0.02;
  EXPECT_EQ(closed_loop(setup).holds, 0);
}

// A shard thread that cannot wait for a hold's end (retry_waiters.h) is given the write.
TEST(OsdWriteCost, NoWriteIsHeldForAThreadThatMayNotHold) {
  ClosedLoop setup;
  setup.may_hold = false;
  EXPECT_EQ(closed_loop(setup).holds, 0);
}

// Without the hold, the writes' lead alone (shard_queue.h, "The writes' backlog") gives the
// reader about what its share leaves the writer: 0.54 of the device (the hold gives it 0.81,
// above). Short of 0.6 because the writes are priced at 0.042 s per MiB for the device's 0.048:
// the time the shard paced them with nothing running is left out of their residual
// (OsdShares::set_writes_paced), and some of it the device was still writing.
TEST(OsdWriteCost, WithoutTheHoldTheWritesHaveWhatTheReaderLeaves) {
  ClosedLoop setup;
  setup.read_anticipation = 0;
  const ClosedLoopRun run = closed_loop(setup);
  EXPECT_GT(run.reader_part, 0.5) << run.status;
  EXPECT_LT(run.longest_read, 0.05) << run.status;
}

// The control: without the hold and the bound, each gap between the reader's reads lets writes
// through, and the reader waits behind their device time: 9.8 s, for nothing of the device.
TEST(OsdWriteCost, WithoutTheHoldAndTheBoundAWriterTakesTheClosedLoopReadersShare) {
  ClosedLoop setup;
  setup.read_anticipation = 0;
  setup.write_backlog = 1e9;
  const ClosedLoopRun run = closed_loop(setup);
  EXPECT_LT(run.reader_part, 0.1) << run.status;
  EXPECT_GT(run.longest_read, 2.0) << run.status;
}

// The reader of closed_loop() away for 0.3 s after every 300 reads, longer than
// read_anticipation, beside the writer at the default anticipation and a given write_backlog.
ClosedLoopRun reader_away(Seconds write_backlog) {
  ClosedLoop setup;
  setup.read_anticipation = OsdSharesConfig{}.read_anticipation;
  setup.write_backlog = write_backlog;
  setup.away = 0.3;
  return closed_loop(setup);
}

// Once the anticipation ends, the writes go to the device at what the reader's share leaves them,
// 0.4 of it by their price, and write_backlog ahead at most. The reader, back, waits 0.27 s at
// most, and has 0.42 of the device, the holds for it counted, away 0.3 s of every 0.75 s or so.
// The writes are priced at 0.032 s per MiB for the device's 0.048 here (the test above says why),
// so they have more than 0.4; with the lead drained at the device's pace, the reader waited
// 0.22 s and had 0.46.
TEST(OsdWriteCost, AReaderBackFromAwayWaitsBehindAtMostTheWritesBacklog) {
  const ClosedLoopRun run = reader_away(0.25);
  EXPECT_LT(run.longest_read, 0.3) << run.status;
  EXPECT_GT(run.reader_part, 0.3) << run.status;
}

// The control: unbounded, the writer fills the device's queue while the reader is away, and the
// reader, back, waits 3 s behind it and has 0.053 of the device.
TEST(OsdWriteCost, WithoutTheBoundAReaderBackFromAwayWaitsBehindTheWritersQueue) {
  const ClosedLoopRun run = reader_away(1e9);
  EXPECT_GT(run.longest_read, 2.0) << run.status;
  EXPECT_LT(run.reader_part, 0.1) << run.status;
}

TEST(OsdShares, BusyReportsRunningAndOutstandingFractions) {
  OsdSharesConfig config;
  config.window = 1.0;
  OsdShares shares(config, 0);
  ShardQueue<int> queue(shares);
  queue.enqueue(1, {OpClass::client, 5, kWrite}, 0.25);
  const auto op = queue.dequeue(0.75);
  queue.complete(op->running, 0.875);
  const std::string status = shares.status_json({"active", "", "", "", 1}, 1.0);
  EXPECT_NE(status.find(R"("busy":{"running":0.125,"outstanding":0.625})"), std::string::npos)
      << status;
}

TEST(OsdShares, BusyIsNullUntilAWindowHasClosed) {
  OsdSharesConfig config;
  config.window = 1.0;
  OsdShares shares(config, 0);
  const std::string status = shares.status_json({"active", "", "", "", 1}, 0.5);
  EXPECT_NE(status.find(R"("busy":null)"), std::string::npos) << status;
}

TEST(OsdShares, ARequeuedOpKeepsTheOsdBusyUntilItCompletes) {
  OsdSharesConfig config;
  config.window = 1.0;
  OsdShares shares(config, 0);
  ShardQueue<int> queue(shares);
  queue.enqueue(1, {OpClass::client, 5, kRead}, 0.0);
  const auto first = queue.dequeue(0.0);
  // The OSD could not run it yet: back to the queue, then the thread comes back for more.
  queue.enqueue_front(1, {OpClass::client, 5, kRead}, 0.25);
  queue.complete(first->running, 0.25);
  const auto again = queue.dequeue(0.5);
  queue.complete(again->running, 0.75);
  const std::string status = shares.status_json({"active", "", "", "", 1}, 1.0);
  EXPECT_NE(status.find(R"("busy":{"running":0.5,"outstanding":0.75})"), std::string::npos)
      << status;
}

}  // namespace
}  // namespace erails::qbox
