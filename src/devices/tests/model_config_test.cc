#include "devices/model_config.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace erails::devices {
namespace {

const std::string kModels = ERAILS_DEVICE_MODELS;

Expected<DeviceModels> parse(const std::string& text) { return parse_models(text, "m.conf", {}); }

void expect_error(const std::string& text, const std::string& key, const std::string& fragment) {
  auto models = parse(text);
  ASSERT_FALSE(models.ok()) << "accepted: " << text;
  EXPECT_EQ(models.error().key, key) << models.error().message;
  EXPECT_NE(models.error().message.find(fragment), std::string::npos) << models.error().message;
}

TEST(ModelConfig, EveryCommittedModelFileLoadsOnItsOwn) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kModels)) {
    if (entry.path().extension() != ".conf") continue;
    ++files;
    auto models = load_models(entry.path().string());
    EXPECT_TRUE(models.ok()) << entry.path() << ": " << (models.ok() ? "" : models.error().message);
  }
  EXPECT_GE(files, 4);
}

TEST(ModelConfig, ADeviceDerivesFromTheFileItIncludes) {
  auto models = load_models(kModels + "/intel_x25e_drive_a.conf");
  ASSERT_TRUE(models.ok()) << models.error().message;
  const DeviceModel& a = models.value().at("x25e");
  const DeviceModel& b = models.value().at("intel510");
  EXPECT_EQ(a.base, "intel510");
  EXPECT_EQ(a.ssd.name, "x25e");
  EXPECT_EQ(a.ssd.capacity_bytes, 65e9);                  // its own
  EXPECT_EQ(a.ssd.gc_event_max, b.ssd.gc_event_max);      // from drive B
  EXPECT_EQ(b.ssd.capacity_bytes, SsdParams().capacity_bytes);  // drive B is SsdParams' defaults
}

TEST(ModelConfig, AModelFileIncludedTwiceIsReadOnce) {
  // Drive A's file already includes drive B's: naming both must not define drive B twice.
  auto models = parse_models("include = intel_x25e_drive_a.conf\ninclude = intel510_drive_b.conf\n",
                             kModels + "/both.conf", file_include_loader());
  ASSERT_TRUE(models.ok()) << models.error().message;
  EXPECT_EQ(models.value().size(), 2u);
}

TEST(ModelConfig, BaseMayBeDefinedLaterAndKeysInAnyOrder) {
  auto models = parse("[hdd slow]\nrpm = 5400\nbase = fast\n[hdd fast]\nrpm = 15000\nncq_depth = 4\n");
  ASSERT_TRUE(models.ok()) << models.error().message;
  const HddParams& slow = models.value().at("slow").hdd;
  EXPECT_EQ(slow.name, "slow");
  EXPECT_EQ(slow.rpm, 5400);
  EXPECT_EQ(slow.ncq_depth, 4);
  EXPECT_FALSE(models.value().at("fast").is_ssd);
}

TEST(ModelConfig, ErrorsNameTheKeyAndTheAcceptedValues) {
  expect_error("[sim]\nseed = 1\n", "section", "m.conf:1: [sim]: unknown section; accepted: ssd NAME, hdd NAME");
  expect_error("[ssd]\n", "section", "needs a name");
  expect_error("[ssd a]\n[hdd a]\n", "section", "device 'a' defined twice");
  expect_error("[ssd a]\nrpm = 7200\n", "rpm", "m.conf:2: [ssd a] rpm: unknown key; accepted: base, bg_gc_interval");
  expect_error("[ssd a]\nparallelism = 65\n", "parallelism", "'65' is not accepted; accepted: an integer in 1..64");
  expect_error("[hdd a]\nbase = b\n[ssd b]\n", "base", "'b' is not a defined [hdd] section");
  expect_error("[ssd a]\ngc_event_min = 0.5\n", "device", "m.conf: [ssd a] gc_event_max");
  expect_error("include = other.conf\n", "include", "not available");
}

TEST(ModelConfig, TimeScaleIsAKeyOfEveryDeviceAndDerives) {
  auto models = parse("[ssd fast]\ntime_scale = 20\n[ssd slow]\nbase = fast\n[hdd disk]\ntime_scale = 0.5\n[ssd plain]\n");
  ASSERT_TRUE(models.ok()) << models.error().message;
  EXPECT_EQ(models.value().at("fast").ssd.time_scale, 20);
  EXPECT_EQ(models.value().at("slow").ssd.time_scale, 20);
  EXPECT_EQ(models.value().at("disk").hdd.time_scale, 0.5);
  EXPECT_EQ(models.value().at("plain").ssd.time_scale, 1);
  for (const char* bad : {"0", "-2", "nan", "inf", "1e7", "x"})
    expect_error(std::string("[ssd a]\ntime_scale = ") + bad + "\n", "time_scale",
                 "m.conf:2: [ssd a] time_scale: '" + std::string(bad) +
                     "' is not accepted; accepted: a number in 1e-6..1e6 (finite, > 0; multiplies every modeled duration)");
  expect_error("[hdd a]\ntime_scale = 0\n", "time_scale", "accepted: a number in 1e-6..1e6");
}

TEST(ModelConfig, NumbersAreDecimalOnly) {
  expect_error("[ssd a]\nparallelism = +4\n", "parallelism", "'+4' is not accepted; accepted: an integer in 1..64");
  expect_error("[ssd a]\nparallelism = 0x4\n", "parallelism", "accepted: an integer in 1..64");
  expect_error("[ssd a]\ncapacity_bytes = +1e9\n", "capacity_bytes", "'+1e9' is not accepted; accepted: a number in 1e6..1e18");
  expect_error("[ssd a]\ncapacity_bytes = 0x1p30\n", "capacity_bytes", "accepted: a number in 1e6..1e18");
  expect_error("[ssd a]\nread_latency = nan\n", "read_latency", "accepted: a number in 0..1 seconds");
  auto models = parse("[ssd a]\ncapacity_bytes = 2.5E9\nparallelism = 8\n");
  ASSERT_TRUE(models.ok()) << models.error().message;
  EXPECT_EQ(models.value().at("a").ssd.capacity_bytes, 2.5e9);
}

TEST(ModelConfig, MissingFileIsAnError) {
  auto models = load_models("/nonexistent/m.conf");
  ASSERT_FALSE(models.ok());
  EXPECT_NE(models.error().message.find("/nonexistent/m.conf"), std::string::npos);
}

TEST(ConfigFile, SectionsGetTheirTypeAndTrimmedName) {
  std::vector<std::string> seen;
  int value = 0;
  auto open = [&](const std::string& type, const std::string& name, const Place& at) -> Expected<KeyTable> {
    seen.push_back(type + "|" + name + "|" + at.section + "|" + std::to_string(at.line));
    return KeyTable{{"n", integer(&value, 0, 9)}};
  };
  auto e = read_config("# header\n[ stream  a b ]\nn = 3 # comment\n[sim]\n", "c.conf", {}, open);
  ASSERT_FALSE(e) << e->message;
  EXPECT_EQ(seen, (std::vector<std::string>{"stream|a b|stream  a b|2", "sim||sim|4"}));
  EXPECT_EQ(value, 3);
}

TEST(ConfigFile, IncludesNestAtMostEightDeep) {
  IncludeLoader loader = [](const std::string& from, const std::string&) -> Expected<std::pair<std::string, std::string>> {
    return std::make_pair(std::string("include = next\n"), from + "+");
  };
  auto open = [](const std::string&, const std::string&, const Place&) -> Expected<KeyTable> { return KeyTable{}; };
  auto e = read_config("include = next\n", "c.conf", loader, open);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->key, "include");
  EXPECT_NE(e->message.find("accepted: at most 8 levels"), std::string::npos) << e->message;
}

}  // namespace
}  // namespace erails::devices
