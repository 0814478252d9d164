#include "common/number.h"

#include <gtest/gtest.h>

#include <limits>

namespace erails {
namespace {

TEST(Number, RealsInDecimalSyntax) {
  EXPECT_EQ(parse_real("0.25"), 0.25);
  EXPECT_EQ(parse_real("-3"), -3.0);
  EXPECT_EQ(parse_real("1e9"), 1e9);
  EXPECT_EQ(parse_real("2.5E-3"), 2.5e-3);
  EXPECT_EQ(parse_real(".5"), 0.5);
}

TEST(Number, RealsRefuseWhatIsNotOneDecimalNumber) {
  for (const char* bad : {"", " 1", "1 ", "+1", "0x10", "inf", "-inf", "nan", "1e999", "1,5", "1.2.3", "e5", "-",
                          "1e", "\t2", "2\n"}) {
    EXPECT_FALSE(parse_real(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(Number, IntegersAreDecimalAndFitTheirType) {
  EXPECT_EQ(parse_int("0"), 0);
  EXPECT_EQ(parse_int("-42"), -42);
  EXPECT_EQ(parse_int("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(parse_uint("18446744073709551615"), std::numeric_limits<uint64_t>::max());
  for (const char* bad : {"", " 1", "1 ", "+1", "0x10", "1.0", "1e3", "9223372036854775808", "abc", "-"}) {
    EXPECT_FALSE(parse_int(bad).has_value()) << "'" << bad << "'";
  }
  for (const char* bad : {"-1", "-0", "18446744073709551616", "+1", "0x1"}) {
    EXPECT_FALSE(parse_uint(bad).has_value()) << "'" << bad << "'";
  }
}

}  // namespace
}  // namespace erails
