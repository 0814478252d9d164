#include "rails/schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace erails::rails {
namespace {

Schedule make(int n, double frame, int readers, double epoch = 0, double guard = 0) {
  auto s = Schedule::create({n, frame, readers, epoch, guard});
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.value();
}

TEST(Schedule, WindowSlidesOneColorPerFrame) {
  auto s = make(5, 2.0, 2);
  EXPECT_EQ(s.read_set(0.0).to_vector(), (std::vector<int>{0, 1}));
  EXPECT_EQ(s.read_set(1.999).to_vector(), (std::vector<int>{0, 1}));
  EXPECT_EQ(s.read_set(2.0).to_vector(), (std::vector<int>{1, 2}));
  EXPECT_EQ(s.read_set(8.0).to_vector(), (std::vector<int>{0, 4}));  // wraps around the ring
  EXPECT_EQ(s.read_set(10.0).to_vector(), (std::vector<int>{0, 1}));
  EXPECT_EQ(s.phase(4, 8.5), Phase::kRead);
  EXPECT_EQ(s.phase(2, 8.5), Phase::kWrite);
}

TEST(Schedule, BeforeEpochUsesMathematicalFloorAndModulo) {
  auto s = make(4, 1.0, 1, 100.0);
  EXPECT_EQ(s.frame(99.5), -1);
  EXPECT_EQ(s.window_start(99.5), 3);
  EXPECT_EQ(s.frame(99.0), -1);
  EXPECT_EQ(s.frame(98.999), -2);
  EXPECT_EQ(s.window_start(95.0), 3);  // frame -5
  EXPECT_EQ(s.next_switch(99.5), 100.0);
}

TEST(Schedule, NextSwitchIsStrictlyAfterT) {
  auto s = make(3, 1.0, 1);
  EXPECT_EQ(s.next_switch(0.0), 1.0);
  EXPECT_EQ(s.next_switch(0.5), 1.0);
  EXPECT_EQ(s.next_switch(1.0), 2.0);
}

TEST(Schedule, SwitchTimeIsWhereTheFloorFlipsEvenForInexactFrames) {
  auto s = make(5, 0.1, 3, 1700000000.0, 0.02);
  for (double t = 1700000123.0; t < 1700000124.0; t += 0.0137) {
    const double sw = s.next_switch(t);
    ASSERT_GT(sw, t);
    EXPECT_EQ(s.frame(sw), s.frame(t) + 1);
    EXPECT_EQ(s.frame(std::nextafter(sw, -std::numeric_limits<double>::infinity())), s.frame(t));
  }
}

TEST(Schedule, NextPhaseChangeMatchesBruteForce) {
  auto s = make(7, 1.5, 3, -4.0);
  for (double t = -30.0; t < 30.0; t += 0.75) {
    for (int c = 0; c < 7; ++c) {
      double expected = s.next_switch(t);
      while (s.phase(c, expected) == s.phase(c, t)) expected = s.next_switch(expected);
      EXPECT_EQ(s.next_phase_change(c, t), expected) << "color " << c << " t " << t;
    }
  }
}

TEST(Schedule, GuardStopsOnlyTheIncomingReader) {
  // N=4, s=2, frame 0 reads {0,1}; at t=1 color 2 becomes a reader and color 0 a writer.
  auto s = make(4, 1.0, 2, 0.0, 0.25);
  EXPECT_TRUE(s.may_apply_writes(2, 0.5));
  EXPECT_TRUE(s.may_apply_writes(2, 0.74));
  EXPECT_FALSE(s.may_apply_writes(2, 0.75));
  EXPECT_FALSE(s.may_apply_writes(2, 0.99));
  EXPECT_TRUE(s.may_apply_writes(3, 0.99));   // stays a writer across the switch
  EXPECT_FALSE(s.may_apply_writes(0, 0.5));   // a reader never applies
  EXPECT_FALSE(s.may_apply_writes(1, 0.99));
  EXPECT_EQ(s.phase(2, 0.9), Phase::kWrite);  // the guard leaves the phase alone
  EXPECT_TRUE(s.may_apply_writes(0, 1.0));
  EXPECT_EQ(s.apply_set(0.8).to_vector(), (std::vector<int>{3}));
}

TEST(Schedule, ZeroGuardLetsEveryWriterApplyUntilTheSwitch) {
  auto s = make(3, 1.0, 1);
  EXPECT_TRUE(s.may_apply_writes(1, 0.999999));
  EXPECT_EQ(s.apply_set(0.999999).to_vector(), (std::vector<int>{1, 2}));
}

struct BadCase {
  ScheduleParams params;
  const char* key;
};

TEST(Schedule, BadParametersNameTheKeyAndTheRange) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const BadCase cases[] = {
      {{1, 1.0, 1, 0, 0}, "k+m"},           {{65, 1.0, 1, 0, 0}, "k+m"},
      {{4, 0.0, 1, 0, 0}, "rails-frame"},   {{4, -1.0, 1, 0, 0}, "rails-frame"},
      {{4, nan, 1, 0, 0}, "rails-frame"},   {{4, inf, 1, 0, 0}, "rails-frame"},
      {{4, 0.0005, 1, 0, 0}, "rails-frame"}, {{4, 1.0, 2, 2e12, 0}, "rails-epoch"},
      {{4, 1.0, 0, 0, 0}, "rails-readers"}, {{4, 1.0, 4, 0, 0}, "rails-readers"},
      {{4, 1.0, 2, nan, 0}, "rails-epoch"}, {{4, 1.0, 2, inf, 0}, "rails-epoch"},
      {{4, 1.0, 2, 0, -0.1}, "rails-guard"}, {{4, 1.0, 2, 0, 1.0}, "rails-guard"},
      {{4, 1.0, 2, 0, nan}, "rails-guard"},
  };
  for (const auto& c : cases) {
    auto s = Schedule::create(c.params);
    ASSERT_FALSE(s.ok()) << c.key;
    EXPECT_EQ(s.error().key, c.key);
    EXPECT_NE(s.error().message.find(c.key), std::string::npos) << s.error().message;
    EXPECT_NE(s.error().message.find("accepted"), std::string::npos) << s.error().message;
  }
}

TEST(Schedule, ReadersMessageExplainsWhyAllColorsCannotRead) {
  auto s = Schedule::create({6, 1.0, 6, 0, 0});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("1..5"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace erails::rails
