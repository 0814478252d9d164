#include "qbox/controller.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <queue>
#include <string>
#include <unistd.h>

#include "qbox/backends/experiment.h"
#include "qbox/backends/file_backend.h"
#include "qbox/backends/sim_backend.h"
#include "common/tests/temp_path.h"

namespace erails::qbox {
namespace {

// A device that serves one request at a time, in submission order; each test device says how
// long a request takes.
class InOrderDisk : public Backend {
 public:
  Status submit(const BackendRequest& r, Seconds now) override {
    const Seconds service = service_time(r);
    busy_until_ = std::max(busy_until_, now) + service;
    done_.push(BackendCompletion{r.token, busy_until_, static_cast<int>(r.length), service});
    return Ok{};
  }
  void collect(Seconds now, std::vector<BackendCompletion>& out) override {
    while (!done_.empty() && done_.front().completed_at <= now) {
      out.push_back(done_.front());
      done_.pop();
    }
  }
  std::optional<Seconds> next_completion() const override {
    if (done_.empty()) return std::nullopt;
    return done_.front().completed_at;
  }
  void wait(Seconds) override {}

 private:
  virtual Seconds service_time(const BackendRequest& r) = 0;

  std::queue<BackendCompletion> done_;
  Seconds busy_until_ = 0;
};

// Fixed per-request costs: sequential reads 0.2 ms, random reads 8 ms (the thesis' disk gap).
// Like a drive or array that tracks a few streams for read-ahead, a request is sequential when it
// starts where one of the last 8 requests ended, so interleaved streams stay cheap and the test
// measures the scheduler, not seek placement.
class ToyDisk final : public InOrderDisk {
 public:
  Status submit(const BackendRequest& r, Seconds now) override {
    if (fail_next_) {
      fail_next_ = false;
      return Error{"toy", "injected failure"};
    }
    return InOrderDisk::submit(r, now);
  }
  void fail_next() { fail_next_ = true; }

 private:
  Seconds service_time(const BackendRequest& r) override {
    const bool sequential = std::find(ends_.begin(), ends_.end(), r.offset) != ends_.end();
    ends_[next_end_++ % ends_.size()] = r.offset + r.length;
    return sequential ? 0.0002 : 0.008;
  }

  std::array<std::uint64_t, 8> ends_{1, 1, 1, 1, 1, 1, 1, 1};
  std::size_t next_end_ = 0;
  bool fail_next_ = false;
};

ExperimentConfig two_streams(SchedulerKind scheduler) {
  ExperimentConfig config;
  config.controller.scheduler = scheduler;
  config.controller.max_in_flight = 1;  // the toy disk serves one request at a time
  config.duration = 20;
  config.report_every = 5;
  config.device_bytes = 1ull << 30;
  config.clients.push_back(parse_client_spec("name=S,pattern=sequential,util=0.3").value());
  config.clients.push_back(parse_client_spec("name=R,pattern=random,util=0.7").value());
  return config;
}

std::map<std::string, double> shares(SchedulerKind scheduler) {
  ToyDisk disk;
  std::map<std::string, double> time;
  double total = 0;
  const auto ran = run_experiment(two_streams(scheduler), disk, {}, [&](const WindowRow& row) {
    if (row.end <= 5) return;  // the estimator's first seconds
    time[row.client] += row.stats.service_time;
    total += row.stats.service_time;
  });
  EXPECT_TRUE(ran) << ran.error().to_string();
  for (auto& [client, t] : time) t /= total;
  return time;
}

TEST(Controller, QBoxGivesEachStreamItsShareOfDeviceTime) {
  const auto got = shares(SchedulerKind::qbox);
  EXPECT_NEAR(got.at("S"), 0.3, 0.05);
  EXPECT_NEAR(got.at("R"), 0.7, 0.05);
}

TEST(Controller, ThroughputBaselineGivesTheRandomStreamMostOfTheTime) {
  // Equal prices: requests are shared 3:7, so the random stream, 40x costlier, takes ~99% of time.
  const auto got = shares(SchedulerKind::fifo);
  EXPECT_GT(got.at("R"), 0.95);
}

// One head, like src/sim's HDD with a deep queue: a request that does not start where the
// previous one ended pays 2 ms of positioning, then 50 us transfer. A sequential request behind
// another stream's request pays the positioning itself.
class OneHeadDisk final : public InOrderDisk {
 private:
  Seconds service_time(const BackendRequest& r) override {
    const Seconds service = (r.offset == head_ ? 0 : 0.002) + 0.00005;
    head_ = r.offset + r.length;
    return service;
  }

  std::uint64_t head_ = 1;
};

struct Outcome {
  std::map<std::string, double> share;  // of the device's time, after the first 5 s
  std::map<std::string, double> completions;
};

Outcome one_head_run(Classification classification, Seconds sequential_slack,
                     SchedulerKind scheduler = SchedulerKind::qbox) {
  ExperimentConfig config;
  config.controller.scheduler = scheduler;
  config.controller.max_in_flight = 8;
  config.controller.classification = classification;
  config.controller.sequential_slack = sequential_slack;
  config.duration = 30;
  config.report_every = 5;
  config.device_bytes = 1ull << 30;
  config.clients.push_back(parse_client_spec("name=S,pattern=sequential,util=0.5,depth=16").value());
  config.clients.push_back(parse_client_spec("name=A,pattern=random,util=0.25,depth=16").value());
  config.clients.push_back(parse_client_spec("name=B,pattern=random,util=0.25,depth=16").value());
  OneHeadDisk disk;
  Outcome out;
  double total = 0;
  const auto ran = run_experiment(config, disk, {}, [&](const WindowRow& row) {
    if (row.end <= 5) return;
    out.share[row.client] += row.stats.service_time;
    out.completions[row.client] += static_cast<double>(row.stats.completions);
    total += row.stats.service_time;
  });
  EXPECT_TRUE(ran) << ran.error().to_string();
  for (auto& [client, t] : out.share) t /= total;
  return out;
}

TEST(Controller, StreamClassesChargeTheSeeksBehindRandomRequestsToTheRandomStreams) {
  // The estimator folds the seek back to the sequential run into the random class, so by device
  // time the sequential stream gets more than its share (what the NCQ-32 HDD runs showed).
  const Outcome by_stream = one_head_run(Classification::stream, 0);
  EXPECT_GT(by_stream.share.at("S"), 0.6);
}

TEST(Controller, DispatchClassesChargeEachSeekToTheStreamThatPaysIt) {
  // Strict EDF interleaves the streams finely, so the sequential stream pays a seek after many
  // random requests; charged to it, the shares of device time meet the targets.
  const Outcome strict = one_head_run(Classification::dispatch, 0);
  EXPECT_NEAR(strict.share.at("S"), 0.5, 0.03);
  EXPECT_NEAR(strict.share.at("A"), 0.25, 0.03);
  EXPECT_NEAR(strict.share.at("B"), 0.25, 0.03);
}

TEST(Controller, SequentialSlackKeepsRunsTogetherWithSharesOnTarget) {
  const Outcome strict = one_head_run(Classification::dispatch, 0);
  const Outcome batched = one_head_run(Classification::dispatch, 0.1);
  EXPECT_NEAR(batched.share.at("S"), 0.5, 0.03);
  EXPECT_NEAR(batched.share.at("A"), 0.25, 0.03);
  EXPECT_NEAR(batched.share.at("B"), 0.25, 0.03);
  // The same share of time buys the sequential stream more requests when it seeks less.
  EXPECT_GT(batched.completions.at("S"), 2 * strict.completions.at("S"));
}

TEST(Controller, RejectsUnknownClientsZeroLengthAndDuplicates) {
  ToyDisk disk;
  Controller controller(ControllerConfig{}, disk, 0);
  EXPECT_EQ(controller.submit(3, Operation::read, 0, 4096, 0).error().key, "client");
  const auto a = controller.add_client("a", 0.5);
  ASSERT_TRUE(a);
  EXPECT_EQ(controller.add_client("a", 0.5).error().key, "client");
  EXPECT_EQ(controller.add_client("b", 0).error().key, "utilization");
  EXPECT_EQ(controller.submit(a.value(), Operation::read, 0, 0, 0).error().key, "length");
  EXPECT_EQ(controller.set_utilization(a.value(), 7).error().key, "utilization");
  EXPECT_EQ(controller.set_utilization(9, 0.5).error().key, "client");
}

TEST(Controller, BackendFailureIsReportedAndCountedNotLeaked) {
  ToyDisk disk;
  Controller controller(ControllerConfig{}, disk, 0);
  const auto a = controller.add_client("a", 0.5).value();
  ASSERT_TRUE(controller.submit(a, Operation::read, 0, 4096, 0));
  disk.fail_next();
  const auto sent = controller.dispatch(0);
  ASSERT_FALSE(sent);
  EXPECT_EQ(sent.error().key, "toy");
  EXPECT_EQ(controller.in_flight(), 0u);
  EXPECT_EQ(controller.outstanding(a), 0u);
  EXPECT_EQ(controller.take_window()[0].errors, 1u);
}

TEST(Controller, ThroughputBaselineIgnoresQBoxsSeekCharging) {
  // fifo shares QBoxQueue; neither slack nor dispatch-time charges may change its schedule.
  const Outcome plain = one_head_run(Classification::stream, 0, SchedulerKind::fifo);
  const Outcome with_settings = one_head_run(Classification::dispatch, 0.1, SchedulerKind::fifo);
  EXPECT_EQ(plain.completions, with_settings.completions);
}

TEST(Controller, ParsesClassificationNamingTheField) {
  EXPECT_EQ(parse_classification("dispatch").value(), Classification::dispatch);
  EXPECT_EQ(parse_classification("stream").value(), Classification::stream);
  EXPECT_EQ(parse_classification("device").error().key, "classify");
}

TEST(Controller, ParsesPricingNamingTheFieldAndTheAcceptedValues) {
  EXPECT_EQ(parse_pricing("thesis").value(), Pricing::thesis);
  EXPECT_EQ(parse_pricing("osd").value(), Pricing::osd);
  const Error bad = parse_pricing("OSD").error();
  EXPECT_EQ(bad.key, "pricing");
  EXPECT_NE(bad.message.find("'thesis' or 'osd'"), std::string::npos) << bad.message;
}

TEST(Controller, OsdPricingIsQBoxsAndTakesNoDispatchClasses) {
  ControllerConfig config;
  config.pricing = Pricing::osd;
  EXPECT_TRUE(check(config));
  config.scheduler = SchedulerKind::fifo;
  EXPECT_EQ(check(config).error().key, "pricing");
  config.scheduler = SchedulerKind::qbox;
  config.classification = Classification::dispatch;
  EXPECT_EQ(check(config).error().key, "pricing");
}

// The write-heavy mix of bench/qbox/osd_shares.py (3.2w) on the device models at the time scales
// the OSD benchmark emulates them with: a client's black-box share is its IOPS in the mix over its
// IOPS alone on a fresh device, after the first 4 s.
enum class Model { ssd, hdd };

std::unique_ptr<SimBackend> emulated(Model model) {
  if (model == Model::ssd) return SimBackend::ssd(0, 10).value();
  return SimBackend::hdd(32, 2e12, 2).value();
}

void run_mix(Pricing pricing, SchedulerKind scheduler, const std::vector<std::string>& specs,
             Model model, const std::function<void(const WindowRow&)>& on_row) {
  ExperimentConfig config;
  config.controller.scheduler = scheduler;
  config.controller.pricing = pricing;
  config.controller.max_in_flight = 8;  // below each client's 16: backlogs wait in QBox's queue
  config.duration = 40;
  config.report_every = 2;
  for (const auto& spec : specs) config.clients.push_back(parse_client_spec(spec).value());
  auto device = emulated(model);
  config.device_bytes = device->capacity_bytes();
  const auto ran = run_experiment(config, *device, {}, on_row);
  EXPECT_TRUE(ran) << ran.error().to_string();
}

double mean_iops(Pricing pricing, SchedulerKind scheduler, const std::vector<std::string>& specs,
                 const std::string& client, Model model = Model::ssd) {
  double iops = 0;
  int windows = 0;
  run_mix(pricing, scheduler, specs, model, [&](const WindowRow& row) {
    if (row.end <= 4 || row.client != client) return;
    iops += static_cast<double>(row.stats.completions) / row.window;
    ++windows;
  });
  return windows > 0 ? iops / windows : 0;
}

const std::map<std::string, std::string> kWriteHeavy = {
    {"RW", "name=RW,pattern=random,op=write,size=4096,depth=16,util="},
    {"SW", "name=SW,pattern=sequential,op=write,size=1048576,depth=16,util="},
    {"RR", "name=RR,pattern=random,size=4096,depth=16,util="},
};
const std::map<std::string, std::string> kWriteHeavyTargets = {
    {"RW", "0.2"}, {"SW", "0.2"}, {"RR", "0.6"}};

std::vector<std::string> write_heavy_mix() {
  std::vector<std::string> mix;
  for (const auto& [name, spec] : kWriteHeavy) mix.push_back(spec + kWriteHeavyTargets.at(name));
  return mix;
}

std::map<std::string, double> write_heavy_shares(Pricing pricing, Model model = Model::ssd) {
  std::map<std::string, double> shares;
  for (const auto& [name, spec] : kWriteHeavy) {
    const double alone =
        mean_iops(Pricing::thesis, SchedulerKind::fifo, {spec + "1"}, name, model);
    shares[name] = mean_iops(pricing, SchedulerKind::qbox, write_heavy_mix(), name, model) / alone;
  }
  return shares;
}

// Each client's share of the model's device time in each 2 s window ending after `from` and by
// `to`, as the model measures it.
std::map<std::string, std::vector<double>> write_heavy_device_shares(Pricing pricing, Model model,
                                                                     Seconds from, Seconds to) {
  std::map<std::string, std::vector<double>> shares;
  run_mix(pricing, SchedulerKind::qbox, write_heavy_mix(), model, [&](const WindowRow& row) {
    if (row.end <= from || row.end > to || row.total_service_time <= 0) return;
    shares[row.client].push_back(row.stats.service_time / row.total_service_time);
  });
  return shares;
}

TEST(Controller, OsdPricingHoldsTheWritersToTheirSharesOfTheSsdModel) {
  // The thesis' estimator keeps the 1 MiB write near its prior and lets the writer take the
  // device (bench/qbox/README.md); the OSD's write pricer charges it what the reads lose.
  const auto thesis = write_heavy_shares(Pricing::thesis);
  EXPECT_GT(thesis.at("SW"), 0.8);
  const auto osd = write_heavy_shares(Pricing::osd);
  EXPECT_NEAR(osd.at("SW"), 0.2, 0.05);
  EXPECT_NEAR(osd.at("RR"), 0.6, 0.05);
  // Priced per byte alone (the windows never show the per-op term 4x better), a 4 KiB random
  // write costs less than it takes: 0.27 for 0.2 when this test was written.
  EXPECT_NEAR(osd.at("RW"), 0.2, 0.1);
}

TEST(Controller, OsdPricingTagsQueuedWritesAgainAfterAWrongEarlyFitWithoutACatchUp) {
  // On the disk model the first write fits are per byte alone and divide the 4 KiB writer's seeks
  // by bytes: 1.22 s per MiB to 12 s, then about 9 ms per write and 12 ms per MiB. Before queued
  // writes were tagged again at each fit the 1 MiB writer's kept the price of then and it got
  // 0.006 of its rate for the rest of the run. Once cheaper tags could put its deadlines before
  // everyone's it caught up instead, with 0.47-0.61 of the device in the 6 s after the fit while
  // the reader got 0.39-0.51 of it for its 0.6 (QBoxQueue::reprice).
  const auto shares = write_heavy_device_shares(Pricing::osd, Model::hdd, 14, 36);
  ASSERT_EQ(shares.at("SW").size(), 11u);
  double sum = 0;
  for (const double share : shares.at("SW")) {
    EXPECT_LT(share, 0.35);
    sum += share;
  }
  EXPECT_NEAR(sum / 11, 0.2, 0.06);
  for (const double share : shares.at("RR")) EXPECT_GT(share, 0.5);
}

TEST(Experiment, RejectsBadConfigNamingTheField) {
  ToyDisk disk;
  ExperimentConfig config = two_streams(SchedulerKind::qbox);
  config.duration = 0;
  EXPECT_EQ(run_experiment(config, disk, {}, [](const WindowRow&) {}).error().key, "duration");
  config = two_streams(SchedulerKind::qbox);
  config.device_bytes = 4096;
  EXPECT_EQ(run_experiment(config, disk, {}, [](const WindowRow&) {}).error().key, "device_bytes");
  config = two_streams(SchedulerKind::qbox);
  config.clients.push_back(parse_client_spec("name=T,pattern=trace,trace=/nonexistent,util=0.1").value());
  EXPECT_EQ(run_experiment(config, disk, {}, [](const WindowRow&) {}).error().key, "client T: trace");
  config = two_streams(SchedulerKind::fifo);
  config.controller.pricing = Pricing::osd;
  EXPECT_EQ(run_experiment(config, disk, {}, [](const WindowRow&) {}).error().key, "pricing");
}

TEST(FileBackend, RejectsBadConfigAndRequests) {
  EXPECT_EQ(FileBackend::open(FileBackendConfig{}).error().key, "path");
  FileBackendConfig config;
  config.path = "/nonexistent-dir/qbox.img";
  config.size_bytes = 1 << 20;
  EXPECT_EQ(FileBackend::open(config).error().key, "path");
  config.path = erails::test::unique_temp_path("qbox_bad.img");
  config.size_bytes = 1000;
  EXPECT_EQ(FileBackend::open(config).error().key, "size_bytes");
  config.size_bytes = 1 << 20;
  config.queue_depth = 0;
  EXPECT_EQ(FileBackend::open(config).error().key, "queue_depth");
  config.queue_depth = 2;
  auto backend = FileBackend::open(config);
  ASSERT_TRUE(backend) << backend.error().to_string();
  EXPECT_EQ(backend.value()->submit(BackendRequest{Operation::read, 100, 4096, 1}, 0).error().key, "offset");
  EXPECT_EQ(backend.value()->submit(BackendRequest{Operation::read, 1 << 20, 4096, 1}, 0).error().key, "offset");
  ::unlink(config.path.c_str());
}

// Runs the whole stack on a small real file for a few seconds: O_DIRECT, Linux AIO, wall clock.
TEST(FileBackend, RunsTwoStreamsOnASmallFile) {
  FileBackendConfig file;
  file.path = erails::test::unique_temp_path("qbox_file_test.img");
  file.size_bytes = 32 << 20;
  file.queue_depth = 8;
  auto backend = FileBackend::open(file);
  ASSERT_TRUE(backend) << backend.error().to_string();
  ExperimentConfig config = two_streams(SchedulerKind::qbox);
  config.controller.max_in_flight = 8;
  config.duration = 3;
  config.report_every = 1;
  config.device_bytes = backend.value()->capacity_bytes();
  config.clients[0].region_bytes = 16 << 20;
  config.clients[1].region_bytes = 16 << 20;
  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, std::uint64_t> completions;
  std::uint64_t errors = 0;
  int rows = 0;
  const auto ran = run_experiment(
      config, *backend.value(),
      [start] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); },
      [&](const WindowRow& row) {
        completions[row.client] += row.stats.completions;
        errors += row.stats.errors;
        ++rows;
      });
  ::unlink(file.path.c_str());
  ASSERT_TRUE(ran) << ran.error().to_string();
  EXPECT_EQ(rows, 6);
  EXPECT_EQ(errors, 0u);
  EXPECT_GT(completions["S"], 0u);
  EXPECT_GT(completions["R"], 0u);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(elapsed, 10.0);
}

}  // namespace
}  // namespace erails::qbox
