#include "sim/latency_histogram.h"

#include <gtest/gtest.h>

namespace erails::sim {
namespace {

TEST(LatencyHistogram, MergeIsTheHistogramOfBothInputs) {
  LatencyHistogram fast, slow, both;
  for (int i = 0; i < 999; ++i) {
    fast.add(0.004);
    both.add(0.004);
  }
  slow.add(0.08);
  both.add(0.08);
  LatencyHistogram merged = fast;
  merged.merge(slow);
  EXPECT_EQ(merged.count(), 1000u);
  EXPECT_DOUBLE_EQ(merged.max(), 0.08);
  EXPECT_DOUBLE_EQ(merged.mean(), both.mean());
  for (double q : {0.5, 0.999, 1.0}) EXPECT_DOUBLE_EQ(merged.quantile(q), both.quantile(q)) << q;
  EXPECT_DOUBLE_EQ(merged.quantile(1.0), 0.08);
  EXPECT_LT(merged.quantile(0.999), 0.00405);
}

TEST(LatencyHistogram, MergingAnEmptyHistogramChangesNothing) {
  LatencyHistogram h, empty;
  h.add(0.01);
  h.merge(empty);
  EXPECT_EQ(h.count(), 1u);
  EXPECT_DOUBLE_EQ(h.max(), 0.01);
  empty.merge(LatencyHistogram{});
  EXPECT_EQ(empty.quantile(0.5), 0);
}

}  // namespace
}  // namespace erails::sim
