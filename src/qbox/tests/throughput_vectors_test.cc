// The broker's conversion against testdata/throughput_vectors.txt, the file the qbox mgr module's
// tests also read, so both convert a throughput requirement into the same utilization.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "common/tests/vector_file.h"
#include "qbox/broker.h"

namespace erails::qbox {
namespace {

const RequestType kType{{Operation::read, Access::random}, 4096};

// A profile that completes `count` ops in each of ten intervals, so every window's cost is
// interval / count.
DeviceProfile steady_profile(const std::string& interval, const std::string& count) {
  std::string text = "qbox-device-profile 1\ninterval " + interval + "\nsamples read random 4096";
  for (int i = 0; i < 10; ++i) text += " " + count;
  auto profile = DeviceProfile::parse(text + "\n");
  EXPECT_TRUE(profile) << profile.error().to_string();
  return profile.value();
}

TEST(ThroughputVectors, EveryVectorMatches) {
  const auto vectors = test::read_vector_file(ERAILS_THROUGHPUT_VECTORS);
  ASSERT_TRUE(vectors) << "cannot open " << ERAILS_THROUGHPUT_VECTORS;
  const DeviceProfile any = steady_profile("1", "1");
  for (const auto& [line_number, f] : *vectors) {
    if (f[0] == "refuse") {
      ASSERT_EQ(f.size(), 2u) << "line " << line_number;
      const auto refused = utilization_for(any, {kType, std::strtod(f[1].c_str(), nullptr), 1, 0.95});
      ASSERT_FALSE(refused) << "line " << line_number;
      EXPECT_EQ(refused.error().key, "iops") << "line " << line_number;
    } else {
      ASSERT_EQ(f.size(), 4u) << "line " << line_number;
      const double interval = std::strtod(f[1].c_str(), nullptr);
      const auto u = utilization_for(steady_profile(f[1], f[2]),
                                     {kType, std::strtod(f[0].c_str(), nullptr), interval, 0.95});
      ASSERT_TRUE(u) << "line " << line_number << ": " << u.error().to_string();
      EXPECT_NEAR(u.value(), std::strtod(f[3].c_str(), nullptr), 1e-12) << "line " << line_number;
    }
  }
  EXPECT_GE(vectors->size(), 10u);
}

}  // namespace
}  // namespace erails::qbox
