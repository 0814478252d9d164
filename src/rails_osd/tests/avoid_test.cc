#include "rails_osd/avoid.h"

#include <gtest/gtest.h>

namespace erails::rails_osd {
namespace {

const std::vector<std::string> kColors = {"c0", "c1", "c2", "c3", "c4", "c5"};

TEST(AvoidRequest, NoWordsReportsAndClearClears) {
  EXPECT_EQ(parse_avoid_request({}).value().kind, AvoidRequest::Kind::report);
  EXPECT_EQ(parse_avoid_request({"clear"}).value().kind, AvoidRequest::Kind::clear);
}

TEST(AvoidRequest, MarkTakesSecondsAndColors) {
  const auto request = parse_avoid_request({"seconds=20", "colors=c1,rack-2.a"});
  ASSERT_TRUE(request.ok());
  EXPECT_EQ(request.value().kind, AvoidRequest::Kind::mark);
  EXPECT_DOUBLE_EQ(request.value().seconds, 20);
  EXPECT_EQ(request.value().colors, (std::set<std::string>{"c1", "rack-2.a"}));
}

TEST(AvoidRequest, BadWordsNameTheirKey) {
  EXPECT_EQ(parse_avoid_request({"seconds=0", "colors=c1"}).error().key, "seconds");
  EXPECT_EQ(parse_avoid_request({"seconds=601", "colors=c1"}).error().key, "seconds");
  EXPECT_EQ(parse_avoid_request({"seconds=abc", "colors=c1"}).error().key, "seconds");
  EXPECT_EQ(parse_avoid_request({"seconds=5", "colors="}).error().key, "colors");
  EXPECT_EQ(parse_avoid_request({"seconds=5", "colors=c1,,c2"}).error().key, "colors");
  EXPECT_EQ(parse_avoid_request({"seconds=5", "colors=c1;rm"}).error().key, "colors");
  EXPECT_EQ(parse_avoid_request({"seconds=5"}).error().key, "colors");
  EXPECT_EQ(parse_avoid_request({"colors=c1"}).error().key, "seconds");
  EXPECT_EQ(parse_avoid_request({"seconds=5", "seconds=6", "colors=c1"}).error().key, "seconds");
  EXPECT_EQ(parse_avoid_request({"osds=1"}).error().key, "osds");
  const auto alone = parse_avoid_request({"clear", "seconds=5"});
  ASSERT_FALSE(alone.ok());
  EXPECT_NE(alone.error().to_string().find("clear comes alone"), std::string::npos);
  EXPECT_NE(alone.error().to_string().find("accepted:"), std::string::npos);
}

TEST(AvoidMarks, MasksTheMarkedColorsUntilTheMarkEnds) {
  AvoidMarks marks;
  EXPECT_EQ(marks.slow_mask(kColors, 0), 0u);
  marks.mark({"c1", "c4", "elsewhere"}, 10, 100);
  EXPECT_EQ(marks.slow_mask(kColors, 100), 0b010010u);
  EXPECT_EQ(marks.slow_mask(kColors, 109.9), 0b010010u);
  EXPECT_EQ(marks.slow_mask(kColors, 110), 0u);
  EXPECT_EQ(marks.slow_mask({"x", "y"}, 105), 0u);
  marks.mark({"c0"}, 5, 200);
  EXPECT_EQ(marks.slow_mask(kColors, 201), 0b1u);
}

TEST(AvoidMarks, ARenewalReplacesTheMarksAndAClearEndsThem) {
  AvoidMarks marks;
  marks.mark({"c1"}, 10, 0);
  marks.mark({"c2"}, 10, 8);
  EXPECT_EQ(marks.slow_mask(kColors, 15), 0b100u);
  marks.clear();
  EXPECT_EQ(marks.slow_mask(kColors, 15), 0u);
}

TEST(AvoidMarks, ReportsSayWhatIsAvoidedAndForHowLong) {
  AvoidMarks marks;
  EXPECT_NE(marks.report_plain(0).find("no colors avoided"), std::string::npos);
  EXPECT_EQ(marks.report_json(0), "{\"active\":false,\"colors\":[],\"seconds_left\":null,\"marks\":0}\n");
  marks.mark({"c3"}, 30, 10);
  EXPECT_EQ(marks.report_json(20), "{\"active\":true,\"colors\":[\"c3\"],\"seconds_left\":20,\"marks\":1}\n");
  EXPECT_NE(marks.report_plain(20).find("avoid colors c3"), std::string::npos);
  EXPECT_NE(marks.report_json(41).find("\"active\":false"), std::string::npos);
}

}  // namespace
}  // namespace erails::rails_osd
