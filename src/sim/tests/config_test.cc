#include "sim/config.h"

#include <gtest/gtest.h>

namespace erails::sim {
namespace {

const char* kValid = R"(
[sim]
seed = 3
duration = 5
policy = erails
[cluster]
k = 3
m = 3
data_device = ssd1
journal_device = j
frame = 2
guard = 0.25
[ssd ssd1]
capacity_bytes = 1e9
[ssd j]
[stream mix]   # comment after a header
kind = open
rate = 100
read_fraction = 0.75
pattern = sequential
)";

Expected<SimConfig> parse(const std::string& text) { return parse_config(text, "t.conf", {}); }

TEST(Config, ParsesAValidFile) {
  auto c = parse(kValid);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c.value().seed, 3u);
  EXPECT_EQ(c.value().policy, Policy::kErails);
  EXPECT_EQ(c.value().readers, 3);  // defaults to k for erails
  EXPECT_EQ(c.value().devices.at("ssd1").ssd.capacity_bytes, 1e9);
  ASSERT_EQ(c.value().streams.size(), 1u);
  EXPECT_EQ(c.value().streams[0].kind, StreamKind::kOpen);
  EXPECT_TRUE(c.value().streams[0].sequential);
}

void expect_error(const std::string& text, const std::string& key, const std::string& fragment) {
  auto c = parse(text);
  ASSERT_FALSE(c.ok()) << "accepted: " << text;
  EXPECT_EQ(c.error().key, key) << c.error().message;
  EXPECT_NE(c.error().message.find(fragment), std::string::npos) << c.error().message;
}

std::string with(const std::string& from, const std::string& to) {
  std::string s = kValid;
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(Config, ErrorsNameTheKeyAndTheAcceptedValues) {
  expect_error(with("seed = 3", "sead = 3"), "sead", "accepted: drain_limit, duration, fast_read, policy");
  expect_error(with("policy = erails", "policy = fast"), "policy", "accepted: none, rails, erails");
  expect_error(with("k = 3", "k = 0"), "k", "accepted: an integer in 1..32");
  expect_error(with("duration = 5", "duration = 5s"), "duration", "t.conf:4:");
  expect_error(with("guard = 0.25", "guard = 2"), "rails-guard", "rails-guard < rails-frame");
  expect_error(with("[stream mix]", "[strem mix]"), "section", "accepted: sim, cluster");
  expect_error(with("[stream mix]", "[stream]"), "section", "needs a name");
  expect_error(with("data_device = ssd1", "data_device = ssd9"), "data_device", "ssd9");
  expect_error(with("kind = open", "kind = closed\nreaders = 1"), "readers", "unknown key");
  expect_error(with("rate = 100", "read_fraction = 1"), "rate", "kind open needs rate");
  expect_error(with("policy = erails", "policy = rails"), "k", "needs k = 1");
  expect_error(with("guard = 0.25", "readers = 2"), "rails-readers", "accepted: 3..5");
  expect_error(with("journal_device = j", ""), "journal_device", "required");
  expect_error(with("capacity_bytes = 1e9", "gc_event_min = 0.5"), "device", "gc_event_max");
  expect_error(with("[sim]", "include = other.conf\n[sim]"), "include", "not available");
  expect_error(with("[sim]", "seed = 1\n[sim]"), "seed", "outside a section");
  expect_error(with("[sim]", "[sim"), "section", "without ']'");
  expect_error(with("[sim]", "[sim]\njust words"), "line", "key = value");
  expect_error(with("[ssd j]", "[ssd ssd1]"), "section", "defined twice");
  expect_error(with("duration = 5", "duration = 1e6\ntimeline_interval = 0.01"), "timeline_interval", "1e7");
  expect_error(with("[stream mix]", "[failure f]\nosd = 6\n[stream mix]"), "osd", "accepted: 0..5");
  expect_error(with("[stream mix]", "[failure f]\nat = 1\n[stream mix]"), "osd", "required");
  expect_error(with("[stream mix]", "[failure f]\nwhen = 1\n[stream mix]"), "when", "accepted: at, osd");
  expect_error(with("[stream mix]", "[slow s]\nfactor = 0.5\n[stream mix]"), "factor", "accepted: a number in 1..1000");
  expect_error(with("[stream mix]", "[slow s]\nfraction = 0.6\n[slow t]\nfraction = 0.6\n[stream mix]"), "fraction",
               "more than 1");
  expect_error(with("[stream mix]", "[slow s]\nosd = 1\nfraction = 0.2\n[stream mix]"), "osd", "accepted: one of them");
  expect_error(with("[stream mix]", "[slow s]\nosd = 6\n[stream mix]"), "osd", "accepted: 0..5");
  expect_error(with("[sim]", "[sim]\nfast_read = on"), "fast_read", "accepted: fast_read on with policy none only");
  expect_error(with("[sim]", "[sim]\nread_around = maybe"), "read_around", "accepted: off, on");
}

TEST(Config, NumbersAreDecimalOnly) {
  expect_error(with("k = 3", "k = +3"), "k", "'+3' is not accepted; accepted: an integer in 1..32");
  expect_error(with("seed = 3", "seed = 0x3"), "seed", "accepted: an integer in 0..");
  expect_error(with("duration = 5", "duration = 0x10"), "duration", "'0x10' is not accepted; accepted: a number in");
  expect_error(with("duration = 5", "duration = +5"), "duration", "'+5' is not accepted");
}

TEST(Config, IncludesAreResolvedByTheLoader) {
  devices::IncludeLoader loader = [](const std::string& from, const std::string& inc)
      -> Expected<std::pair<std::string, std::string>> {
    if (inc != "dev.conf") return Error{"include", "no " + inc};
    return std::make_pair(std::string("[ssd ssd1]\ncapacity_bytes = 2e9\n[ssd j]\n"), from + ">dev.conf");
  };
  std::string text = std::string("include = dev.conf\n") + kValid;
  const std::string inline_devices = "[ssd ssd1]\ncapacity_bytes = 1e9\n[ssd j]\n";
  text.replace(text.find(inline_devices), inline_devices.size(), "");
  auto c = parse_config(text, "t.conf", loader);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c.value().devices.at("ssd1").ssd.capacity_bytes, 2e9);
}

TEST(Config, BaseStartsFromAnotherDeviceWhereverItIsDefined) {
  // The derived device comes first and sets its own key before naming its base: neither matters.
  auto c = parse(with("[ssd j]", "[ssd j]\n[ssd variant]\ngc_event_max = 0.05\nbase = mid\n"
                                  "[ssd mid]\nbase = ssd1\nparallelism = 2\n[hdd h1]\nrpm = 5400\n"
                                  "[hdd h2]\nbase = h1\n"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  const auto& devices = c.value().devices;
  const devices::SsdParams& v = devices.at("variant").ssd;
  EXPECT_EQ(v.name, "variant");
  EXPECT_EQ(v.capacity_bytes, 1e9);  // from ssd1, through mid
  EXPECT_EQ(v.parallelism, 2);       // from mid
  EXPECT_EQ(v.gc_event_max, 0.05);   // its own
  EXPECT_EQ(devices.at("variant").base, "mid");
  EXPECT_EQ(devices.at("mid").ssd.gc_event_max, devices::SsdParams().gc_event_max);
  EXPECT_EQ(devices.at("ssd1").ssd.parallelism, devices::SsdParams().parallelism);  // a base is not changed
  EXPECT_EQ(devices.at("h2").hdd.rpm, 5400);
}

TEST(Config, BaseErrorsNameTheKeyAndTheAcceptedValues) {
  expect_error(with("[ssd j]", "[ssd j]\nbase = nope"), "base",
               "t.conf:16: [ssd j] base: 'nope' is not a defined [ssd] section; accepted: the name of an [ssd] "
               "section that does not derive from 'j': ssd1");
  expect_error(with("[ssd j]", "[ssd j]\nbase = h\n[hdd h]"), "base", "'h' is not a defined [ssd] section");
  expect_error(with("[ssd j]", "[ssd j]\nbase = j"), "base", "'j' makes a cycle (j -> j)");
  std::string cycle = with("capacity_bytes = 1e9", "base = j");
  cycle.replace(cycle.find("[ssd j]"), 7, "[ssd j]\nbase = ssd1\n[ssd other]");
  auto c = parse(cycle);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().key, "base");
  // Reported where the cycle closes; `other` is the one device that does not lead back.
  EXPECT_NE(c.error().message.find("[ssd ssd1] base: 'j' makes a cycle (j -> ssd1 -> j); accepted: the name of "
                                   "an [ssd] section that does not derive from 'ssd1': other"),
            std::string::npos)
      << c.error().message;
  std::string chain = "[ssd j]\n";
  for (int i = 0; i < 9; ++i) chain += "[ssd c" + std::to_string(i) + "]\nbase = c" + std::to_string(i + 1) + "\n";
  chain += "[ssd c9]\n";
  expect_error(with("[ssd j]", chain), "base", "accepted: at most 8 links");
  expect_error(with("[ssd j]", "[ssd j]\nbase ="), "base", "accepted: a name");
}

TEST(Config, AFileIncludedTwiceIsReadOnce) {
  int loads = 0;
  devices::IncludeLoader loader = [&](const std::string&, const std::string& inc)
      -> Expected<std::pair<std::string, std::string>> {
    ++loads;
    if (inc == "both.conf") return std::make_pair(std::string("include = dev.conf\n"), std::string("both.conf"));
    return std::make_pair(std::string("[ssd ssd1]\n[ssd j]\n"), std::string("dev.conf"));
  };
  std::string text = std::string("include = dev.conf\ninclude = both.conf\n") + kValid;
  const std::string inline_devices = "[ssd ssd1]\ncapacity_bytes = 1e9\n[ssd j]\n";
  text.replace(text.find(inline_devices), inline_devices.size(), "");
  auto c = parse_config(text, "t.conf", loader);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(loads, 3);
}

TEST(Config, CommittedDeviceModelsLoadThroughIncludes) {
  // Drive B's file is included again on purpose: drive A's file already pulls it in for its base,
  // and a config naming both must still load.
  auto c = parse_config("include = intel_x25e_drive_a.conf\ninclude = intel510_drive_b.conf\n"
                        "[cluster]\ndata_device = x25e\n[stream probe]\nobjects = 1\n",
                        std::string(ERAILS_DEVICE_MODELS) + "/test.conf", devices::file_include_loader());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c.value().devices.at("x25e").base, "intel510");
}

TEST(Config, MissingFileIsAnError) {
  auto c = load_config("/nonexistent/x.conf");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("/nonexistent/x.conf"), std::string::npos);
}

}  // namespace
}  // namespace erails::sim
