#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "devices/hdd.h"
#include "devices/model_config.h"
#include "devices/ssd.h"

namespace erails::devices {
namespace {

SsdParams drive(const std::string& file, const std::string& name) {
  auto models = load_models(std::string(ERAILS_DEVICE_MODELS) + "/" + file);
  EXPECT_TRUE(models.ok()) << (models.ok() ? "" : models.error().message);
  return models.value().at(name).ssd;
}

SsdParams drive_b() { return drive("intel510_drive_b.conf", "intel510"); }
SsdParams drive_a() { return drive("intel_x25e_drive_a.conf", "x25e"); }

// Keeps `depth` requests queued on the device (a closed loop) for `seconds`; returns the time the
// last completed. `next` makes each request.
template <class Next>
double saturate(Device& d, int depth, double seconds, Next next) {
  std::vector<double> done(depth, 0.0);
  double last = 0;
  for (;;) {
    auto slot = std::min_element(done.begin(), done.end());
    if (*slot > seconds) break;
    *slot = d.submit(*slot, next()).completion;
    last = std::max(last, *slot);
  }
  return last;
}

TEST(Ssd, ReadsAloneAreSteadyAndMatchFig411) {
  SsdModel ssd(drive_b());
  uint64_t i = 0;
  const double end = saturate(ssd, 8, 10.0, [&] { return IoRequest{Operation::read, (i++ * 7919) << 18, 262144}; });
  const double rate = ssd.stats().reads / end;
  EXPECT_NEAR(rate, 1100, 30);  // fig. 4.11a: 1100 reads/s of 256 KB
  EXPECT_EQ(ssd.stats().gc_events, 0u);
}

// 30 s of 256 KB random writes over the first `range_bytes`, 8 in flight: the share of time the
// drive was blocked by GC.
double blocked_under_random_writes(SsdModel& ssd, double range_bytes) {
  Rng rng(7);
  const double end = saturate(ssd, 8, 30.0, [&] {
    return IoRequest{Operation::write, rng.below(range_bytes / 262144) * 262144, 262144};
  });
  return ssd.stats().gc_blocked_seconds / end;
}

TEST(Ssd, RandomWritesOverWideRangeBlockAboutSixtyPercent) {
  SsdModel ssd(drive_b());
  const double blocked = blocked_under_random_writes(ssd, 200e9);
  EXPECT_GT(blocked, 0.5);  // fig. 4.4: "blocks for over 600 ms/sec"
  EXPECT_LT(blocked, 0.7);
  EXPECT_GT(ssd.stats().gc_events, 100u);
}

TEST(Ssd, DriveARandomWritesOverItsFirst50GBBlockOverSixtyPercent) {
  SsdModel ssd(drive_a());
  const double blocked = blocked_under_random_writes(ssd, 50e9);
  EXPECT_GT(blocked, 0.6);  // fig. 4.4: "blocks for over 600 ms/sec"
  EXPECT_LT(blocked, 0.7);
}

TEST(Ssd, DriveAInheritsDriveBsGcEventsAndKeepsItsOwnSize) {
  const SsdParams a = drive_a(), b = drive_b();
  EXPECT_EQ(a.name, "x25e");
  EXPECT_EQ(a.capacity_bytes, 65e9);
  EXPECT_EQ(a.gc_event_max, b.gc_event_max);
  EXPECT_EQ(a.bg_gc_interval, b.bg_gc_interval);
  EXPECT_TRUE(validate(a).ok());
}

TEST(Ssd, NarrowRangeWritesBarelyBlock) {
  SsdParams p = drive_b();
  p.initial_footprint = 0;
  SsdModel ssd(p);
  Rng rng(7);
  const double end = saturate(ssd, 8, 30.0, [&] {
    return IoRequest{Operation::write, rng.below(100e6 / 262144) * 262144, 262144};
  });
  EXPECT_LT(ssd.stats().gc_blocked_seconds / end, 0.1);  // fig. 4.3a: 100 MB range is predictable
}

TEST(Ssd, GcEventsLastAtMostTheConfiguredMaximum) {
  SsdModel ssd(drive_b());
  Rng rng(3);
  double worst_wait = 0;
  std::vector<double> done(4, 0.0);
  for (int i = 0; i < 20000; ++i) {
    auto slot = std::min_element(done.begin(), done.end());
    const auto io = ssd.submit(*slot, {Operation::write, rng.below(760000) * 262144, 262144});
    worst_wait = std::max(worst_wait, io.gc_wait);
    *slot = io.completion;
  }
  EXPECT_GT(worst_wait, 0.0);
  // A request can wait for at most the events a single write triggers back to back.
  EXPECT_LE(worst_wait, 0.1 * 2 + 1e-9);
}

TEST(Ssd, SequentialRewriteShrinksTheFootprint) {
  SsdModel ssd(drive_b());
  const double u_before = ssd.victim_valid_fraction();
  double t = 0;
  for (uint64_t off = 0; off < 50e9; off += 4 << 20) t = ssd.submit(t, {Operation::write, off, 4 << 20}).completion;
  EXPECT_LT(ssd.victim_valid_fraction(), u_before);
}

TEST(Ssd, IdleTimeReclaimsSoLaterReadsSeeNoGc) {
  SsdModel ssd(drive_b());
  Rng rng(1);
  double t = saturate(ssd, 8, 5.0, [&] { return IoRequest{Operation::write, rng.below(760000) * 262144, 262144}; });
  const auto events = ssd.stats().gc_events;
  t += 10.0;  // idle long enough to reach the target
  for (int i = 0; i < 2000; ++i) t = ssd.submit(t, {Operation::read, uint64_t(i) << 18, 262144}).completion;
  EXPECT_EQ(ssd.stats().gc_events, events);
}

TEST(Ssd, BusyReadsRightAfterWritesMeetLeftoverGc) {
  SsdModel ssd(drive_b());
  Rng rng(1);
  const double t = saturate(ssd, 8, 5.0, [&] { return IoRequest{Operation::write, rng.below(760000) * 262144, 262144}; });
  const auto events = ssd.stats().gc_events;
  uint64_t i = 0;
  std::vector<double> done(8, t);
  double waited = 0;
  for (int n = 0; n < 4000; ++n) {
    auto slot = std::min_element(done.begin(), done.end());
    const auto io = ssd.submit(*slot, {Operation::read, (i++) << 18, 262144});
    waited += io.gc_wait;
    *slot = io.completion;
  }
  EXPECT_GT(ssd.stats().gc_events, events);
  EXPECT_GT(waited, 0.0);
}

TEST(Ssd, ValidationNamesTheField) {
  SsdParams p = drive_b();
  p.gc_target_free_bytes = p.gc_low_free_bytes;
  EXPECT_EQ(validate(p).error().key, "gc_target_free_bytes");
  p = drive_b();
  p.parallelism = 0;
  EXPECT_EQ(validate(p).error().key, "parallelism");
  EXPECT_TRUE(validate(drive_b()).ok());
}

// The same load on the same drive, arriving `scale` times more slowly: every time the scaled
// model returns must be the unscaled one's times `scale`, GC included.
template <class Model, class Params>
void expect_scaled(const Params& base, double scale) {
  Params scaled_params = base;
  scaled_params.time_scale = scale;
  Model plain(base), scaled(scaled_params);
  Rng rng(11);
  double t = 0;
  for (int i = 0; i < 20000; ++i) {
    t += rng.uniform() * 2e-4;
    const IoRequest req{i % 3 ? Operation::write : Operation::read, rng.below(1 << 20) * 262144, 262144};
    const IoResult a = plain.submit(t, req), b = scaled.submit(t * scale, req);
    ASSERT_NEAR(b.completion, a.completion * scale, 1e-9 * b.completion) << "request " << i;
    ASSERT_NEAR(b.gc_wait, a.gc_wait * scale, 1e-9 * b.completion) << "request " << i;
  }
  EXPECT_NEAR(scaled.drained_at(), plain.drained_at() * scale, 1e-9 * scaled.drained_at());
  EXPECT_EQ(scaled.stats().gc_events, plain.stats().gc_events);
  EXPECT_NEAR(scaled.stats().busy_seconds, plain.stats().busy_seconds * scale, 1e-6 * scaled.stats().busy_seconds);
  EXPECT_NEAR(scaled.stats().gc_blocked_seconds, plain.stats().gc_blocked_seconds * scale,
              1e-6 * (1 + scaled.stats().gc_blocked_seconds));
}

TEST(Ssd, TimeScaleStretchesEveryDurationGcIncluded) {
  SsdParams b = drive_b();
  expect_scaled<SsdModel>(b, 10.0);
  expect_scaled<SsdModel>(b, 0.25);
  SsdModel probe(b);
  Rng rng(11);
  double t = 0;
  for (int i = 0; i < 20000; ++i) t = probe.submit(t, {Operation::write, rng.below(1 << 20) * 262144, 262144}).completion;
  EXPECT_GT(probe.stats().gc_events, 10u);  // the load above does reach garbage collection
}

TEST(Ssd, TimeScaleMustBeFiniteAndPositive) {
  for (double bad : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    SsdParams p = drive_b();
    p.time_scale = bad;
    ASSERT_FALSE(validate(p).ok()) << bad;
    EXPECT_EQ(validate(p).error().key, "time_scale");
    EXPECT_EQ(validate(p).error().message, "time_scale must be finite and > 0");
  }
}

TEST(Hdd, TimeScaleStretchesEveryDuration) {
  expect_scaled<HddModel>(HddParams{}, 10.0);
  HddParams p;
  p.time_scale = 0;
  EXPECT_EQ(validate(p).error().key, "time_scale");
}

TEST(Hdd, SequentialIsOrdersOfMagnitudeCheaperThanRandom) {
  HddParams p;
  HddModel seq(p), rnd(p);
  double ts = 0, tr = 0;
  Rng rng(5);
  for (int i = 0; i < 1000; ++i) {
    ts = seq.submit(ts, {Operation::read, uint64_t(i) * 4096, 4096}).completion;
    tr = rnd.submit(tr, {Operation::read, rng.below(1e12 / 4096) * 4096, 4096}).completion;
  }
  EXPECT_GT(tr / ts, 100.0);
}

TEST(Hdd, DeeperQueuesShortenRandomAccess) {
  HddParams p;
  auto run = [&](int depth) {
    HddModel d(p);
    Rng rng(5);
    return saturate(d, depth, 5.0, [&] { return IoRequest{Operation::read, rng.below(1e12 / 4096) * 4096, 4096}; }) /
           static_cast<double>(d.stats().reads);
  };
  EXPECT_LT(run(16), run(1) / 3);
}

TEST(Hdd, ValidationNamesTheField) {
  HddParams p;
  p.ncq_depth = 0;
  EXPECT_EQ(validate(p).error().key, "ncq_depth");
  EXPECT_EQ(validate(p).error().message, "ncq_depth must be in 1..256");
}

}  // namespace
}  // namespace erails::devices
