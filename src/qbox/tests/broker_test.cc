#include "qbox/broker.h"

#include <gtest/gtest.h>

#include <string>

namespace erails::qbox {
namespace {

// Random reads: 100 completions per 0.1 s except one slow interval; sequential writes bursty.
const char* const kProfile = R"(# drive B, isolated runs
qbox-device-profile 1
interval 0.1
samples read random 4096 100 100 100 100 100 100 100 100 100 20
samples write sequential 131072 0 50 0 50 0 50 0 50 0 50   # flushes every other interval
samples write sequential 131072 0 50
)";

DeviceProfile parsed() {
  auto profile = DeviceProfile::parse(kProfile);
  EXPECT_TRUE(profile) << profile.error().to_string();
  return profile.value();
}

const RequestType kRandomRead{{Operation::read, Access::random}, 4096};
const RequestType kSeqWrite{{Operation::write, Access::sequential}, 131072};

TEST(DeviceProfile, ParsesRecordsAndConcatenatesRepeatedTypes) {
  const DeviceProfile profile = parsed();
  EXPECT_DOUBLE_EQ(profile.interval(), 0.1);
  EXPECT_EQ(profile.samples().at(kRandomRead).size(), 10u);
  EXPECT_EQ(profile.samples().at(kSeqWrite).size(), 12u);
}

TEST(DeviceProfile, WorstCaseCostFollowsGranularityAndConfidence) {
  const DeviceProfile profile = parsed();
  // At 0.1 s the 5% tail is the slow interval (20 per 0.1 s = 200/s).
  EXPECT_NEAR(profile.worst_case_cost(kRandomRead, 0.1, 0.95).value(), 1.0 / 200, 1e-12);
  // At 0.2 s the worst window still holds it: (100 + 20) / 0.2 = 600/s.
  EXPECT_NEAR(profile.worst_case_cost(kRandomRead, 0.2, 0.99).value(), 1.0 / 600, 1e-12);
  // Writes complete in bursts: nothing is guaranteed per 0.1 s, 250/s per 0.2 s.
  EXPECT_EQ(profile.worst_case_cost(kSeqWrite, 0.1, 0.95).error().key, "granularity");
  EXPECT_NEAR(profile.worst_case_cost(kSeqWrite, 0.2, 0.95).value(), 1.0 / 250, 1e-12);
}

TEST(DeviceProfile, RejectsMalformedInputNamingLineAndField) {
  struct Case {
    const char* text;
    const char* field;
  };
  const Case cases[] = {
      {"", "header"},
      {"interval 0.1\n", "line 1: header"},
      {"qbox-device-profile 2\n", "line 1: header"},
      {"qbox-device-profile 1\n", "samples"},
      {"qbox-device-profile 1\ninterval -1\n", "line 2: interval"},
      {"qbox-device-profile 1\ninterval 0.1\ninterval 0.2\n", "line 3: interval"},
      {"qbox-device-profile 1\nsamples read random 4096 1\n", "line 2: interval"},
      {"qbox-device-profile 1\ninterval 0.1\nsamples read random 4096\n", "line 3: samples"},
      {"qbox-device-profile 1\ninterval 0.1\nsamples erase random 4096 1\n", "line 3: operation"},
      {"qbox-device-profile 1\ninterval 0.1\nsamples read zigzag 4096 1\n", "line 3: access"},
      {"qbox-device-profile 1\ninterval 0.1\nsamples read random -4 1\n", "line 3: bytes"},
      {"qbox-device-profile 1\ninterval 0.1\nsamples read random 0 1\n", "line 3: bytes"},
      {"qbox-device-profile 1\ninterval 0.1\nsamples read random 4096 1 x\n", "line 3: count"},
      {"qbox-device-profile 1\ninterval 0.1\nsamples read random 4096 nan\n", "line 3: count"},
      {"qbox-device-profile 1\ninterval 0.1\nbogus\n", "line 3: record"},
      // Numbers follow common/number.h: hex and a leading '+' are refused.
      {"qbox-device-profile 1\ninterval 0x1p-3\n", "line 2: interval"},
      {"qbox-device-profile 1\ninterval +0.1\n", "line 2: interval"},
      {"qbox-device-profile 1\ninterval 0.1\nsamples read random 4096 0x10\n", "line 3: count"},
      {"qbox-device-profile 1\ninterval 0.1\nsamples read random 4096 +1\n", "line 3: count"},
      {"qbox-device-profile 1\ninterval 0.1\nsamples read random +4096 1\n", "line 3: bytes"},
  };
  for (const Case& c : cases) {
    const auto result = DeviceProfile::parse(c.text);
    ASSERT_FALSE(result) << c.text;
    EXPECT_EQ(result.error().key, c.field) << c.text << " -> " << result.error().to_string();
  }
}

TEST(DeviceProfile, RejectsBadQueries) {
  const DeviceProfile profile = parsed();
  EXPECT_EQ(profile.worst_case_cost(kRandomRead, 0.1, 1.0).error().key, "confidence");
  EXPECT_EQ(profile.worst_case_cost(kRandomRead, 0.1, 0.0).error().key, "confidence");
  EXPECT_EQ(profile.worst_case_cost(kRandomRead, 0.15, 0.9).error().key, "granularity");
  EXPECT_EQ(profile.worst_case_cost(kRandomRead, 5.0, 0.9).error().key, "granularity");
  EXPECT_EQ(profile.worst_case_cost(kRandomRead, -0.1, 0.9).error().key, "granularity");
  const auto missing =
      profile.worst_case_cost(RequestType{{Operation::write, Access::random}, 4096}, 0.1, 0.9);
  EXPECT_EQ(missing.error().key, "request type");
  EXPECT_NE(missing.error().message.find("read random 4096 bytes"), std::string::npos);
}

TEST(Broker, ConvertsThroughputToUtilization) {
  const DeviceProfile profile = parsed();
  const auto share = utilization_for(profile, ThroughputRequirement{kRandomRead, 50, 0.1, 0.95});
  ASSERT_TRUE(share);
  EXPECT_NEAR(share.value(), 0.25, 1e-12);  // 50/s x 5 ms
  EXPECT_EQ(utilization_for(profile, ThroughputRequirement{kRandomRead, 0, 0.1, 0.95})
                .error()
                .key,
            "iops");
}

TEST(Broker, AdmitsUntilTheTotalWouldExceedOne) {
  const DeviceProfile profile = parsed();
  Broker broker(profile);
  ASSERT_TRUE(broker.admit("a", ThroughputRequirement{kRandomRead, 100, 0.1, 0.95}));  // 0.5
  ASSERT_TRUE(broker.admit("b", ThroughputRequirement{kSeqWrite, 100, 0.2, 0.95}));    // 0.4
  const auto refused = broker.admit("c", ThroughputRequirement{kRandomRead, 40, 0.1, 0.95});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().key, "admission");
  EXPECT_NEAR(broker.total(), 0.9, 1e-12);
  EXPECT_TRUE(broker.admit("c", ThroughputRequirement{kRandomRead, 20, 0.1, 0.95}));  // 0.1
  EXPECT_NEAR(broker.total(), 1.0, 1e-12);
  EXPECT_EQ(broker.admit("a", ThroughputRequirement{kRandomRead, 1, 0.1, 0.95}).error().key,
            "client");
  ASSERT_TRUE(broker.release("a"));
  EXPECT_NEAR(broker.total(), 0.5, 1e-12);
  EXPECT_EQ(broker.release("a").error().key, "client");
}

}  // namespace
}  // namespace erails::qbox
