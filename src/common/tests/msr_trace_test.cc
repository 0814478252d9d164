#include "common/msr_trace.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace erails {
namespace {

TEST(MsrTrace, ParsesRecordsRelativeToTheFirst) {
  auto t = parse_msr_trace(
      "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
      "128166372003061629,stg,0,Read,7014609920,24576,41286\r\n"
      "\n"
      "128166372013061629,stg,1,Write,4096,512,100\n",
      "t.csv");
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  ASSERT_EQ(t.value().size(), 2u);
  EXPECT_EQ(t.value()[0].time, 0.0);
  EXPECT_EQ(t.value()[0].operation, Operation::read);
  EXPECT_EQ(t.value()[0].offset, 7014609920u);
  EXPECT_EQ(t.value()[0].size, 24576u);
  EXPECT_NEAR(t.value()[1].time, 1.0, 1e-9);
  EXPECT_EQ(t.value()[1].operation, Operation::write);
  EXPECT_EQ(t.value()[1].offset, 4096u);
  EXPECT_EQ(t.value()[1].size, 512u);
}

TEST(MsrTrace, TypeIgnoresLetterCase) {
  auto t = parse_msr_trace("1,h,0,read,0,512,0\n2,h,0,WRITE,512,512,0", "t.csv");
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  EXPECT_EQ(t.value()[0].operation, Operation::read);
  EXPECT_EQ(t.value()[1].operation, Operation::write);
}

TEST(MsrTrace, HeaderOnlyBeforeTheFirstRecord) {
  auto t = parse_msr_trace("1,h,0,Read,0,512,1\nTimestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n",
                           "t.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().key, "Timestamp");
}

// The bad line follows a good one, so the line number in the message is checked as well.
void expect_error(const std::string& line, const std::string& key) {
  auto t = parse_msr_trace("1,h,0,Read,0,512,1\n" + line + "\n", "t.csv");
  ASSERT_FALSE(t.ok()) << line;
  EXPECT_EQ(t.error().key, key) << line << " -> " << t.error().to_string();
  EXPECT_EQ(t.error().message.rfind("t.csv:2: ", 0), 0u) << t.error().message;
  EXPECT_NE(t.error().message.find("accepted: "), std::string::npos) << t.error().message;
}

TEST(MsrTrace, BadFieldsAreNamed) {
  expect_error("x,h,0,Read,0,512,1", "Timestamp");
  expect_error("0,h,0,Read,0,512,1", "Timestamp");  // goes backwards
  expect_error(" 2,h,0,Read,0,512,1", "Timestamp");
  expect_error("+2,h,0,Read,0,512,1", "Timestamp");
  expect_error("2,h,-1,Read,0,512,1", "DiskNumber");
  expect_error("2,h,z,Read,0,512,1", "DiskNumber");
  expect_error("2,h,0,Trim,0,512,1", "Type");
  expect_error("2,h,0, Read,0,512,1", "Type");
  expect_error("2,h,0,Read,abc,512,1", "Offset");
  expect_error("2,h,0,Read,-5,512,1", "Offset");
  expect_error("2,h,0,Read,0x10,512,1", "Offset");
  expect_error("2,h,0,Read,1152921504606846977,512,1", "Offset");  // 2^60 + 1
  expect_error("2,h,0,Read,0,0,1", "Size");
  expect_error("2,h,0,Read,0,67108865,1", "Size");
  expect_error("2,h,0,Read,0,99999999999,1", "Size");
  expect_error("2,h,0,Read,0,512,", "ResponseTime");
  expect_error("2,h,0,Read,0,512", "record");
  expect_error("2,h,0,Read,0,512,1,extra", "record");
}

TEST(MsrTrace, LimitsAreInclusive) {
  auto t = parse_msr_trace("1,h,0,Read,1152921504606846976,67108864,1\n", "t.csv");
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  EXPECT_EQ(t.value()[0].offset, uint64_t{1} << 60);
  EXPECT_EQ(t.value()[0].size, 64u << 20);
}

TEST(MsrTrace, ErrorsOnTheFirstLineNameLineOne) {
  const std::pair<const char*, const char*> cases[] = {
      {"1,h,0,Read,0,4096\n", "record"},
      {"x,h,0,Read,0,4096,1\n", "Timestamp"},
      {"1,h,0,Read,0,99999999999,1\n", "Size"},
  };
  for (const auto& [text, key] : cases) {
    auto t = parse_msr_trace(text, "t.csv");
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_EQ(t.error().key, key) << text;
    EXPECT_EQ(t.error().message.rfind("t.csv:1: ", 0), 0u) << t.error().message;
  }
}

TEST(MsrTrace, TraceWithoutRecordsIsAnError) {
  for (const char* text : {"", "\n\n", "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"}) {
    auto t = parse_msr_trace(text, "t.csv");
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_EQ(t.error().key, "trace");
  }
}

TEST(MsrTrace, MissingFileIsAnErrorNamingThePath) {
  auto t = load_msr_trace("/nonexistent/trace.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().key, "trace");
  EXPECT_NE(t.error().message.find("/nonexistent/trace.csv"), std::string::npos);
}

}  // namespace
}  // namespace erails
