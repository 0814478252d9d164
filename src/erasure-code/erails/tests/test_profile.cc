#include "erasure-code/erails/profile.h"

#include <gtest/gtest.h>

namespace erails {
namespace {

Expected<Profile> parse(ProfileMap profile) { return parse_profile(profile); }

TEST(Profile, EmptyProfileGetsCephDefaultsWrittenBack) {
  ProfileMap profile;
  const auto parsed = parse_profile(profile);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const Profile& p = parsed.value();
  EXPECT_EQ(p.k, 2);
  EXPECT_EQ(p.m, 2);
  EXPECT_EQ(p.technique, Technique::kReedSolVan);
  EXPECT_EQ(p.w, 8);
  EXPECT_EQ(p.crush_root, "default");
  EXPECT_EQ(p.crush_failure_domain, "host");
  EXPECT_EQ(p.schedule.readers, 2);
  EXPECT_DOUBLE_EQ(p.schedule.frame_seconds, 10);
  EXPECT_DOUBLE_EQ(p.schedule.guard_seconds, 1);
  const ProfileMap expected = {{"k", "2"},
                               {"m", "2"},
                               {"technique", "reed_sol_van"},
                               {"w", "8"},
                               {"crush-root", "default"},
                               {"crush-failure-domain", "host"},
                               {"crush-device-class", ""},
                               {"crush-colors", ""},
                               {"rails-frame", "10"},
                               {"rails-readers", "2"},
                               {"rails-epoch", "0"},
                               {"rails-guard", "1"}};
  EXPECT_EQ(profile, expected);
}

TEST(Profile, ParsingTheWrittenBackProfileIsIdempotent) {
  ProfileMap profile = {{"k", "4"}, {"m", "2"}, {"technique", "cauchy_good"}, {"rails-frame", "2.5"}};
  ASSERT_TRUE(parse_profile(profile).ok());
  ProfileMap again = profile;
  ASSERT_TRUE(parse_profile(again).ok());
  EXPECT_EQ(profile, again);
  EXPECT_EQ(profile.at("packetsize"), "2048");
  EXPECT_EQ(profile.at("rails-guard"), "0.25");
}

TEST(Profile, AcceptsEveryKey) {
  const auto parsed = parse({{"plugin", "erails"},
                      {"stripe_unit", "8192"},
                      {"k", "3"},
                      {"m", "3"},
                      {"technique", "cauchy_orig"},
                      {"w", "4"},
                      {"packetsize", "64"},
                      {"crush-root", "ssd"},
                      {"crush-failure-domain", "osd"},
                      {"crush-device-class", "ssd"},
                      {"crush-colors", "c0,c1,c2,c3,c4,c5"},
                      {"rails-frame", "30"},
                      {"rails-readers", "4"},
                      {"rails-epoch", "1700000000.5"},
                      {"rails-guard", "0"}});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const Profile& p = parsed.value();
  EXPECT_EQ(p.k, 3);
  EXPECT_EQ(p.technique, Technique::kCauchyOrig);
  EXPECT_EQ(p.w, 4);
  EXPECT_EQ(p.packetsize, 64);
  EXPECT_EQ(p.crush_colors, (std::vector<std::string>{"c0", "c1", "c2", "c3", "c4", "c5"}));
  EXPECT_EQ(p.schedule.readers, 4);
  EXPECT_DOUBLE_EQ(p.schedule.epoch, 1700000000.5);
  EXPECT_DOUBLE_EQ(p.schedule.guard_seconds, 0);
}

TEST(Profile, ReplicationModeIsKOne) {
  const auto parsed = parse({{"k", "1"}, {"m", "2"}});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const Profile& p = parsed.value();
  EXPECT_EQ(p.k, 1);
  EXPECT_EQ(p.schedule.readers, 1);
}

// The monitor prints the message as is; the operator must see the key, the value and the reason.
TEST(Profile, ErrorMessageIsTheMonitorsLine) {
  const auto parsed = parse({{"technique", "nope"}});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().key, "technique");
  EXPECT_EQ(parsed.error().message,
            "erails: technique=nope is invalid: expected one of reed_sol_van, cauchy_orig, cauchy_good");
  const auto frame = parse({{"rails-guard", "-0.5"}});
  ASSERT_FALSE(frame.ok());
  EXPECT_EQ(frame.error().message.rfind("erails: rails-guard=-0.5 is invalid: ", 0), 0u) << frame.error().message;
}

struct BadCase {
  ProfileMap profile;
  std::string key;
  std::string accepted_fragment;
};

class BadProfile : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadProfile, IsRefusedNamingTheKeyAndWhatIsAccepted) {
  const BadCase& c = GetParam();
  auto parsed = parse(c.profile);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().key, c.key);
  const std::string& message = parsed.error().message;
  EXPECT_EQ(message.rfind("erails: " + c.key + "=", 0), 0u) << message;
  EXPECT_NE(message.find(c.accepted_fragment), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(
    EveryKey, BadProfile,
    ::testing::Values(
        BadCase{{{"plugin", "jerasure"}}, "plugin", "erails"},
        BadCase{{{"k", "0"}}, "k", "1 to 63"},
        BadCase{{{"k", "-1"}}, "k", "1 to 63"},
        BadCase{{{"k", "two"}}, "k", "1 to 63"},
        BadCase{{{"k", "3 "}}, "k", "1 to 63"},
        BadCase{{{"k", "99999999999"}}, "k", "1 to 63"},
        BadCase{{{"k", ""}}, "k", "1 to 63"},
        BadCase{{{"m", "0"}}, "m", "1 to 63"},
        BadCase{{{"m", "1.5"}}, "m", "1 to 63"},
        BadCase{{{"k", "40"}, {"m", "30"}}, "m", "k+m at most 64"},
        BadCase{{{"technique", "liberation"}}, "technique", "reed_sol_van, cauchy_orig, cauchy_good"},
        BadCase{{{"w", "7"}}, "w", "8, 16 or 32"},
        BadCase{{{"w", "sixteen"}}, "w", "8, 16 or 32"},
        BadCase{{{"technique", "cauchy_good"}, {"w", "1"}}, "w", "2 to 32"},
        BadCase{{{"technique", "cauchy_good"}, {"w", "33"}}, "w", "2 to 32"},
        BadCase{{{"technique", "cauchy_orig"}, {"k", "6"}, {"m", "3"}, {"w", "3"}}, "w", "2^w >= k+m"},
        BadCase{{{"k", "200"}}, "k", "1 to 63"},
        BadCase{{{"packetsize", "2048"}}, "packetsize", "cauchy_orig and cauchy_good only"},
        BadCase{{{"technique", "cauchy_good"}, {"packetsize", "100"}}, "packetsize", "multiple of 8"},
        BadCase{{{"technique", "cauchy_good"}, {"packetsize", "0"}}, "packetsize", "multiple of 8"},
        BadCase{{{"technique", "cauchy_good"}, {"packetsize", "2097152"}}, "packetsize", "multiple of 8"},
        BadCase{{{"crush-root", ""}}, "crush-root", "CRUSH bucket"},
        BadCase{{{"crush-failure-domain", ""}}, "crush-failure-domain", "CRUSH type"},
        BadCase{{{"crush-colors", "a,b,c"}}, "crush-colors", "exactly k+m=4"},
        BadCase{{{"crush-colors", "a,b,c,c"}}, "crush-colors", "distinct"},
        BadCase{{{"crush-colors", "a,b,,c"}}, "crush-colors", "exactly k+m=4"},
        BadCase{{{"crush-colors", "a,b,c,d,"}}, "crush-colors", "exactly k+m=4"},
        BadCase{{{"rails-frame", "0"}}, "rails-frame", "seconds >= 0.001"},
        BadCase{{{"rails-frame", "-3"}}, "rails-frame", "seconds >= 0.001"},
        BadCase{{{"rails-frame", "nan"}}, "rails-frame", "a decimal number"},
        BadCase{{{"rails-frame", "inf"}}, "rails-frame", "a decimal number"},
        BadCase{{{"rails-frame", "0x10"}}, "rails-frame", "a decimal number"},
        BadCase{{{"rails-frame", "10s"}}, "rails-frame", "a decimal number"},
        // Refused since the profile reads numbers with common/number.h: no sign '+', no spaces.
        BadCase{{{"rails-frame", "+10"}}, "rails-frame", "a decimal number"},
        BadCase{{{"rails-epoch", " 0"}}, "rails-epoch", "a decimal number"},
        BadCase{{{"k", "+3"}}, "k", "1 to 63"},
        // The mgr module's minimum (src/mgr/rails/limits.py); its own test checks the same words.
        BadCase{{{"rails-frame", "1.999"}}, "rails-frame",
                "at least 2 seconds, the time the rails mgr module needs to carry a switch to the OSDs"},
        BadCase{{{"rails-frame", "0.001"}, {"rails-guard", "0"}}, "rails-frame", "at least 2 seconds"},
        BadCase{{{"rails-readers", "1"}}, "rails-readers", "from k=2 to k+m-1=3"},
        BadCase{{{"rails-readers", "4"}}, "rails-readers", "accepted: 1..3"},
        BadCase{{{"rails-readers", "three"}}, "rails-readers", "from k=2 to k+m-1=3"},
        BadCase{{{"rails-epoch", "1e13"}}, "rails-epoch", "accepted: seconds in"},
        BadCase{{{"rails-epoch", "yesterday"}}, "rails-epoch", "a decimal number"},
        BadCase{{{"rails-guard", "10"}}, "rails-guard", "rails-guard < rails-frame (10)"},
        BadCase{{{"rails-guard", "-0.5"}}, "rails-guard", "0 <= rails-guard"},
        BadCase{{{"rails-frme", "5"}}, "rails-frme", "unknown key; erails accepts k m technique"},
        BadCase{{{"ruleset-root", "default"}}, "ruleset-root", "unknown key"}));

}  // namespace
}  // namespace erails
