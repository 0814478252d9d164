// QoS schedulers in the simulator: the QBox library's queues order each data device's requests.
#include <gtest/gtest.h>

#include <sstream>

#include "sim/config.h"
#include "sim/report.h"
#include "sim/simulation.h"
#include "sim/targets.h"

namespace erails::sim {
namespace {

// One drive-B SSD per copy (policy none, k = m = 1), two closed-loop random readers of different
// request sizes, each backlogged so the scheduler, not the clients, decides the split.
std::string two_readers(const std::string& scheduler, const std::string& small, const std::string& large,
                        const std::string& cluster = "read_cost = 1e-4\nwrite_cost = 4e-4\n") {
  return "include = intel510_drive_b.conf\n"
         "[sim]\nseed = 3\nduration = 5\nscheduler = " + scheduler +
         "\n[cluster]\nk = 1\nm = 1\ndata_device = intel510\ndispatch_depth = 1\n" + cluster +
         "[stream small]\noutstanding = 64\nsize = 4096\nobjects = 100000\n" + small +
         "\n[stream large]\noutstanding = 64\nsize = 65536\nobjects = 100000\n" + large + "\n";
}

Expected<SimConfig> parse(const std::string& text) {
  return parse_config(text, std::string(ERAILS_DEVICE_MODELS) + "/test.conf", devices::file_include_loader());
}

RunResult run_text(const std::string& text, SimConfig* out = nullptr) {
  auto c = parse(text);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  if (out) *out = c.value();
  return run_simulation(c.value(), {});
}

// Completed while the clients ran (the first 5 s): queued requests drain after that.
double completions(const RunResult& r, size_t stream) {
  double n = 0;
  for (size_t i = 0; i < 5 && i < r.stream_timeline[stream].size(); ++i) n += r.stream_timeline[stream][i];
  return n;
}

TEST(Scheduler, QboxSplitsDeviceTimeByUtilization) {
  // Equal shares of device time at a price 16x higher for the large stream: 16x fewer requests.
  const RunResult r = run_text(two_readers("qbox", "utilization = 0.5", "utilization = 0.5"));
  EXPECT_EQ(r.invariant_violations, 0u);
  EXPECT_NEAR(completions(r, 0) / completions(r, 1), 16, 16 * 0.05);
}

TEST(Scheduler, FifoSplitsRequestCountsByUtilization) {
  const RunResult r = run_text(two_readers("fifo", "utilization = 0.25", "utilization = 0.75"));
  EXPECT_EQ(r.invariant_violations, 0u);
  EXPECT_NEAR(completions(r, 0) / completions(r, 1), 1.0 / 3, 0.05 / 3);
}

TEST(Scheduler, MclockHoldsALimitedStreamToItsLimit) {
  // Two copies, each with its own queue: 100 requests/s per device, 200/s for the stream.
  const RunResult r = run_text(two_readers("mclock", "limit = 100", "weight = 2", ""));
  EXPECT_EQ(r.invariant_violations, 0u);
  EXPECT_NEAR(completions(r, 0) / 5, 200, 200 * 0.05);
  EXPECT_GT(completions(r, 1) / 5, 1000);
}

TEST(Scheduler, MclockGivesAReservationAgainstAHeavyWeight) {
  // 300 requests/s reserved per device; the other stream's weight would otherwise take ~99%.
  const RunResult r = run_text(two_readers("mclock", "reservation = 300", "weight = 100", ""));
  const RunResult unreserved = run_text(two_readers("mclock", "", "weight = 100", ""));
  EXPECT_GE(completions(r, 0) / 5, 600 * 0.95);
  EXPECT_LT(completions(unreserved, 0) / 5, 600 * 0.5);
}

// A reader and a writer over a wide range on two copies (policy none: a read uses one drive, a
// write both), equal utilizations, the profile pricing reads and writes alike.
std::string reader_and_writer(const std::string& cost_source) {
  return "include = intel510_drive_b.conf\n"
         "[sim]\nseed = 3\nduration = 10\nscheduler = qbox\n"
         "[cluster]\nk = 1\nm = 1\ndata_device = intel510\ndispatch_depth = 2\nread_cost = 1e-4\n"
         "write_cost = 1e-4\ncost_source = " + cost_source + "\n"
         "[stream reader]\noutstanding = 32\nsize = 65536\nobjects = 100000\nutilization = 0.5\n"
         "[stream writer]\noutstanding = 32\nsize = 65536\nread_fraction = 0\nobjects = 3000000\n"
         "utilization = 0.5\n";
}

TEST(Scheduler, QboxEstimatorLearnsThatWritesCostMore) {
  // Per drive, the profile gives reads and writes equal request counts; QBox's own estimator sees
  // writes (and their GC) take longer and gives the reader more requests for the same share.
  const RunResult profile = run_text(reader_and_writer("profile"));
  const RunResult estimator = run_text(reader_and_writer("estimator"));
  EXPECT_EQ(estimator.invariant_violations, 0u);
  const double profile_ratio = (profile.reads / 1.0) / (profile.writes * 2.0);
  const double estimator_ratio = (estimator.reads / 1.0) / (estimator.writes * 2.0);
  EXPECT_NEAR(profile_ratio, 1, 0.1);
  EXPECT_GT(estimator_ratio, 1.5);
}

TEST(Scheduler, RailsWithQboxKeepsTheInvariantsAndJudgesTargets) {
  const std::string text =
      "include = intel510_drive_b.conf\ninclude = nvme_journal.conf\n"
      "[sim]\nseed = 7\nduration = 20\npolicy = rails\nscheduler = qbox\n"
      "[cluster]\nk = 1\nm = 1\ndata_device = intel510\njournal_device = nvme_journal\nframe = 5\nguard = 1\n"
      "read_cost = 1e-4\nwrite_cost = 4e-4\nhold_budget = 1e9\n"
      "[stream r]\noutstanding = 8\nobjects = 100000\nutilization = 0.5\ntarget = 500\n"
      "[stream w]\noutstanding = 2\nread_fraction = 0\nobjects = 100000\nutilization = 0.5\n"
      "target = 1e6\ntarget_window = 10\n";
  SimConfig c;
  const RunResult r = run_text(text, &c);
  EXPECT_EQ(r.invariant_violations, 0u) << (r.first_violations.empty() ? "" : r.first_violations[0]);
  EXPECT_EQ(r.mixed_reads, 0u);
  const auto targets = judge_targets(c, r);
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[0].windows, 20u);
  EXPECT_EQ(targets[0].met, 20u);  // 500 reads/s is far below what a read-phase drive gives
  EXPECT_EQ(targets[1].windows, 2u);
  EXPECT_EQ(targets[1].met, 0u);   // a million writes/s is not
}

TEST(Scheduler, ReadsQueuedBeforeTheSwitchGoBeforeTheNewWriterWrites) {
  // Reads still in a QBox queue at their OSD's switch are dispatched after it (late). If the OSD
  // queued its held writes beside them, EDF would dispatch some writes first and their GC would
  // block the late reads; with a guard long enough for the leftover GC, nothing else can.
  const std::string text =
      "include = intel510_drive_b.conf\ninclude = nvme_journal.conf\n"
      "[sim]\nseed = 7\nduration = 40\npolicy = rails\nscheduler = qbox\n"
      "[cluster]\nk = 1\nm = 1\ndata_device = intel510\njournal_device = nvme_journal\nframe = 5\nguard = 1\n"
      "read_cost = 1.4e-5\nwrite_cost = 2e-5\n"
      "[stream r]\noutstanding = 16\nobjects = 760000\nutilization = 0.5\n"
      "[stream w]\noutstanding = 4\nread_fraction = 0\nobjects = 760000\nutilization = 0.5\n";
  const RunResult r = run_text(text);
  EXPECT_EQ(r.invariant_violations, 0u) << (r.first_violations.empty() ? "" : r.first_violations[0]);
  EXPECT_GT(r.late_reads, 0u);
  EXPECT_GT(r.gc_events, 0u);
  EXPECT_EQ(r.read_latency_by_cause[kReadWaitedOnGc].count(), 0u);
  EXPECT_EQ(r.read_gc_blocked, 0);
}

TEST(Scheduler, SameSeedSameOutput) {
  auto csv = [] {
    SimConfig c;
    const RunResult r = run_text(two_readers("qbox", "utilization = 0.5", "utilization = 0.5"), &c);
    std::ostringstream s;
    write_summary_csv(s, c, r);
    write_stream_timeline_csv(s, c, r);
    return s.str();
  };
  EXPECT_EQ(csv(), csv());
}

void expect_error(const std::string& text, const std::string& key, const std::string& words) {
  auto c = parse(text);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().key, key) << c.error().message;
  EXPECT_NE(c.error().message.find(words), std::string::npos) << c.error().message;
}

TEST(Scheduler, BadSettingsAreRefusedNamingTheKey) {
  expect_error(two_readers("qbox", "", "utilization = 0.5"), "utilization", "[stream small] scheduler qbox needs");
  expect_error(two_readers("qbox", "utilization = 0.6", "utilization = 0.5"), "utilization", "add up to 1.1");
  expect_error(two_readers("none", "utilization = 0.6", ""), "utilization", "only by scheduler qbox or fifo");
  expect_error(two_readers("qbox", "utilization = 0.5", "utilization = 0.5", ""), "read_cost", "needs read_cost");
  expect_error(two_readers("fifo", "utilization = 0.5\nreservation = 3", "utilization = 0.5"), "reservation",
               "only by scheduler mclock");
  expect_error(two_readers("mclock", "reservation = 100\nlimit = 50", ""), "limit", "below reservation");
  expect_error(two_readers("mclock", "weight = 0", ""), "weight", "accepted: a number in 1e-6..1e9");
  expect_error(two_readers("mclock", "target = 5\ntarget_window = 1.5", ""), "target_window", "multiple");
  expect_error(two_readers("qbox", "utilization = 1.5", "utilization = 0.5"), "utilization", "1e-6..1");
  expect_error(two_readers("lottery", "", ""), "scheduler", "accepted: none, qbox, fifo, mclock");
  expect_error(two_readers("fifo", "utilization = 0.5", "utilization = 0.5", "cost_source = estimator\n"),
               "cost_source", "read only by scheduler qbox");
  expect_error(two_readers("qbox", "utilization = 0.5", "utilization = 0.5", "read_cost = 1e-4\nwrite_cost = 1e-4\n"
                                                                           "cost_source = guess\n"),
               "cost_source", "accepted: profile, estimator");
}

}  // namespace
}  // namespace erails::sim
