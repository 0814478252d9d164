#include "pair_estimator.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace qbox {
namespace {

double median(double* values, std::size_t n) {
  std::sort(values, values + n);
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace

PairEstimator::PairEstimator(PairEstimatorConfig config, std::optional<CostPair> prior)
    : config_(config) {
  history_.reserve(config_.history);
  if (prior) {
    sequential_ = prior->sequential;
    random_ = prior->random;
  }
}

std::optional<CostPair> PairEstimator::estimate() const {
  if (!sequential_ || !random_) return std::nullopt;
  return CostPair{*sequential_, *random_};
}

void PairEstimator::blend(std::optional<Seconds>& current, std::optional<Seconds>& previous_sample,
                          Seconds sample) const {
  if (!current) {
    current = sample;
  } else {
    const double jump =
        previous_sample ? std::fabs(sample - *previous_sample) / *previous_sample : 0.0;
    *current += config_.gain / (1.0 + jump) * (sample - *current);
  }
  previous_sample = sample;
}

PairEstimator::Update PairEstimator::add_window(const Window& window) {
  if (window.busy <= 0 || (window.sequential <= 0 && window.random <= 0)) return Update::none;

  Update used = Update::none;
  if (const auto sample = single_class(window)) {
    if (sample->access == Access::sequential) {
      blend(sequential_, last_sequential_sample_, sample->cost);
    } else {
      blend(random_, last_random_sample_, sample->cost);
    }
    used = Update::single_class;
  } else {
    // The median of the valid intersections, not their mean: a pair of windows with nearly the
    // same mix yields a far-off point that would drag a mean, and with ten pairs per window the
    // median ignores such a point.
    std::array<double, 64> sequential_samples;
    std::array<double, 64> random_samples;
    std::size_t valid = 0;
    for (const Window& earlier : history_) {
      if (valid == sequential_samples.size()) break;
      if (const auto point = intersect(earlier, window, config_.limits)) {
        sequential_samples[valid] = point->sequential;
        random_samples[valid] = point->random;
        ++valid;
      }
    }
    if (valid > 0) {
      blend(sequential_, last_sequential_sample_, median(sequential_samples.data(), valid));
      blend(random_, last_random_sample_, median(random_samples.data(), valid));
      used = Update::intersections;
    } else if (const auto current = estimate()) {
      // With no earlier window the estimate's ratio is read off the new window itself.
      const Window& previous =
          history_.empty() ? window
                           : history_[(next_slot_ + history_.size() - 1) % history_.size()];
      if (const auto point = project(*current, previous, window)) {
        blend(sequential_, last_sequential_sample_, point->sequential);
        blend(random_, last_random_sample_, point->random);
        used = Update::projection;
      }
    }
  }

  if (config_.history > 0) {
    if (history_.size() < config_.history) {
      history_.push_back(window);
      next_slot_ = history_.size() % config_.history;
    } else {
      history_[next_slot_] = window;
      next_slot_ = (next_slot_ + 1) % config_.history;
    }
  }
  return used;
}

}  // namespace qbox
