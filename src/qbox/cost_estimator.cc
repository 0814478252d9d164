#include "qbox/cost_estimator.h"

#include <algorithm>
#include <cmath>

namespace erails::qbox {
namespace {

constexpr std::size_t kReadSequential = 0;
constexpr std::size_t kReadRandom = 1;
constexpr std::size_t kWriteSequential = 2;
constexpr std::size_t kWriteRandom = 3;

// Time the other operation kind is estimated to have used in a window; nothing if it had
// completions that cannot be priced yet.
std::optional<Seconds> time_used(const PairEstimator& kind, double sequential, double random) {
  if (sequential <= 0 && random <= 0) return 0.0;
  const auto seq = kind.sequential();
  const auto rnd = kind.random();
  if ((sequential > 0 && !seq) || (random > 0 && !rnd)) return std::nullopt;
  return (sequential > 0 ? sequential * *seq : 0.0) + (random > 0 ? random * *rnd : 0.0);
}

}  // namespace

CostEstimator::CostEstimator(CostEstimatorConfig config, Seconds start)
    : config_(config),
      reads_(config.reads, config.read_prior),
      writes_(config.writes, config.write_prior),
      window_end_(start + config.window),
      last_event_(start) {}

void CostEstimator::accumulate_busy(Seconds until) {
  if (in_flight_ > 0 && until > last_event_) {
    current_.busy += until - last_event_;
  }
  last_event_ = std::max(last_event_, until);
}

void CostEstimator::advance(Seconds now) {
  while (now >= window_end_) {
    accumulate_busy(window_end_);
    close_window();
    window_end_ += config_.window;
    // Idle stretches close only empty windows; skip them in one step instead of one by one.
    if (in_flight_ == 0 && now >= window_end_ + config_.window) {
      const double skipped = std::floor((now - window_end_) / config_.window);
      window_end_ += skipped * config_.window;
      windows_in_long_ += static_cast<std::size_t>(skipped);
      if (windows_in_long_ >= config_.windows_per_write_window) close_write_window();
      last_event_ = window_end_ - config_.window;
    }
  }
  accumulate_busy(now);
}

void CostEstimator::on_dispatch(Seconds now) {
  advance(now);
  ++in_flight_;
}

void CostEstimator::on_completion(RequestClass request_class, Seconds now) {
  advance(now);
  current_.completions[class_index(request_class)] += 1;
  if (in_flight_ > 0) --in_flight_;
}

void CostEstimator::close_window() {
  current_.end = window_end_;
  const auto& c = current_.completions;
  if (const auto write_time = time_used(writes_, c[kWriteSequential], c[kWriteRandom])) {
    reads_.add_window(Window{c[kReadSequential], c[kReadRandom], current_.busy - *write_time});
  } else {
    // Bootstrap: until writes have an estimate of their own, price them like reads of the same
    // access pattern. The read estimate starts out blended; once the long windows produce a write
    // estimate, reads are solved on the time left after writes and both settle on their own costs.
    reads_.add_window(Window{c[kReadSequential] + c[kWriteSequential],
                             c[kReadRandom] + c[kWriteRandom], current_.busy});
  }
  long_window_.busy += current_.busy;
  for (std::size_t k = 0; k < c.size(); ++k) long_window_.completions[k] += c[k];
  last_window_ = current_;
  ++windows_closed_;
  current_ = WindowObservation{};
  if (++windows_in_long_ >= config_.windows_per_write_window) close_write_window();
}

void CostEstimator::close_write_window() {
  const auto& c = long_window_.completions;
  if (long_window_.busy > 0 && (c[kWriteSequential] > 0 || c[kWriteRandom] > 0)) {
    const LongWindow observed{c, long_window_.busy};
    if (long_history_.size() < config_.write_history) {
      long_history_.push_back(observed);
    } else {
      long_history_[long_next_] = observed;
      long_next_ = (long_next_ + 1) % long_history_.size();
    }
    if (const auto costs = solve_jointly(long_history_)) {
      writes_.blend_sample((*costs)[kWriteSequential], (*costs)[kWriteRandom]);
    }
  }
  long_window_ = WindowObservation{};
  windows_in_long_ = 0;
}

std::optional<Seconds> CostEstimator::cost(RequestClass request_class) const {
  const PairEstimator& kind = request_class.operation == Operation::read ? reads_ : writes_;
  return request_class.access == Access::sequential ? kind.sequential() : kind.random();
}

}  // namespace erails::qbox
