// The write pricer (write_pricer.h) on hand-made windows: the reads' clean envelope, the residual
// of saturated windows, and the least-squares fit of write ops and bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "qbox/write_pricer.h"

namespace erails::qbox {
namespace {

constexpr std::uint32_t kReader = 7;

WritePricerConfig one_second_windows() {
  WritePricerConfig config;
  config.window = 1.0;
  config.windows_per_long = 1;
  return config;
}

WritePricerConfig three_second_long_windows() {
  WritePricerConfig config = one_second_windows();
  config.windows_per_long = 3;
  return config;
}

// One saturated second: `reads` reads of kReader measured at `read_price` each, and the given writes.
void saturated_second(WritePricer& pricer, Seconds& now, Seconds& busy, int reads,
                      Seconds read_price, int writes, std::uint64_t bytes) {
  for (int i = 0; i < reads; ++i) pricer.on_read(kReader, read_price);
  for (int i = 0; i < writes; ++i) pricer.on_write(bytes);
  now += 1.0;
  busy += 1.0;
  pricer.advance(now, busy);
}

TEST(WritePricer, WritesCostThePriorUntilAFit) {
  const WritePricerConfig config = one_second_windows();
  WritePricer pricer(config, 0);
  EXPECT_STREQ(pricer.price().method, "prior");
  EXPECT_DOUBLE_EQ(pricer.price().of(1 << 20), config.prior_per_op + config.prior_per_byte * (1 << 20));
  EXPECT_FALSE(pricer.writes_active());
}

TEST(WritePricer, AReadAccountsCleanPriceIsItsCheapestWindow) {
  WritePricer pricer(one_second_windows(), 0);
  Seconds now = 0, busy = 0;
  saturated_second(pricer, now, busy, 100, 0.004, 0, 0);
  saturated_second(pricer, now, busy, 500, 0.001, 0, 0);
  saturated_second(pricer, now, busy, 250, 0.002, 0, 0);
  // Too few reads for a mean: left out of the envelope.
  saturated_second(pricer, now, busy, 3, 0.0001, 0, 0);
  EXPECT_DOUBLE_EQ(*pricer.clean_read(kReader), 0.001);
  EXPECT_FALSE(pricer.clean_read(kReader + 1));
}

// Reads cost 1 ms clean; each window the writes take what the reads leave. One writer size: its
// ops and bytes are proportional, so the price is a per-byte one that gives each window's writes
// the rest of it.
TEST(WritePricer, OneWriterIsPricedAtTheTimeTheReadsLeave) {
  WritePricer pricer(one_second_windows(), 0);
  Seconds now = 0, busy = 0;
  saturated_second(pricer, now, busy, 1000, 0.001, 0, 0);
  // 600 reads measured at 1.67 ms (they waited behind the writes): 0.4 s left for 40 writes.
  saturated_second(pricer, now, busy, 600, 1.0 / 600, 40, 65536);
  saturated_second(pricer, now, busy, 800, 1.0 / 800, 20, 65536);
  EXPECT_STREQ(pricer.price().method, "residual");
  EXPECT_EQ(pricer.price().long_windows, 2u);
  EXPECT_NEAR(pricer.price().of(65536), 0.01, 1e-9);
  EXPECT_TRUE(pricer.writes_active());
}

// Five saturated seconds of a 4 KiB and a 1 MiB writer in changing proportions, whose writes cost
// `per_op` + `per_byte` x bytes of device time (under 1 s a second), each second's residual off by
// `noise[i]` seconds.
void two_writer_sizes(WritePricer& pricer, Seconds per_op, Seconds per_byte, const Seconds (&noise)[5]) {
  Seconds now = 0, busy = 0;
  saturated_second(pricer, now, busy, 1000, 0.001, 0, 0);
  const int small[] = {200, 50, 120, 10, 80};
  const int big[] = {2, 10, 5, 12, 6};
  for (int i = 0; i < 5; ++i) {
    const Seconds writes = small[i] * (per_op + per_byte * 4096) + big[i] * (per_op + per_byte * (1 << 20));
    const int reads = static_cast<int>(std::lround((1.0 - writes - noise[i]) / 0.001));
    for (int w = 0; w < small[i]; ++w) pricer.on_write(4096);
    saturated_second(pricer, now, busy, reads, 0.0015, big[i], 1 << 20);
  }
}

constexpr Seconds kNoNoise[5] = {0, 0, 0, 0, 0};
// 20 ms off in four of the five seconds, more where the 4 KiB writer wrote more: least squares
// with two terms read a per-op cost of 0.14 ms into it that the writes do not have.
constexpr Seconds kNoiseLikeSmallWrites[5] = {0.02, 0.02, 0.02, -0.02, 0};

TEST(WritePricer, TwoWriterSizesSeparatePerOpFromPerByte) {
  WritePricer pricer(one_second_windows(), 0);
  constexpr Seconds kPerOp = 0.0005, kPerByte = 2e-8;
  two_writer_sizes(pricer, kPerOp, kPerByte, kNoNoise);
  EXPECT_NEAR(pricer.price().per_op, kPerOp, 0.00005);
  EXPECT_NEAR(pricer.price().per_byte, kPerByte, 2e-10);
}

TEST(WritePricer, APerOpTermTheWindowsShowIsKeptThroughNoise) {
  WritePricer pricer(one_second_windows(), 0);
  constexpr Seconds kPerOp = 0.0005, kPerByte = 2e-8;
  two_writer_sizes(pricer, kPerOp, kPerByte, kNoiseLikeSmallWrites);
  EXPECT_NEAR(pricer.price().per_op, kPerOp, 0.0002);
}

// The per-op term cuts the squared error 2.2 times here, not the 4.4 that an F test at 5% asks of
// five windows: per byte alone.
TEST(WritePricer, APerOpTermThatOnlyFitsNoiseIsDropped) {
  WritePricer pricer(one_second_windows(), 0);
  constexpr Seconds kPerByte = 5e-8;
  two_writer_sizes(pricer, 0, kPerByte, kNoiseLikeSmallWrites);
  EXPECT_EQ(pricer.price().per_op, 0);
  EXPECT_NEAR(pricer.price().per_byte, kPerByte, 0.02 * kPerByte);
}

// Twenty saturated seconds of a steady mix, whose writes cost 0.5 ms + 20 ns a byte, each off by
// up to 30 ms: over the last five the per-op term cuts the squared error 2.9 times, too little
// for five windows; over all twenty it cuts it 4.8 times, enough for twenty.
void a_steady_mix_for_twenty_seconds(WritePricer& pricer) {
  constexpr Seconds kPerOp = 0.0005, kPerByte = 2e-8;
  Seconds now = 0, busy = 0;
  saturated_second(pricer, now, busy, 1000, 0.001, 0, 0);
  for (int i = 0; i < 20; ++i) {
    const int small = 60 + 50 * (i * 7 % 5), big = 4 + 2 * (i * 3 % 4);
    const Seconds noise = 0.01 * (i * 5 % 7 - 3);
    const Seconds writes =
        small * (kPerOp + kPerByte * 4096) + big * (kPerOp + kPerByte * (1 << 20));
    const int reads = static_cast<int>(std::lround((1.0 - writes - noise) / 0.001));
    for (int w = 0; w < small; ++w) pricer.on_write(4096);
    saturated_second(pricer, now, busy, reads, 0.0015, big, 1 << 20);
  }
}

TEST(WritePricer, APerOpTermTooFaintForFiveWindowsIsFoundInTwenty) {
  WritePricerConfig five = one_second_windows();
  five.per_op_history = 5;
  WritePricer over_five(five, 0);
  a_steady_mix_for_twenty_seconds(over_five);
  EXPECT_EQ(over_five.price().per_op, 0);
  WritePricer over_twenty(one_second_windows(), 0);
  a_steady_mix_for_twenty_seconds(over_twenty);
  EXPECT_EQ(over_twenty.price().long_windows, 20u);
  EXPECT_EQ(over_twenty.price().per_byte_windows, 5u);
  EXPECT_NEAR(over_twenty.price().per_op, 0.0005, 0.0001);
  EXPECT_NEAR(over_twenty.price().per_byte, 2e-8, 2e-9);
}

// Saturated seconds of 4 MiB and 1 MiB writes alone fit 22 ms per write and 78 ms per MiB, and
// the per-op term is kept; but no write of the fit's windows was shorter than 1 MiB, so a shorter
// one is charged per byte at a 1 MiB write's price, not 22 ms and more.
TEST(WritePricer, AWriteShorterThanTheFitsWritesIsChargedPerByte) {
  WritePricer pricer(one_second_windows(), 0);
  Seconds now = 0, busy = 0;
  saturated_second(pricer, now, busy, 1000, 0.001, 0, 0);
  for (int i = 0; i < 5; ++i) {
    if (i % 2 == 0) {
      saturated_second(pricer, now, busy, 0, 0, 3, 4u << 20);
    } else {
      saturated_second(pricer, now, busy, 0, 0, 10, 1u << 20);
    }
  }
  const WritePrice& price = pricer.price();
  EXPECT_EQ(price.long_windows, 5u);
  EXPECT_NEAR(price.per_op, 0.0222, 0.0001);
  EXPECT_EQ(price.shortest, 1u << 20);
  EXPECT_NEAR(price.of(1u << 20), 0.1, 1e-9);
  EXPECT_NEAR(price.of(4u << 20), 1.0 / 3, 1e-9);
  EXPECT_NEAR(price.of(4096), 0.1 / 256, 1e-9);
}

// Without a per-op term a write is charged per byte whatever its length: nothing to bound.
TEST(WritePricer, PerByteAloneHasNoShortestWrite) {
  WritePricer pricer(one_second_windows(), 0);
  Seconds now = 0, busy = 0;
  saturated_second(pricer, now, busy, 1000, 0.001, 0, 0);
  saturated_second(pricer, now, busy, 600, 1.0 / 600, 40, 65536);
  EXPECT_EQ(pricer.price().per_op, 0);
  EXPECT_EQ(pricer.price().shortest, 0u);
}

// The OSD is primary for a sixth of the writes it does; the rest are replica sub-ops, charged to
// nobody. The device prices every write alike, and the client writes pay for all six.
TEST(WritePricer, ClientWritesPayForTheReplicaSubOps) {
  WritePricer pricer(one_second_windows(), 0);
  constexpr Seconds kPerByte = 2e-8;
  Seconds now = 0, busy = 0;
  saturated_second(pricer, now, busy, 1000, 0.001, 0, 0);
  const int writes[] = {60, 120, 30};
  for (const int n : writes) {
    for (int w = 0; w < 5 * n; ++w) pricer.on_replica_write(65536);
    const Seconds residual = 6 * n * kPerByte * 65536;
    saturated_second(pricer, now, busy, static_cast<int>(std::lround((1 - residual) * 1000)), 0.001,
                     n, 65536);
  }
  EXPECT_NEAR(pricer.price().copies, 6, 1e-9);
  EXPECT_NEAR(pricer.price().per_byte, 6 * kPerByte, 0.01 * 6 * kPerByte);
  EXPECT_DOUBLE_EQ(pricer.observations().back().client_ops, 30);
  EXPECT_DOUBLE_EQ(pricer.observations().back().ops, 180);
}

// Replica sub-ops alone: nothing to charge yet, and the device's price is not multiplied.
TEST(WritePricer, ReplicaSubOpsAloneArePricedOnce) {
  WritePricer pricer(one_second_windows(), 0);
  Seconds now = 0, busy = 0;
  saturated_second(pricer, now, busy, 1000, 0.001, 0, 0);
  for (int w = 0; w < 100; ++w) pricer.on_replica_write(65536);
  saturated_second(pricer, now, busy, 800, 0.001, 0, 0);
  EXPECT_STREQ(pricer.price().method, "residual");
  EXPECT_DOUBLE_EQ(pricer.price().copies, 1);
  EXPECT_NEAR(pricer.price().of(65536), 0.002, 1e-9);
  EXPECT_TRUE(pricer.writes_active());
}

// Two long windows always fit two terms exactly, whatever they cost: per byte alone.
TEST(WritePricer, TwoWindowsAreNotEnoughForAPerOpTerm) {
  WritePricer pricer(one_second_windows(), 0);
  Seconds now = 0, busy = 0;
  saturated_second(pricer, now, busy, 1000, 0.001, 0, 0);
  for (int w = 0; w < 200; ++w) pricer.on_write(4096);
  saturated_second(pricer, now, busy, 500, 0.0015, 2, 1 << 20);
  for (int w = 0; w < 10; ++w) pricer.on_write(4096);
  saturated_second(pricer, now, busy, 700, 0.0015, 10, 1 << 20);
  EXPECT_EQ(pricer.price().long_windows, 2u);
  EXPECT_EQ(pricer.price().per_op, 0);
}

// One saturated second with `writes` writes of 64 KiB, each charged the price in force, and the
// reads leave `residual` of the second to the writes.
void second_with_writes(WritePricer& pricer, Seconds& now, Seconds& busy, int writes,
                        Seconds residual) {
  for (int i = 0; i < writes; ++i) {
    EXPECT_DOUBLE_EQ(pricer.on_write(65536), pricer.price().of(65536));
  }
  const int reads = static_cast<int>(std::lround((1 - residual) * 1000));
  for (int i = 0; i < reads; ++i) pricer.on_read(kReader, 1.0 / reads);
  now += 1.0;
  busy += 1.0;
  pricer.advance(now, busy);
}

TEST(WritePricer, ThePricePerByteFollowsTheLastLongWindows) {
  WritePricerConfig config = one_second_windows();
  config.long_history = 2;
  WritePricer pricer(config, 0);
  Seconds now = 0, busy = 0;
  saturated_second(pricer, now, busy, 1000, 0.001, 0, 0);  // reads cost 1 ms clean
  // 40 writes; the reads leave 0.4 s: 10 ms a write.
  second_with_writes(pricer, now, busy, 40, 0.4);
  EXPECT_NEAR(pricer.price().of(65536), 0.01, 1e-9);
  second_with_writes(pricer, now, busy, 40, 0.2);  // both windows: 7.5 ms a write
  EXPECT_NEAR(pricer.price().of(65536), 0.0075, 1e-9);
  second_with_writes(pricer, now, busy, 40, 0.4);  // 0.2 and 0.4: 7.5 ms again
  EXPECT_NEAR(pricer.price().of(65536), 0.0075, 1e-9);
  second_with_writes(pricer, now, busy, 40, 0.6);  // 0.4 and 0.6: 12.5 ms
  EXPECT_NEAR(pricer.price().of(65536), 0.0125, 1e-9);
  EXPECT_EQ(pricer.price().long_windows, 4u);
}

TEST(WritePricer, ObservationsAreTheLastLongWindowsOldestFirst) {
  WritePricerConfig config = one_second_windows();
  config.per_op_history = 3;
  WritePricer pricer(config, 0);
  Seconds now = 0, busy = 0;
  saturated_second(pricer, now, busy, 1000, 0.001, 0, 0);
  for (int writes = 1; writes <= 5; ++writes) saturated_second(pricer, now, busy, 900, 0.001, writes, 4096);
  const std::vector<WriteObservation> observed = pricer.observations();
  ASSERT_EQ(observed.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(observed[i].number, i + 3);
    EXPECT_EQ(observed[i].ops, static_cast<double>(i + 3));
    EXPECT_EQ(observed[i].bytes, 4096.0 * static_cast<double>(i + 3));
    EXPECT_NEAR(observed[i].residual, 0.1, 1e-9);
  }
}

// A window in which the OSD idled says nothing about what the writes cost: the device may have
// had time to spare.
TEST(WritePricer, UnsaturatedWindowsAreLeftOut) {
  WritePricer pricer(one_second_windows(), 0);
  Seconds now = 0, busy = 0;
  saturated_second(pricer, now, busy, 1000, 0.001, 0, 0);
  for (int i = 0; i < 10; ++i) pricer.on_write(65536);
  now += 1.0;
  busy += 0.3;
  pricer.advance(now, busy);
  EXPECT_STREQ(pricer.price().method, "prior");
  EXPECT_TRUE(pricer.writes_active());
}

TEST(WritePricer, WritesStopBeingActiveALongWindowAfterTheLast) {
  WritePricer pricer(three_second_long_windows(), 0);
  Seconds now = 0, busy = 0;
  saturated_second(pricer, now, busy, 100, 0.001, 5, 4096);
  EXPECT_TRUE(pricer.writes_active());
  saturated_second(pricer, now, busy, 100, 0.001, 0, 0);
  saturated_second(pricer, now, busy, 100, 0.001, 0, 0);
  EXPECT_TRUE(pricer.writes_active());
  saturated_second(pricer, now, busy, 100, 0.001, 0, 0);
  EXPECT_FALSE(pricer.writes_active());
}

// A quiet spell closes its windows in one step; they still count towards the long window after
// the last write.
TEST(WritePricer, AQuietSpellCountsEveryWindowItSpans) {
  WritePricer pricer(three_second_long_windows(), 0);
  Seconds now = 0, busy = 0;
  saturated_second(pricer, now, busy, 100, 0.001, 5, 4096);
  pricer.advance(now + 10.5, busy);
  EXPECT_FALSE(pricer.writes_active());
}

}  // namespace
}  // namespace erails::qbox
