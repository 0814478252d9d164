#include "qbox/share_table.h"

#include <gtest/gtest.h>

#include <string>

namespace erails::qbox {
namespace {

constexpr const char* kGood =
    R"({"epoch": 7, "clients": [{"name": "client.alice", "utilization": 0.3, "owners": [4123, 4130]},)"
    R"( {"name": "client.bob", "utilization": 0.5, "owners": []}],)"
    R"( "background_recovery": 0.1, "background_best_effort": 0.05})";

TEST(ShareTable, ParsesTheContractExample) {
  const auto table = parse_share_table(kGood);
  ASSERT_TRUE(table) << table.error().to_string();
  EXPECT_EQ(table.value().epoch, 7u);
  ASSERT_EQ(table.value().clients.size(), 2u);
  EXPECT_EQ(table.value().clients[0].name, "client.alice");
  EXPECT_DOUBLE_EQ(table.value().clients[0].utilization, 0.3);
  EXPECT_EQ(table.value().clients[0].owners, (std::vector<std::uint64_t>{4123, 4130}));
  EXPECT_NEAR(table.value().unreserved(), 0.05, 1e-12);
}

TEST(ShareTable, SumOfExactlyOneIsAccepted) {
  const auto table = parse_share_table(
      R"({"epoch":1,"clients":[{"name":"a","utilization":0.7,"owners":[1]},)"
      R"({"name":"b","utilization":0.2,"owners":[2]}],"background_recovery":0.05,)"
      R"("background_best_effort":0.05})");
  ASSERT_TRUE(table) << table.error().to_string();
  EXPECT_EQ(table.value().unreserved(), 0);
}

TEST(ShareTable, AtMost4096Clients) {
  std::string json = R"({"epoch":1,"background_recovery":0.01,"background_best_effort":0.01,"clients":[)";
  for (int i = 0; i < 4097; ++i) {
    json += (i ? "," : "") + std::string(R"({"name":"c)") + std::to_string(i) +
            R"(","utilization":0.0001,"owners":[)" + std::to_string(i) + "]}";
  }
  const auto table = parse_share_table(json + "]}");
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().to_string(), "clients: 4097 entries; accepted: at most 4096");
}

struct Bad {
  const char* json;
  const char* key;
  const char* text;  // part of the message
};

class ShareTableRefuses : public ::testing::TestWithParam<Bad> {};

TEST_P(ShareTableRefuses, NamingKeyAndValue) {
  const auto table = parse_share_table(GetParam().json);
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().key, GetParam().key) << table.error().to_string();
  EXPECT_NE(table.error().message.find(GetParam().text), std::string::npos)
      << table.error().to_string();
}

#define BG R"("background_recovery":0.1,"background_best_effort":0.05)"
INSTANTIATE_TEST_SUITE_P(
    Inputs, ShareTableRefuses,
    ::testing::Values(
        Bad{"", "table", "not valid JSON"},
        Bad{"{", "table", "not valid JSON"},
        Bad{"garbage", "table", "not valid JSON"},
        Bad{"[1,2]", "table", "expected an object"},
        Bad{R"({"epoch":1,"clients":[])" "}", "background_recovery", "is missing"},
        Bad{R"({"epoch":0,"clients":[],)" BG "}", "epoch", "got 0; expected an integer >= 1"},
        Bad{R"({"epoch":-3,"clients":[],)" BG "}", "epoch", "got -3"},
        Bad{R"({"epoch":1.5,"clients":[],)" BG "}", "epoch", "got 1.5"},
        Bad{R"({"epoch":"7","clients":[],)" BG "}", "epoch", "got \"7\""},
        Bad{R"({"epoch":1,"clients":[],"extra":1,)" BG "}", "extra", "is not a known key"},
        Bad{R"({"epoch":1,"clients":{},)" BG "}", "clients", "expected an array"},
        Bad{R"({"epoch":1,"clients":[],"background_recovery":0,"background_best_effort":0.05})",
            "background_recovery", "got 0; expected a fraction of device time in (0, 1]"},
        Bad{R"({"epoch":1,"clients":[{"name":"a","utilization":1.5,"owners":[]}],)" BG "}",
            "clients[0].utilization", "got 1.5"},
        Bad{R"({"epoch":1,"clients":[{"name":"a","utilization":-0.1,"owners":[]}],)" BG "}",
            "clients[0].utilization", "got -0.1"},
        Bad{R"({"epoch":1,"clients":[{"name":"a","utilization":"x","owners":[]}],)" BG "}",
            "clients[0].utilization", "got \"x\""},
        Bad{R"({"epoch":1,"clients":[{"name":"","utilization":0.1,"owners":[]}],)" BG "}",
            "clients[0].name", "non-empty"},
        Bad{R"({"epoch":1,"clients":[{"utilization":0.1,"owners":[]}],)" BG "}",
            "clients[0].name", "is missing"},
        Bad{R"({"epoch":1,"clients":[{"name":"a","utilization":0.1,"owners":[-1]}],)" BG "}",
            "clients[0].owners[0]", "got -1"},
        Bad{R"({"epoch":1,"clients":[{"name":"a","utilization":0.1,"owners":"1"}],)" BG "}",
            "clients[0].owners", "expected an array"},
        Bad{R"({"epoch":1,"clients":[{"name":"a","utilization":0.1,"owners":[1]},)"
            R"({"name":"a","utilization":0.1,"owners":[2]}],)" BG "}",
            "clients[1].name", "names must be unique"},
        Bad{R"({"epoch":1,"clients":[{"name":"a","utilization":0.1,"owners":[1]},)"
            R"({"name":"b","utilization":0.1,"owners":[1]}],)" BG "}",
            "clients[1].owners", "global id 1 is already an owner of clients[0]"},
        Bad{R"({"epoch":1,"clients":[{"name":"a","utilization":0.5,"owners":[1]},)"
            R"({"name":"b","utilization":0.4,"owners":[2]}],)" BG "}",
            "clients", "is 1.05; accepted: at most 1"},
        Bad{R"({"epoch":1,"clients":[{"name":"a","utilization":0.1,"owners":[],"x":1}],)" BG "}",
            "clients[0].x", "is not a known key"}));
#undef BG

}  // namespace
}  // namespace erails::qbox
