#include "qbox/window_solver.h"

#include <gtest/gtest.h>

namespace erails::qbox {
namespace {

Window window_of(double sequential, double random, CostPair truth) {
  return Window{sequential, random, sequential * truth.sequential + random * truth.random};
}

TEST(Intersect, RecoversExactCostsFromTwoWindows) {
  const CostPair truth{0.0001, 0.008};
  const auto point = intersect(window_of(800, 2, truth), window_of(200, 10, truth), SolverLimits{});
  ASSERT_TRUE(point);
  EXPECT_NEAR(point->sequential, truth.sequential, 1e-12);
  EXPECT_NEAR(point->random, truth.random, 1e-12);
}

TEST(Intersect, RejectsNegativeQuadrant) {
  // Both counts drop while the time stays the same: the lines cross at a negative cost (3.3).
  const Window i{500, 10, 0.1};
  const Window j{400, 8, 0.1};
  EXPECT_FALSE(intersect(i, j, SolverLimits{}));
}

TEST(Intersect, RejectsNearlyParallelWindows) {
  const CostPair truth{0.0001, 0.008};
  EXPECT_FALSE(intersect(window_of(500, 5, truth), window_of(501, 5, truth), SolverLimits{}));
}

TEST(Intersect, RejectsRatioOutsideBounds) {
  const CostPair truth{0.0001, 1.0};  // ratio 10000 > default max 5000
  EXPECT_FALSE(intersect(window_of(800, 1, truth), window_of(100, 3, truth), SolverLimits{}));
}

TEST(Intersect, SingleClassWindowsHaveNoIntersection) {
  EXPECT_FALSE(intersect(Window{100, 0, 0.1}, Window{50, 0, 0.05}, SolverLimits{}));
}

TEST(Project, KeepsRatioAndLandsOnTheNewWindowLine) {
  const CostPair truth{0.0001, 0.008};
  const Window j = window_of(300, 9, CostPair{0.0002, 0.016});  // costs doubled
  const auto point = project(truth, j);
  ASSERT_TRUE(point);
  EXPECT_NEAR(j.sequential * point->sequential + j.random * point->random, j.busy, 1e-12);
  EXPECT_NEAR(point->random / point->sequential, 80.0, 1e-9);
  EXPECT_NEAR(point->sequential, 0.0002, 1e-12);
}

TEST(Project, NothingForAnEmptyWindow) {
  EXPECT_FALSE(project(CostPair{1, 2}, Window{0, 0, 0.1}));
  EXPECT_FALSE(project(CostPair{0, 2}, Window{1, 1, 0.1}));
}

TEST(SingleClass, DividesBusyTimeByCount) {
  const auto sample = single_class(Window{0, 20, 0.1});
  ASSERT_TRUE(sample);
  EXPECT_EQ(sample->access, Access::random);
  EXPECT_DOUBLE_EQ(sample->cost, 0.005);
  EXPECT_FALSE(single_class(Window{3, 4, 0.1}));
  EXPECT_FALSE(single_class(Window{3, 0, 0}));
}

}  // namespace
}  // namespace erails::qbox
