#include "qbox/pair_estimator.h"

#include <cmath>

namespace erails::qbox {

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
    // A weighted mean of the valid intersections, each weighted by how sharply its two lines
    // cross (squared normalized determinant). Pairs of windows with nearly the same mix place
    // their intersection almost anywhere along the line; a plain mean or median of them drifts
    // toward the middle of the positive segment, while these weights make the mean the
    // least-squares fit of the windows (Jacobi's identity for two unknowns).
    CostPair weighted;
    double total_weight = 0;
    for (const Window& earlier : history_) {
      if (const auto point = intersect(earlier, window, config_.limits)) {
        const double weight = crossing_weight(earlier, window);
        weighted.sequential += weight * point->sequential;
        weighted.random += weight * point->random;
        total_weight += weight;
      }
    }
    if (total_weight > 0) {
      blend(sequential_, last_sequential_sample_, weighted.sequential / total_weight);
      blend(random_, last_random_sample_, weighted.random / total_weight);
      used = Update::intersections;
    } else if (const auto current = estimate()) {
      if (const auto point = project(*current, window)) {
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

}  // namespace erails::qbox
