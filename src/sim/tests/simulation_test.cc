#include "sim/simulation.h"

#include <gtest/gtest.h>

#include <sstream>

#include "sim/report.h"

namespace erails::sim {
namespace {

// Two drive-B SSDs, replication, a read stream and a write stream over a wide range.
std::string rails_config(const std::string& policy, const std::string& extra = "") {
  return "include = intel510_drive_b.conf\ninclude = nvme_journal.conf\n"
         "[sim]\nseed = 11\nduration = 30\npolicy = " + policy +
         "\n[cluster]\nk = 1\nm = 1\ndata_device = intel510\njournal_device = nvme_journal\nframe = 5\n" + extra +
         "\n[stream r]\noutstanding = 4\nobjects = 760000\n"
         "[stream w]\noutstanding = 2\nread_fraction = 0\nobjects = 760000\n";
}

RunResult run_text(const std::string& text, SimConfig* out = nullptr) {
  auto c = parse_config(text, std::string(ERAILS_DEVICE_MODELS) + "/test.conf", devices::file_include_loader());
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  if (out) *out = c.value();
  return run_simulation(c.value(), {});
}

TEST(Simulation, RailsKeepsReadsAwayFromGc) {
  const RunResult none = run_text(rails_config("none"));
  const RunResult rails = run_text(rails_config("rails"));
  EXPECT_EQ(none.invariant_violations, 0u) << (none.first_violations.empty() ? "" : none.first_violations[0]);
  EXPECT_EQ(rails.invariant_violations, 0u) << (rails.first_violations.empty() ? "" : rails.first_violations[0]);
  EXPECT_GT(none.read_gc_blocked / none.client_end, 0.2);
  EXPECT_LT(rails.read_gc_blocked / rails.client_end, none.read_gc_blocked / none.client_end / 3);
  EXPECT_LT(rails.read_latency.quantile(0.99), none.read_latency.quantile(0.99) / 3);
  EXPECT_GT(rails.reads, none.reads);
  EXPECT_EQ(rails.mixed_reads, 0u);
}

uint64_t reads_by(const RunResult& r, ReadCause cause) { return r.read_latency_by_cause[cause].count(); }

TEST(Simulation, EveryReadIsCountedUnderWhatDelayedIt) {
  SimConfig c;
  const RunResult r = run_text(rails_config("rails"), &c);
  EXPECT_EQ(reads_by(r, kReadWaitedOnGc) + reads_by(r, kReadWithWrites) + reads_by(r, kReadClean), r.reads);
  // Without a guard the reader pays the writer's leftover GC debt right after each switch, and
  // those reads are the whole tail: a GC event lasts at least gc_event_min (25 ms), every other
  // read is served within a few transfers.
  EXPECT_GT(reads_by(r, kReadWaitedOnGc), 0u);
  EXPECT_GT(r.read_latency_by_cause[kReadWaitedOnGc].max(), 0.025);
  EXPECT_LT(r.read_latency_by_cause[kReadClean].max(), 0.01);
  EXPECT_LT(r.read_latency_by_cause[kReadWithWrites].max(), 0.02);
  std::ostringstream csv, text;
  write_summary_csv(csv, c, r);
  write_text_summary(text, c, r);
  EXPECT_NE(csv.str().find(",reads_waited_gc,reads_with_writes,read_p99.9_without_gc,read_max_without_gc,shard_reads\n"),
            std::string::npos);
  EXPECT_NE(text.str().find("reads by what delayed them: waited on GC " + std::to_string(reads_by(r, kReadWaitedOnGc))),
            std::string::npos)
      << text.str();
}

TEST(Simulation, GuardThatCoversTheLeftoverGcKeepsItFromReads) {
  // Drive B's debt: a GC event in progress when the guard starts (up to 100 ms) and then up to
  // 20 MB reclaimed while idle at ~6 ns/byte (~0.12 s): 0.3 s of idle covers both, 0.05 s does not.
  const RunResult covered = run_text(rails_config("rails", "guard = 0.3"));
  const RunResult short_guard = run_text(rails_config("rails", "guard = 0.05"));
  EXPECT_EQ(covered.invariant_violations, 0u) << (covered.first_violations.empty() ? "" : covered.first_violations[0]);
  EXPECT_EQ(reads_by(covered, kReadWaitedOnGc), 0u);
  EXPECT_EQ(covered.read_gc_blocked, 0);
  EXPECT_LT(covered.read_latency.max(), 0.01);
  EXPECT_GT(reads_by(short_guard, kReadWaitedOnGc), 0u);
}

TEST(Simulation, SameSeedSameOutputDifferentSeedDifferentOutput) {
  auto csv = [](uint64_t seed) {
    SimConfig c;
    std::string text = rails_config("rails");
    text.replace(text.find("seed = 11"), 9, "seed = " + std::to_string(seed));
    const RunResult r = run_text(text, &c);
    std::ostringstream s;
    write_summary_csv(s, c, r);
    write_timeline_csv(s, r);
    return s.str();
  };
  EXPECT_EQ(csv(5), csv(5));
  EXPECT_NE(csv(5), csv(6));
}

TEST(Simulation, SmallBudgetThrottlesWritersButNeverExceedsIt) {
  const RunResult r = run_text(rails_config("rails", "hold_budget = 4e6"));
  EXPECT_EQ(r.invariant_violations, 0u) << (r.first_violations.empty() ? "" : r.first_violations[0]);
  EXPECT_LE(r.max_osd_held, 4e6);
  EXPECT_GT(r.max_osd_held, 3e6);
  const RunResult roomy = run_text(rails_config("rails"));
  EXPECT_LT(r.writes, roomy.writes);
}

TEST(Simulation, ErasureCodedReadsUseOnlyReadPhaseShards) {
  const std::string text =
      "[sim]\nduration = 6\npolicy = erails\n[cluster]\nk = 3\nm = 3\nosds_per_color = 2\npgs = 32\n"
      "data_device = b\njournal_device = j\nframe = 1\nguard = 0.2\n[ssd b]\n[ssd j]\n"
      "[stream mix]\noutstanding = 8\nread_fraction = 0.75\nsize = 131072\nobjects = 20000\n";
  const RunResult r = run_text(text);
  EXPECT_EQ(r.invariant_violations, 0u) << (r.first_violations.empty() ? "" : r.first_violations[0]);
  EXPECT_GT(r.reads, 1000u);
  EXPECT_GT(r.writes, 300u);
  EXPECT_EQ(r.mixed_reads, 0u);
}

TEST(Simulation, FailedOsdIsReadAroundAndCounted) {
  const std::string text =
      "[sim]\nduration = 6\npolicy = erails\n[cluster]\nk = 3\nm = 3\npgs = 32\n"
      "data_device = b\njournal_device = j\nframe = 1\n[ssd b]\n[ssd j]\n"
      "[stream r]\noutstanding = 8\nsize = 131072\nobjects = 20000\n"
      "[stream w]\noutstanding = 2\nread_fraction = 0\nsize = 131072\nobjects = 20000\n"
      "[failure f]\nosd = 1\nat = 2\n";
  const RunResult r = run_text(text);
  EXPECT_EQ(r.invariant_violations, 0u) << (r.first_violations.empty() ? "" : r.first_violations[0]);
  EXPECT_GT(r.mixed_reads, 100u);  // whenever color 1 reads, one write-phase shard replaces it
  EXPECT_EQ(r.unavailable_requests, 0u);
}

TEST(Simulation, ReplicationSurvivesOneCopyAndReportsTheLastOne) {
  const std::string base =
      "[sim]\nduration = 4\npolicy = rails\n[cluster]\nk = 1\nm = 1\n"
      "data_device = b\njournal_device = j\nframe = 1\n[ssd b]\n[ssd j]\n"
      "[stream r]\noutstanding = 4\nobjects = 1000\n"
      "[stream w]\noutstanding = 1\nread_fraction = 0\nobjects = 1000\n"
      "[failure a]\nosd = 0\nat = 1\n";
  const RunResult one = run_text(base);
  EXPECT_EQ(one.invariant_violations, 0u) << (one.first_violations.empty() ? "" : one.first_violations[0]);
  EXPECT_GT(one.mixed_reads, 0u);
  EXPECT_EQ(one.unavailable_requests, 0u);
  const RunResult both = run_text(base + "[failure b]\nosd = 1\nat = 2\n");
  EXPECT_GT(both.unavailable_requests, 0u);
  EXPECT_GT(both.invariant_violations, 0u);  // objects written before the failures are gone
}

TEST(Simulation, SlowDrivesStretchTheTail) {
  const std::string base =
      "[sim]\nduration = 4\npolicy = none\n[cluster]\nk = 3\nm = 3\nosds_per_color = 4\npgs = 64\n"
      "data_device = b\n[ssd b]\n"
      "[stream r]\nkind = open\nrate = 3000\nsize = 131072\nobjects = 20000\n";
  const RunResult fast = run_text(base);
  const RunResult slow = run_text(base + "[slow s]\nfraction = 0.5\nfactor = 4\n");
  EXPECT_EQ(fast.slow_osds, 0u);
  EXPECT_GT(slow.slow_osds, 4u);
  EXPECT_LT(slow.slow_osds, 20u);
  EXPECT_GT(slow.read_latency.quantile(0.99), 2 * fast.read_latency.quantile(0.99));
}

// One OSD of a 4+2 pool 10x slower: reading around it brings the tail back near a healthy
// cluster's with k shard reads per read; fast_read does it by fetching all k+m.
TEST(Simulation, ReadsAroundASlowOsdOrFastReadCutTheTail) {
  const std::string base =
      "[sim]\nduration = 4\npolicy = none\n[cluster]\nk = 4\nm = 2\npgs = 64\ndata_device = b\n[ssd b]\n"
      "initial_footprint = 0\n[stream r]\noutstanding = 8\nsize = 16384\nobjects = 20000\n";
  const std::string slow = "[slow s]\nosd = 2\nfactor = 10\n";
  const RunResult healthy = run_text(base);
  const RunResult stock = run_text(base + slow);
  const RunResult around_on = run_text(
      "[sim]\nread_around = on\n" + base.substr(std::string("[sim]\n").size()) + slow);
  const RunResult fast = run_text("[sim]\nfast_read = on\n" + base.substr(std::string("[sim]\n").size()) + slow);
  for (const RunResult* r : {&healthy, &stock, &around_on, &fast}) {
    EXPECT_EQ(r->invariant_violations, 0u) << (r->first_violations.empty() ? "" : r->first_violations[0]);
  }
  EXPECT_EQ(stock.slow_osds, 1u);
  EXPECT_GT(stock.read_latency.quantile(0.99), 3 * healthy.read_latency.quantile(0.99));
  EXPECT_LT(around_on.read_latency.quantile(0.99), 1.5 * healthy.read_latency.quantile(0.99));
  EXPECT_LT(fast.read_latency.quantile(0.99), 1.5 * healthy.read_latency.quantile(0.99));
  EXPECT_DOUBLE_EQ(static_cast<double>(healthy.shard_reads) / healthy.reads, 4.0);
  EXPECT_DOUBLE_EQ(static_cast<double>(around_on.shard_reads) / around_on.reads, 4.0);
  EXPECT_DOUBLE_EQ(static_cast<double>(fast.shard_reads) / fast.reads, 6.0);
}

// Under rails a read-phase color holding a slow OSD gives way to a write-phase shard: counted as
// mixed, not as a violation, and no read is lost or wrong. (At factor 10 this writer's held writes
// no longer drain in time on the slow OSD, with or without read_around.)
TEST(Simulation, ReadAroundUnderRailsMixesInsteadOfReadingTheSlowOsd) {
  std::string text = rails_config("rails") + "[slow s]\nosd = 0\nfactor = 3\n";
  text.replace(text.find("[sim]\n"), 6, "[sim]\nread_around = on\n");
  const RunResult r = run_text(text);
  EXPECT_EQ(r.invariant_violations, 0u) << (r.first_violations.empty() ? "" : r.first_violations[0]);
  EXPECT_GT(r.mixed_reads, 0u);
}

TEST(Simulation, OpenLoopAndTraceStreamsRun) {
  const std::string text =
      "[sim]\nduration = 3\n[cluster]\ndata_device = b\n[ssd b]\n"
      "[stream o]\nkind = open\nrate = 200\nread_fraction = 0.5\n"
      "[stream t]\nkind = trace\ntrace = t.csv\nsize = 4096\n";
  auto c = parse_config(text, "dir/test.conf", {});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c.value().streams[1].trace, "dir/t.csv");
  auto trace = parse_msr_trace("0,h,0,Read,0,4096,1\n5000000,h,0,Write,8192,4096,1\n10000000,h,0,Read,8192,4096,1\n", "t");
  ASSERT_TRUE(trace.ok());
  Traces traces{{"dir/t.csv", trace.value()}};
  const RunResult r = run_simulation(c.value(), traces);
  EXPECT_EQ(r.invariant_violations, 0u);
  EXPECT_GT(r.reads + r.writes, 400u);
  EXPECT_LT(r.reads + r.writes, 800u);
}

}  // namespace
}  // namespace erails::sim
