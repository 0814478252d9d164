#include "qbox_osd/build_check.h"

#include "ceph_abi/checked_build.h"
#include "common/tests/temp_path.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace erails::qbox_osd {
namespace {

volatile int g_sink = 0;

// Long enough (well over the 12 bytes of the jump) that patching it touches nothing else.
__attribute__((noinline)) int patched_function(int x) {
  for (int i = 0; i < x; ++i) g_sink = g_sink + i * 3;
  return g_sink + 1000;
}

__attribute__((noinline)) int replacement_function(int) { return -7; }

std::string hex_of(const void* at, std::size_t bytes) {
  std::string out;
  char two[3];
  for (std::size_t i = 0; i < bytes; ++i) {
    std::snprintf(two, sizeof two, "%02x", static_cast<const unsigned char*>(at)[i]);
    out += two;
  }
  return out;
}

class AllowListFile : public ::testing::Test {
 protected:
  void write(const std::string& text) {
    path_ = erails::test::unique_temp_path("qbox-allow-list");
    std::ofstream(path_) << text;
    setenv("ERAILS_QBOX_ALLOW_LIST", path_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("ERAILS_QBOX_ALLOW_LIST");
    if (!path_.empty()) std::remove(path_.c_str());
  }
  std::string path_;
};

TEST(BuildCheck, TheExecutableHasABuildId) {
  const std::string id = executable_build_id();
  EXPECT_GE(id.size(), 16u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
}

TEST(BuildCheck, CompiledListHoldsTheConfiguredBuildWhereChecked) {
  const auto builds = allowed_builds();
  ASSERT_TRUE(builds) << builds.error().to_string();
  if (!ceph_build::kQboxSchedulerChecked) {
    EXPECT_TRUE(builds.value().empty());
    return;
  }
  ASSERT_EQ(builds.value().size(), 1u);
  EXPECT_EQ(builds.value()[0].build_id, ceph_build::kOsdBuildId);
  EXPECT_EQ(builds.value()[0].first_bytes.size(), 14u);
}

TEST_F(AllowListFile, ReplacesTheCompiledList) {
  write("# comment\n\nabcdef 00112233445566778899aabb  # trailing comment\n");
  const auto builds = allowed_builds();
  ASSERT_TRUE(builds) << builds.error().to_string();
  ASSERT_EQ(builds.value().size(), 1u);
  EXPECT_EQ(builds.value()[0].build_id, "abcdef");
  EXPECT_EQ(builds.value()[0].first_bytes.size(), 12u);
}

TEST_F(AllowListFile, MalformedLineIsNamed) {
  for (const char* bad : {"abcdef 0011\n", "abcdef\n", "ABCDEF 00112233445566778899aabb\n",
                          "abcdef 00112233445566778899aabb extra\n", "abc 00112233445566778899aabb\n"}) {
    write(std::string("# first\n") + bad);
    const auto builds = allowed_builds();
    ASSERT_FALSE(builds) << bad;
    EXPECT_EQ(builds.error().key, path_ + ":2") << bad;
    EXPECT_NE(builds.error().message.find("expected '<build-id hex> <first bytes hex"),
              std::string::npos);
  }
}

TEST_F(AllowListFile, UnreadableFileIsNamed) {
  setenv("ERAILS_QBOX_ALLOW_LIST", "/nonexistent/list", 1);
  const auto builds = allowed_builds();
  ASSERT_FALSE(builds);
  EXPECT_EQ(builds.error().to_string(), "ERAILS_QBOX_ALLOW_LIST: cannot read '/nonexistent/list'");
}

TEST(BuildCheck, RefusesAnotherBuildOrOtherBytesAndLeavesTheFunction) {
  void* target = reinterpret_cast<void*>(&patched_function);
  void* replacement = reinterpret_cast<void*>(&replacement_function);
  const std::string bytes = hex_of(target, 14);
  const auto parsed = [&](const std::string& id, const std::string& hex) {
    std::vector<std::uint8_t> first;
    for (std::size_t i = 0; i < hex.size(); i += 2) {
      first.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
    }
    return std::vector<AllowedBuild>{{id, first}};
  };
  const auto other_build = redirect_if_allowed(target, replacement, "1234", parsed("abcd", bytes));
  ASSERT_FALSE(other_build);
  EXPECT_EQ(other_build.error().to_string(),
            "build-id: ceph-osd build-id 1234 is not on the allow-list of builds whose layouts "
            "were checked");
  std::string other_bytes = bytes;
  other_bytes[0] = other_bytes[0] == '0' ? '1' : '0';
  const auto moved = redirect_if_allowed(target, replacement, "abcd", parsed("abcd", other_bytes));
  ASSERT_FALSE(moved);
  EXPECT_EQ(moved.error().key, "make_scheduler");
  EXPECT_EQ(hex_of(target, 14), bytes);
  int (*volatile call)(int) = &patched_function;
  const int result = call(3);
  EXPECT_EQ(result, g_sink + 1000);
}

TEST(BuildCheck, RedirectsAnAllowedFunction) {
  void* target = reinterpret_cast<void*>(&patched_function);
  std::vector<std::uint8_t> first(static_cast<const std::uint8_t*>(target),
                                  static_cast<const std::uint8_t*>(target) + 14);
  const auto status = redirect_if_allowed(target, reinterpret_cast<void*>(&replacement_function),
                                          "abcd", {{"abcd", first}});
  ASSERT_TRUE(status) << status.error().to_string();
  // Called through a volatile pointer so the compiler cannot inline the original body.
  int (*volatile call)(int) = &patched_function;
  EXPECT_EQ(call(3), -7);
}

}  // namespace
}  // namespace erails::qbox_osd
