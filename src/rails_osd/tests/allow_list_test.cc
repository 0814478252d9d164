// The lease's allow-list is one of build-ids only (ceph_abi/osd_build.h with no first bytes).
#include "ceph_abi/osd_build.h"

#include "common/tests/temp_path.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace erails::ceph_osd {
namespace {

constexpr const char* kVariable = "ERAILS_RAILS_OSD_ALLOW_LIST";

AllowListSource source() {
  return {"ERAILS_RAILS_OSD_ALLOWED_BUILDS", kVariable, {{"fb66b3cec5f264a2f863d96fa875eb4ae39bb0bf", ""}}, 0};
}

class LeaseAllowListFile : public ::testing::Test {
 protected:
  void write(const std::string& text) {
    path_ = erails::test::unique_temp_path("rails-lease-allow-list");
    std::ofstream(path_) << text;
    setenv(kVariable, path_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv(kVariable);
    if (!path_.empty()) std::remove(path_.c_str());
  }
  std::string path_;
};

TEST(LeaseAllowList, CompiledBuildIdsNeedNoBytes) {
  const auto builds = read_allow_list(source());
  ASSERT_TRUE(builds) << builds.error().to_string();
  ASSERT_EQ(builds.value().size(), 1u);
  EXPECT_TRUE(builds.value()[0].first_bytes.empty());
  EXPECT_TRUE(find_build("fb66b3cec5f264a2f863d96fa875eb4ae39bb0bf", builds.value()));
  const auto other = find_build("0123", builds.value());
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().to_string(), "build-id: ceph-osd build-id 0123 is not on the allow-list of "
                                       "builds whose layouts were checked");
}

TEST_F(LeaseAllowListFile, ReplacesTheCompiledList) {
  write("# another build\nabcdef  # trailing comment\n");
  const auto builds = read_allow_list(source());
  ASSERT_TRUE(builds) << builds.error().to_string();
  ASSERT_EQ(builds.value().size(), 1u);
  EXPECT_EQ(builds.value()[0].build_id, "abcdef");
}

TEST_F(LeaseAllowListFile, BytesOrBadHexAreNamed) {
  for (const char* bad : {"abcdef 0011\n", "ABCDEF\n", "abc\n"}) {
    write(std::string("# first\n") + bad);
    const auto builds = read_allow_list(source());
    ASSERT_FALSE(builds) << bad;
    EXPECT_EQ(builds.error().key, path_ + ":2") << bad;
    EXPECT_NE(builds.error().message.find("expected '<build-id hex>' in lower case"), std::string::npos)
        << builds.error().message;
  }
}

}  // namespace
}  // namespace erails::ceph_osd
