// The emulator's kernel-free core: configuration errors, and when held completions are released.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "device_emulator/config.h"
#include "device_emulator/emulator.h"

namespace erails::device_emulator {
namespace {

class Env {
 public:
  explicit Env(std::map<std::string, std::string> vars) : vars_(std::move(vars)) {}
  Getenv getenv() const {
    return [this](const char* name) -> const char* {
      auto it = vars_.find(name);
      return it == vars_.end() ? nullptr : it->second.c_str();
    };
  }

 private:
  std::map<std::string, std::string> vars_;
};

class EmulatorCore : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/erails-emulator-core.XXXXXX";
    dir_ = mkdtemp(dir);
    write("device", "");
    write("two.conf", "[ssd a]\n[ssd b]\n");
    write("one.conf", "[ssd slow]\nbase = fast\ntime_scale = 1000\n[ssd fast]\n");
    write("disk.conf", "[hdd disk]\ntime_scale = 2\n");
  }
  void TearDown() override {
    for (const char* f : {"device", "two.conf", "one.conf", "disk.conf"}) unlink((dir_ + "/" + f).c_str());
    rmdir(dir_.c_str());
  }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ + "/" + name) << text; }
  std::map<std::string, std::string> vars(const std::string& conf) {
    return {{kConfigVar, dir_ + "/" + conf}, {kDeviceVar, dir_ + "/device"}};
  }
  Expected<EmulatorConfig> read(std::map<std::string, std::string> v) { return read_config(Env(std::move(v)).getenv()); }
  void expect_error(std::map<std::string, std::string> v, const std::string& key, const std::string& fragment) {
    auto c = read(std::move(v));
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().key, key) << c.error().message;
    EXPECT_NE(c.error().message.find(fragment), std::string::npos) << c.error().message;
  }
  std::string dir_;
};

TEST_F(EmulatorCore, TheModelIsTheSectionNoOtherDerivesFrom) {
  auto c = read(vars("one.conf"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c.value().model_name, "slow");
  EXPECT_EQ(c.value().model.ssd.time_scale, 1000);
  EXPECT_EQ(c.value().stats_interval, 1);
}

TEST_F(EmulatorCore, ConfigurationErrorsNameTheVariable) {
  expect_error({}, kConfigVar, "ERAILS_EMULATOR_CONFIG is unset; accepted: the path of a model file");
  expect_error({{kConfigVar, dir_ + "/missing.conf"}}, "include", "cannot read config file");
  expect_error({{kConfigVar, dir_ + "/one.conf"}}, kDeviceVar, "ERAILS_EMULATOR_DEVICE is unset");
  expect_error(vars("two.conf"), kModelVar, "has 2 sections that no other derives from; set it to one of: a, b");
  auto v = vars("two.conf");
  v[kModelVar] = "c";
  expect_error(v, kModelVar, "ERAILS_EMULATOR_MODEL='c' is not a section of");
  v[kModelVar] = "b";
  EXPECT_TRUE(read(v).ok());
  v[kStatsIntervalVar] = "0.01";
  expect_error(v, kStatsIntervalVar, "'0.01' is not accepted; accepted: seconds in 0.1..3600");
  v[kStatsIntervalVar] = "2";
  v[kDeviceVar] = dir_ + "/nothing";
  expect_error(v, kDeviceVar, "cannot be read; accepted: the path of an existing file or block device");
}

// A stand-in for a kernel request: only its address and what io_submit reads matter.
struct Request {
  iocb cb;
  char buf[4096];
  explicit Request(bool read) {
    if (read)
      io_prep_pread(&cb, 3, buf, sizeof buf, 0);
    else
      io_prep_pwrite(&cb, 3, buf, sizeof buf, 0);
  }
  io_event done() const {
    io_event e{};
    e.obj = const_cast<iocb*>(&cb);
    e.res = sizeof buf;
    return e;
  }
};

TEST_F(EmulatorCore, CompletionsWaitForTheirModeledTimeAndOnlyAcceptedOnesAreCharged) {
  auto c = read(vars("one.conf"));  // time_scale 1000: a 4 KiB read is ~0.15 s
  ASSERT_TRUE(c.ok());
  Emulator e(c.value());
  const auto ctx = reinterpret_cast<io_context_t>(0x1000);
  EXPECT_FALSE(e.is_data_context(ctx));
  Request a(true), b(true), w(false);
  iocb* list[] = {&a.cb, &b.cb, &w.cb};
  const uint8_t data[] = {1, 1, 1};
  e.expect(ctx, list, data, 3, 10.0);
  EXPECT_TRUE(e.is_data_context(ctx));
  // The kernel took the first one only; its completion arrives before the charge (another thread).
  const io_event early = a.done();
  e.completed(ctx, &early, 1, 10.0001);
  io_event out[4];
  EXPECT_EQ(e.release(ctx, out, 4, 10.0002), 0);
  EXPECT_NEAR(e.next_release(ctx, 10.0002), 10.0003, 1e-9);  // not charged yet: look again soon
  e.charge(ctx, list, 3, 1, 10.0001);
  const double due = e.next_release(ctx, 10.0002);
  EXPECT_GT(due, 10.1);
  EXPECT_LT(due, 10.3);
  EXPECT_EQ(e.release(ctx, out, 4, due - 1e-6), 0);
  ASSERT_EQ(e.release(ctx, out, 4, due), 1);
  EXPECT_EQ(out[0].obj, &a.cb);
  EXPECT_EQ(e.next_release(ctx, due), kNever);
  const std::string json = e.stats_json(due);
  EXPECT_NE(json.find("\"read\": 1, \"write\": 0"), std::string::npos) << json;
  EXPECT_NE(json.find("\"not_accepted\": 2"), std::string::npos) << json;
  EXPECT_NE(json.find("\"errors\": 0"), std::string::npos) << json;
}

TEST_F(EmulatorCore, AForgottenContextHoldsNothing) {
  auto c = read(vars("one.conf"));
  ASSERT_TRUE(c.ok());
  Emulator e(c.value());
  const auto ctx = reinterpret_cast<io_context_t>(0x2000);
  Request a(true);
  iocb* list[] = {&a.cb};
  const uint8_t data[] = {1};
  e.expect(ctx, list, data, 1, 1.0);
  e.charge(ctx, list, 1, 1, 1.0);
  e.forget_context(ctx);
  EXPECT_FALSE(e.is_data_context(ctx));
  const io_event late = a.done();
  e.completed(ctx, &late, 1, 1.5);  // a completion after io_destroy adopts nothing
  EXPECT_FALSE(e.is_data_context(ctx));
}

TEST_F(EmulatorCore, SyncCallsAndFlushesFollowTheModel) {
  auto c = read(vars("one.conf"));
  ASSERT_TRUE(c.ok());
  Emulator e(c.value());
  const double write_done = e.charge_sync(Operation::write, 0, 4096, 5.0);
  EXPECT_GT(write_done, 5.1);
  EXPECT_EQ(e.charge_sync_flush(5.01), write_done);  // a flush waits for the last write
  const double later = e.charge_sync(Operation::read, 0, 4096, 4.0);  // an older `now` is raised
  EXPECT_GT(later, 5.01);
}

TEST_F(EmulatorCore, TheDiskModelRunsToo) {
  auto c = read(vars("disk.conf"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c.value().model.is_ssd);
  Emulator e(c.value());
  // A random 4 KiB read on a 7,200 rpm disk: seek plus half a turn, about 12.7 ms, doubled.
  const double done = e.charge_sync(Operation::read, 1 << 30, 4096, 0);
  EXPECT_GT(done, 0.02);
  EXPECT_LT(done, 0.03);
  EXPECT_NE(e.stats_json(done).find("\"kind\": \"hdd\""), std::string::npos);
}

TEST_F(EmulatorCore, ASlowedDeviceIsSlowerFromTheChangeOnAndSaysSo) {
  auto v = vars("disk.conf");
  v[kControlVar] = dir_ + "/control";
  auto c = read(v);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c.value().control_path, dir_ + "/control");
  Emulator e(c.value());
  const double healthy = e.charge_sync(Operation::read, 1 << 30, 4096, 0);
  ASSERT_TRUE(e.set_control(Control{10, true}, 10).ok());
  EXPECT_NEAR(e.charge_sync(Operation::read, 1 << 30, 4096, 20) - 20, 10 * healthy, 1e-9);
  EXPECT_EQ(e.control(), (Control{10, true}));
  EXPECT_NE(e.stats_json(21).find("\"slowdown\": 10,"), std::string::npos) << e.stats_json(21);
  EXPECT_EQ(e.set_control(Control{0, false}, 22).error().key, "slowdown");
  EXPECT_EQ(e.control(), (Control{10, true}));
}

TEST_F(EmulatorCore, WithTheModelOffRequestsCompleteAtOnceAndTheModelSeesNone) {
  auto v = vars("disk.conf");
  v[kControlVar] = dir_ + "/control";
  Emulator e(read(v).value());
  const double healthy = e.charge_sync(Operation::read, 1 << 30, 4096, 0) - 0;
  ASSERT_GT(healthy, 0);
  ASSERT_TRUE(e.set_control(Control{1, false}, 10).ok());
  EXPECT_EQ(e.charge_sync(Operation::read, 1 << 30, 4096, 20), 20);
  EXPECT_EQ(e.charge_sync(Operation::write, 0, 4096, 20), 20);
  EXPECT_NE(e.stats_json(21).find("\"model_on\": false,"), std::string::npos) << e.stats_json(21);
  ASSERT_TRUE(e.set_control(Control{1, true}, 30).ok());
  EXPECT_NEAR(e.charge_sync(Operation::read, 1 << 30, 4096, 40) - 40, healthy, 1e-9);
}

TEST_F(EmulatorCore, TheControlFileIsReadOnlyEveryIntervalAndOnlyWhenConfigured) {
  auto v = vars("disk.conf");
  EXPECT_FALSE(Emulator(read(v).value()).control_due(0));
  v[kControlVar] = dir_ + "/control";
  Emulator e(read(v).value());
  EXPECT_TRUE(e.control_due(1.0));
  EXPECT_FALSE(e.control_due(1.0 + kControlInterval / 2));
  EXPECT_TRUE(e.control_due(1.0 + kControlInterval));
  EXPECT_TRUE(e.new_bad_control("slowdown = 0"));
  EXPECT_FALSE(e.new_bad_control("slowdown = 0"));
  EXPECT_TRUE(e.new_bad_control("slowdown = -1"));
}

TEST(ControlFile, SaysTheSlowdownAndWhetherTheModelIsOn) {
  EXPECT_EQ(parse_control("").value(), (Control{1, true}));
  EXPECT_EQ(parse_control("# healthy\n\n").value(), (Control{1, true}));
  EXPECT_EQ(parse_control("slowdown = 10\n").value(), (Control{10, true}));
  EXPECT_EQ(parse_control("  slowdown=2.5  # for a minute\r\n").value(), (Control{2.5, true}));
  EXPECT_EQ(parse_control("slowdown = 1000").value(), (Control{1000, true}));
  EXPECT_EQ(parse_control("model = off\n").value(), (Control{1, false}));
  EXPECT_EQ(parse_control("model=on\nslowdown = 3").value(), (Control{3, true}));
}

TEST(ControlFile, RefusesWhatItDoesNotKnowNamingTheKey) {
  const std::pair<const char*, const char*> bad[] = {
      {"slowdown = 0.5", "slowdown"},     {"slowdown = 1001", "slowdown"}, {"slowdown = ten", "slowdown"},
      {"slowdown =", "slowdown"},         {"slowdown = inf", "slowdown"},  {"speed = 2", "speed"},
      {"slowdown", "slowdown"},           {"slowdown = 2\nslowdown = 3", "slowdown"},
      {"model = maybe", "model"},         {"model", "model"},              {"model = on\nmodel = off", "model"},
  };
  for (const auto& [text, key] : bad) {
    const auto r = parse_control(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().key, key) << text;
    EXPECT_NE(r.error().message.find("accepted"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace erails::device_emulator
