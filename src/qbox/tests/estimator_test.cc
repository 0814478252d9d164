#include <gtest/gtest.h>

#include <cmath>
#include <array>
#include <random>

#include "qbox/cost_estimator.h"
#include "qbox/pair_estimator.h"

namespace erails::qbox {
namespace {

struct TrueCosts {
  Seconds read_sequential;
  Seconds read_random;
  Seconds write_sequential;
  Seconds write_random;

  Seconds of(RequestClass c) const {
    if (c.operation == Operation::read) {
      return c.access == Access::sequential ? read_sequential : read_random;
    }
    return c.access == Access::sequential ? write_sequential : write_random;
  }
};

// Drives an estimator with the completions of a saturated one-at-a-time device whose per-class
// costs are known (with +-5% jitter per request). The mix of classes changes every `phase` seconds
// as client demand would, which is what makes the two-window system solvable.
class SyntheticDevice {
 public:
  SyntheticDevice(CostEstimator& estimator, unsigned seed) : estimator_(estimator), rng_(seed) {}

  // Runs until `until`. write_share: largest fraction of requests that are writes; the actual share
  // is redrawn every second, as the write windows need a changing read/write mix to tell the two
  // kinds apart.
  void run(Seconds until, const TrueCosts& costs, double write_share, Seconds idle_every = 0,
           Seconds idle_for = 0) {
    std::uniform_real_distribution<double> unit(0, 1);
    while (now_ < until) {
      if (now_ >= next_phase_) {
        random_share_ = 0.003 + 0.06 * unit(rng_);
        next_phase_ = now_ + 0.25;
      }
      if (now_ >= next_write_phase_) {
        write_now_ = write_share * unit(rng_);
        write_random_share_ = 0.01 + 0.2 * unit(rng_);
        next_write_phase_ = now_ + 1.0;
      }
      if (idle_every > 0 && now_ >= next_idle_) {
        now_ += idle_for;
        next_idle_ = now_ + idle_every;
        continue;
      }
      RequestClass c;
      c.operation = unit(rng_) < write_now_ ? Operation::write : Operation::read;
      const double random_share = c.operation == Operation::read ? random_share_ : write_random_share_;
      c.access = unit(rng_) < random_share ? Access::random : Access::sequential;
      estimator_.on_dispatch(now_);
      now_ += costs.of(c) * (0.95 + 0.1 * unit(rng_));
      estimator_.on_completion(c, now_);
    }
  }

  Seconds now() const { return now_; }

 private:
  CostEstimator& estimator_;
  std::mt19937 rng_;
  Seconds now_ = 0;
  Seconds next_phase_ = 0;
  Seconds next_idle_ = 0;
  Seconds next_write_phase_ = 0;
  double random_share_ = 0.01;
  double write_now_ = 0;
  double write_random_share_ = 0.01;
};

// The moving estimate wanders with the noise of each window (as in thesis fig. 3.9); what must be
// right is where it sits. Runs `seconds` more in 0.5 s steps and averages each class's estimate.
std::array<Seconds, 4> settled_estimates(SyntheticDevice& device, CostEstimator& estimator,
                                         Seconds seconds, const TrueCosts& costs,
                                         double write_share) {
  std::array<Seconds, 4> sum{};
  int samples = 0;
  const Seconds end = device.now() + seconds;
  while (device.now() < end) {
    device.run(device.now() + 0.5, costs, write_share);
    for (Operation op : {Operation::read, Operation::write}) {
      for (Access access : {Access::sequential, Access::random}) {
        const RequestClass c{op, access};
        sum[class_index(c)] += estimator.cost(c).value_or(0);
      }
    }
    ++samples;
  }
  for (Seconds& s : sum) s /= samples;
  return sum;
}

void expect_within(std::optional<Seconds> estimate, Seconds truth, double tolerance) {
  ASSERT_TRUE(estimate);
  EXPECT_LT(std::fabs(*estimate - truth) / truth, tolerance)
      << "estimate " << *estimate << " truth " << truth;
}

constexpr RequestClass kReadSeq{Operation::read, Access::sequential};
constexpr RequestClass kReadRand{Operation::read, Access::random};
constexpr RequestClass kWriteSeq{Operation::write, Access::sequential};
constexpr RequestClass kWriteRand{Operation::write, Access::random};

TEST(CostEstimator, RecoversDiskLikeReadCostsWithin5Percent) {
  CostEstimator estimator(CostEstimatorConfig{}, 0);
  SyntheticDevice device(estimator, 1);
  const TrueCosts disk{0.0002, 0.008, 0, 0};
  device.run(10, disk, 0);
  const auto settled = settled_estimates(device, estimator, 20, disk, 0);
  expect_within(settled[0], disk.read_sequential, 0.05);
  expect_within(settled[1], disk.read_random, 0.05);
  EXPECT_FALSE(estimator.cost(kWriteSeq));
}

TEST(CostEstimator, ConvergesAfterACostChange) {
  CostEstimator estimator(CostEstimatorConfig{}, 0);
  SyntheticDevice device(estimator, 2);
  device.run(20, TrueCosts{0.0002, 0.008, 0, 0}, 0);
  const TrueCosts slower{0.0004, 0.012, 0, 0};
  device.run(30, slower, 0);  // 10 s to converge
  const auto settled = settled_estimates(device, estimator, 20, slower, 0);
  expect_within(settled[0], slower.read_sequential, 0.05);
  expect_within(settled[1], slower.read_random, 0.05);
}

TEST(CostEstimator, RecoversSsdLikeCostsWithSmallRatio) {
  CostEstimator estimator(CostEstimatorConfig{}, 0);
  SyntheticDevice device(estimator, 3);
  // Random and sequential differ little on flash; the mix must swing more to be solvable.
  const TrueCosts ssd{0.00002, 0.00009, 0, 0};
  device.run(10, ssd, 0);
  const auto settled = settled_estimates(device, estimator, 10, ssd, 0);
  expect_within(settled[0], ssd.read_sequential, 0.05);
  expect_within(settled[1], ssd.read_random, 0.05);
}

TEST(CostEstimator, IdleTimeIsNotChargedToRequests) {
  CostEstimator estimator(CostEstimatorConfig{}, 0);
  SyntheticDevice device(estimator, 4);
  const TrueCosts disk{0.0002, 0.008, 0, 0};
  device.run(40, disk, 0, /*idle_every=*/0.05, /*idle_for=*/0.05);
  expect_within(estimator.cost(kReadSeq), disk.read_sequential, 0.05);
  expect_within(estimator.cost(kReadRand), disk.read_random, 0.05);
}

TEST(CostEstimator, EstimatesWritesOverLongWindows) {
  CostEstimatorConfig config;
  config.windows_per_write_window = 10;  // 1 s write windows keep the test short
  CostEstimator estimator(config, 0);
  SyntheticDevice device(estimator, 5);
  const TrueCosts mixed{0.0002, 0.008, 0.0005, 0.012};
  device.run(100, mixed, 0.4);
  const auto settled = settled_estimates(device, estimator, 60, mixed, 0.4);
  expect_within(settled[0], mixed.read_sequential, 0.05);
  expect_within(settled[1], mixed.read_random, 0.05);
  expect_within(settled[2], mixed.write_sequential, 0.05);
  expect_within(settled[3], mixed.write_random, 0.05);
}

TEST(CostEstimator, PriorSeedsEstimateBeforeAnyWindow) {
  CostEstimatorConfig config;
  config.read_prior = CostPair{0.001, 0.01};
  CostEstimator estimator(config, 0);
  EXPECT_DOUBLE_EQ(*estimator.cost(kReadSeq), 0.001);
  EXPECT_DOUBLE_EQ(*estimator.cost(kReadRand), 0.01);
  EXPECT_FALSE(estimator.cost(kWriteRand));
}

TEST(CostEstimator, LongIdleClosesWindowsWithoutUpdating) {
  CostEstimatorConfig config;
  config.read_prior = CostPair{0.001, 0.01};
  CostEstimator estimator(config, 0);
  estimator.advance(3600);
  EXPECT_GE(estimator.windows_closed(), 1u);
  EXPECT_DOUBLE_EQ(*estimator.cost(kReadSeq), 0.001);
  estimator.on_dispatch(3600.0);
  estimator.on_completion(kReadRand, 3600.02);
  estimator.advance(3600.3);
  EXPECT_NEAR(estimator.last_window().busy + 0.0, 0.0, 0.1);
  EXPECT_GT(*estimator.cost(kReadRand), 0.01);  // one 20 ms random read pulled it up
}

TEST(PairEstimator, UsesProjectionWhenNoIntersectionIsValid) {
  PairEstimator estimator(PairEstimatorConfig{}, CostPair{0.001, 0.01});
  // Same mix twice: parallel lines, so only the projection can use the second window.
  EXPECT_EQ(estimator.add_window(Window{50, 5, 0.1}), PairEstimator::Update::projection);
  EXPECT_EQ(estimator.add_window(Window{50, 5, 0.2}), PairEstimator::Update::projection);
  EXPECT_GT(*estimator.sequential(), 0.001);
}

TEST(PairEstimator, IgnoresEmptyWindows) {
  PairEstimator estimator(PairEstimatorConfig{});
  EXPECT_EQ(estimator.add_window(Window{0, 0, 0.1}), PairEstimator::Update::none);
  EXPECT_EQ(estimator.add_window(Window{10, 1, 0}), PairEstimator::Update::none);
  EXPECT_FALSE(estimator.estimate());
}

}  // namespace
}  // namespace erails::qbox
