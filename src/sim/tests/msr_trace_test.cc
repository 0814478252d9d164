#include "sim/msr_trace.h"

#include <gtest/gtest.h>

namespace erails::sim {
namespace {

TEST(MsrTrace, ParsesRecordsRelativeToTheFirst) {
  auto t = parse_msr_trace(
      "128166372003061629,stg,0,Read,7014609920,24576,41286\r\n"
      "\n"
      "128166372013061629,stg,1,write,4096,512,100\n",
      "t.csv");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t.value().size(), 2u);
  EXPECT_EQ(t.value()[0].time, 0.0);
  EXPECT_TRUE(t.value()[0].is_read);
  EXPECT_EQ(t.value()[0].offset, 7014609920u);
  EXPECT_EQ(t.value()[0].size, 24576u);
  EXPECT_DOUBLE_EQ(t.value()[1].time, 1.0);
  EXPECT_FALSE(t.value()[1].is_read);
}

void expect_error(const std::string& line, const std::string& key) {
  auto t = parse_msr_trace("1,h,0,Read,0,512,1\n" + line + "\n", "t.csv");
  ASSERT_FALSE(t.ok()) << line;
  EXPECT_EQ(t.error().key, key) << t.error().message;
  EXPECT_NE(t.error().message.find("t.csv:2:"), std::string::npos) << t.error().message;
}

TEST(MsrTrace, BadFieldsAreNamed) {
  expect_error("x,h,0,Read,0,512,1", "Timestamp");
  expect_error("0,h,0,Read,0,512,1", "Timestamp");  // goes backwards
  expect_error("2,h,-1,Read,0,512,1", "DiskNumber");
  expect_error("2,h,0,Trim,0,512,1", "Type");
  expect_error("2,h,0,Read,abc,512,1", "Offset");
  expect_error("2,h,0,Read,0,0,1", "Size");
  expect_error("2,h,0,Read,0,99999999999,1", "Size");
  expect_error("2,h,0,Read,0,512,", "ResponseTime");
  expect_error("2,h,0,Read,0,512", "line");
  expect_error("2,h,0,Read,0,512,1,extra", "line");
}

TEST(MsrTrace, EmptyTraceIsAnError) {
  auto t = parse_msr_trace("\n\n", "t.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().key, "trace");
}

}  // namespace
}  // namespace erails::sim
