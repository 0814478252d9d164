// Latency distribution with fixed memory: logarithmic buckets 1% wide from 1 microsecond to
// ~10,000 seconds, so percentiles are exact to within 1% whatever the request count.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace erails::sim {

class LatencyHistogram {
 public:
  LatencyHistogram() : buckets_(kBuckets, 0) {}

  void add(double seconds) {
    count_++;
    sum_ += seconds;
    if (seconds > max_) max_ = seconds;
    buckets_[bucket_of(seconds)]++;
  }
  void merge(const LatencyHistogram& other) {
    count_ += other.count_;
    sum_ += other.sum_;
    if (other.max_ > max_) max_ = other.max_;
    for (int i = 0; i < kBuckets; ++i) buckets_[i] += other.buckets_[i];
  }
  uint64_t count() const { return count_; }
  double mean() const { return count_ ? sum_ / count_ : 0; }
  double max() const { return max_; }

  // Upper edge of the bucket holding the q-quantile (0 < q <= 1); 0 when empty.
  double quantile(double q) const {
    if (count_ == 0) return 0;
    const auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
    uint64_t seen = 0;
    for (int i = 0; i < kBuckets; ++i) {
      seen += buckets_[i];
      if (seen >= rank && seen > 0) return std::fmin(upper_edge(i), max_);
    }
    return max_;
  }

 private:
  static constexpr int kBuckets = 2400;
  static constexpr double kMin = 1e-6;
  static int bucket_of(double s) {
    if (!(s > kMin)) return 0;
    const int b = static_cast<int>(std::log(s / kMin) / std::log(1.01)) + 1;
    return b < kBuckets ? b : kBuckets - 1;
  }
  static double upper_edge(int b) { return kMin * std::pow(1.01, b); }

  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  double sum_ = 0;
  double max_ = 0;
};

}  // namespace erails::sim
