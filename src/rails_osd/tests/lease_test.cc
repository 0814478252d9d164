#include "rails_osd/lease.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace erails::rails_osd {
namespace {

Grant grant_of(const std::vector<std::string>& words) {
  const auto request = parse_request(words);
  EXPECT_TRUE(request) << request.error().to_string();
  EXPECT_EQ(request.value().kind, Request::Kind::grant);
  return request.value().grant;
}

const std::vector<std::string> kModuleWords = {
    "seconds=20.5", "release=bluestore_deferred_batch_ops=1,bluestore_throttle_cost_per_io=0",
    "unset=bluestore_throttle_bytes", "kick=4096"};

TEST(LeaseRequest, NoWordsReportsAndCancelCancels) {
  EXPECT_EQ(parse_request({}).value().kind, Request::Kind::report);
  EXPECT_EQ(parse_request({"cancel"}).value().kind, Request::Kind::cancel);
}

TEST(LeaseRequest, AGrantCarriesTheModulesRelease) {
  const Grant grant = grant_of(kModuleWords);
  EXPECT_DOUBLE_EQ(grant.seconds, 20.5);
  ASSERT_EQ(grant.release.set.size(), 2u);
  EXPECT_EQ(grant.release.set[1].first, "bluestore_throttle_cost_per_io");
  EXPECT_EQ(grant.release.set[1].second, "0");
  EXPECT_EQ(grant.release.unset, std::vector<std::string>{"bluestore_throttle_bytes"});
  EXPECT_EQ(grant.release.kick_bytes, 4096u);
}

TEST(LeaseRequest, ReleaseCommandsAreTheAdminSocketsJsonInOrder) {
  EXPECT_EQ(release_commands(grant_of(kModuleWords).release),
            (std::vector<std::string>{
                R"({"prefix":"injectargs","injected_args":["--bluestore_deferred_batch_ops=1","--bluestore_throttle_cost_per_io=0"]})",
                R"({"prefix":"config unset","var":"bluestore_throttle_bytes"})",
                R"({"prefix":"bench","count":4096,"size":4096})"}));
  EXPECT_EQ(release_commands(grant_of({"seconds=1", "release=a=1"}).release),
            std::vector<std::string>{R"({"prefix":"injectargs","injected_args":["--a=1"]})"});
}

void expect_refused(const std::vector<std::string>& words, const std::string& key,
                    const std::string& says) {
  const auto request = parse_request(words);
  ASSERT_FALSE(request) << words.size();
  EXPECT_EQ(request.error().key, key) << request.error().to_string();
  EXPECT_NE(request.error().message.find(says), std::string::npos) << request.error().to_string();
}

TEST(LeaseRequest, BadSecondsAreNamedWithTheAcceptedRange) {
  for (const char* bad : {"seconds=-1", "seconds=0", "seconds=nan", "seconds=NaN", "seconds=inf",
                          "seconds=1e9", "seconds=3600.5", "seconds=", "seconds=5s"}) {
    expect_refused({bad, "release=a=1"}, "seconds", "accepted: a number of seconds, 0 < seconds <= 3600");
  }
  EXPECT_TRUE(parse_request({"seconds=3600", "release=a=1"}));
}

TEST(LeaseRequest, UnknownOrRepeatedKeysAndStrayWordsAreNamed) {
  expect_refused({"seconds=1", "release=a=1", "ttl=5"}, "ttl", "unknown key; accepted: seconds=<s>");
  expect_refused({"seconds=1", "seconds=2", "release=a=1"}, "seconds", "given twice");
  expect_refused({"seconds=1", "release=a=1", "cancel"}, "cancel", "cancel comes alone");
  expect_refused({"hold"}, "hold", "not <key>=<value>");
  expect_refused({"release=a=1"}, "seconds", "missing");
  expect_refused({"seconds=1"}, "release", "missing");
}

TEST(LeaseRequest, MalformedReleasesAreNamed) {
  for (const char* bad : {"release=", "release=a", "release=a=", "release=A=1", "release=a=1,,b=2",
                          "release=a=1;rm", "release=a=\"1\"", "release=a=1 b=2", "release=a=x,y"}) {
    expect_refused({"seconds=1", bad}, "release", "accepted: comma-separated <option>=<value>");
  }
  expect_refused({"seconds=1", "release=a=1", "unset=a,B"}, "unset", "'B' is not an option name");
  expect_refused({"seconds=1", "release=a=1", "unset="}, "unset", "accepted: comma-separated option names");
  for (const char* bad : {"kick=-1", "kick=4194305", "kick=1.5", "kick="}) {
    expect_refused({"seconds=1", "release=a=1", bad}, "kick", "accepted: 0..4194304 bytes");
  }
}

TEST(Lease, RunsOutOnceAtItsDeadlineUnlessRenewed) {
  Lease lease;
  EXPECT_FALSE(lease.deadline());
  EXPECT_FALSE(lease.take_expired(1e9));
  EXPECT_FALSE(lease.grant(grant_of(kModuleWords), 100.0));
  EXPECT_DOUBLE_EQ(*lease.deadline(), 120.5);
  EXPECT_FALSE(lease.take_expired(120.4));
  // A renewal moves the deadline.
  EXPECT_FALSE(lease.grant(grant_of(kModuleWords), 110.0));
  EXPECT_FALSE(lease.take_expired(120.5));
  const auto plan = lease.take_expired(130.5);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->kick_bytes, 4096u);
  EXPECT_FALSE(lease.take_expired(131.0)) << "applied twice";
  EXPECT_FALSE(lease.deadline());
  lease.record_release(130.6, true, "ok");
  EXPECT_NE(lease.report_json(131.0).find(R"("state":"released")"), std::string::npos);
  EXPECT_NE(lease.report_json(131.0).find(R"("self_releases":1)"), std::string::npos);
  // The next grant tells the caller its hold lapsed.
  EXPECT_TRUE(lease.grant(grant_of(kModuleWords), 140.0));
  EXPECT_NE(lease.report_json(140.0).find(R"("lapsed_at_last_grant":true)"), std::string::npos);
  EXPECT_FALSE(lease.grant(grant_of(kModuleWords), 141.0));
}

TEST(Lease, ACancelledLeaseAppliesNothing) {
  Lease lease;
  lease.grant(grant_of(kModuleWords), 0.0);
  lease.cancel(1.0);
  EXPECT_FALSE(lease.deadline());
  EXPECT_FALSE(lease.take_expired(100.0));
  EXPECT_NE(lease.report_plain(2.0).find("lease cancelled"), std::string::npos);
  EXPECT_FALSE(lease.grant(grant_of(kModuleWords), 3.0)) << "a cancelled lease did not lapse";
}

TEST(Lease, ReportsStateAndTimeLeft) {
  Lease lease;
  EXPECT_NE(lease.report_plain(0.0).find("no Rails lease"), std::string::npos);
  EXPECT_NE(lease.report_json(0.0).find(R"("state":"none","seconds_left":null)"), std::string::npos);
  lease.grant(grant_of(kModuleWords), 10.0);
  EXPECT_NE(lease.report_plain(15.0).find("releases itself in 15.500 s unless renewed"), std::string::npos);
  EXPECT_NE(lease.report_json(15.0).find(R"("seconds_left":15.5)"), std::string::npos);
  EXPECT_NE(lease.report_json(15.0).find(R"(\"prefix\":\"bench\")"), std::string::npos);
}

}  // namespace
}  // namespace erails::rails_osd
