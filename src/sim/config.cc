#include "sim/config.h"

#include <cmath>

#include "rails/schedule.h"

namespace erails::sim {

namespace {

using devices::integer;
using devices::KeyTable;
using devices::Place;
using devices::real;
using devices::Setter;
using devices::text;

template <class E>
Setter choice(E* out, std::vector<std::pair<const char*, E>> options) {
  return [=](const Place& at, std::string_view v) -> std::optional<Error> {
    std::string accepted;
    for (const auto& [name, value] : options) {
      if (v == name) {
        *out = value;
        return std::nullopt;
      }
      accepted += (accepted.empty() ? "" : ", ") + std::string(name);
    }
    return Error{at.key, at.prefix() + "'" + std::string(v) + "' is not accepted; accepted: " + accepted};
  };
}

constexpr double kBig = 1e18;

KeyTable sim_table(SimConfig& c) {
  return {
      {"seed", integer(&c.seed, 0, INT64_MAX)},
      {"duration", real(&c.duration, 1e-3, 1e7, "0.001..1e7 seconds")},
      {"drain_limit", real(&c.drain_limit, 0, 1e7, "0..1e7 seconds")},
      {"timeline_interval", real(&c.timeline_interval, 1e-3, 1e6, "0.001..1e6 seconds")},
      {"policy", choice(&c.policy, {{"none", Policy::kNone}, {"rails", Policy::kRails}, {"erails", Policy::kErails}})},
      {"scheduler", choice(&c.scheduler, {{"none", std::nullopt}, {"qbox", qbox::SchedulerKind::qbox},
                                          {"fifo", qbox::SchedulerKind::fifo}, {"mclock", qbox::SchedulerKind::mclock}})},
      {"read_around", choice(&c.read_around, {{"off", false}, {"on", true}})},
      {"fast_read", choice(&c.fast_read, {{"off", false}, {"on", true}})},
  };
}

KeyTable cluster_table(SimConfig& c) {
  return {
      {"k", integer(&c.k, 1, 32)},
      {"m", integer(&c.m, 1, 32)},
      {"osds_per_color", integer(&c.osds_per_color, 1, 4096)},
      {"pgs", integer(&c.pgs, 1, 1 << 20)},
      {"data_device", text(&c.data_device)},
      {"journal_device", text(&c.journal_device)},
      {"hold_budget", real(&c.hold_budget, 1, kBig, "1..1e18 bytes")},
      {"flush_depth", integer(&c.flush_depth, 1, 1024)},
      {"frame", real(&c.frame, 1e-3, 1e6, "0.001..1e6 seconds (rails-frame)")},
      {"readers", integer(&c.readers, 0, 63)},
      {"epoch", real(&c.epoch, -1e12, 1e12, "-1e12..1e12 seconds (rails-epoch)")},
      {"guard", real(&c.guard, 0, 1e6, "0..1e6 seconds, below frame (rails-guard)")},
      {"dispatch_depth", integer(&c.dispatch_depth, 1, 1024)},
      {"read_cost", real(&c.read_cost, 1e-9, 10, "1e-9..10 seconds per 4 KiB")},
      {"write_cost", real(&c.write_cost, 1e-9, 10, "1e-9..10 seconds per 4 KiB")},
      {"cost_source", choice(&c.cost_source, {{"profile", CostSource::kProfile}, {"estimator", CostSource::kEstimator}})},
  };
}

KeyTable stream_table(StreamConfig& s) {
  return {
      {"kind", choice(&s.kind, {{"closed", StreamKind::kClosed}, {"open", StreamKind::kOpen}, {"trace", StreamKind::kTrace}})},
      {"read_fraction", real(&s.read_fraction, 0, 1, "0..1")},
      {"pattern", choice(&s.sequential, {{"random", false}, {"sequential", true}})},
      {"size", integer(&s.size, 512, 64 << 20)},
      {"outstanding", integer(&s.outstanding, 1, 1 << 20)},
      {"rate", real(&s.rate, 1e-6, 1e9, "1e-6..1e9 requests/s")},
      {"objects", integer(&s.objects, 1, 100000000)},
      {"start", real(&s.start, 0, 1e7, "0..1e7 seconds")},
      {"stop", real(&s.stop, 0, 1e300, "0..1e300 seconds")},
      {"max_requests", integer(&s.max_requests, 0, INT64_MAX)},
      {"trace", text(&s.trace)},
      {"trace_speed", real(&s.trace_speed, 1e-6, 1e6, "1e-6..1e6")},
      {"utilization", real(&s.utilization, 1e-6, 1, "1e-6..1 (share of device time)")},
      {"reservation", real(&s.reservation, 0, 1e9, "0..1e9 requests/s (0 = none)")},
      {"weight", real(&s.weight, 1e-6, 1e9, "1e-6..1e9")},
      {"limit", real(&s.limit, 0, 1e9, "0..1e9 requests/s (0 = none)")},
      {"target", real(&s.target, 0, 1e9, "0..1e9 requests/s (0 = none)")},
      {"target_window", real(&s.target_window, 0, 1e7, "0..1e7 seconds, a multiple of timeline_interval")},
  };
}

KeyTable failure_table(FailureConfig& f) {
  return {
      {"osd", integer(&f.osd, 0, 99999)},
      {"at", real(&f.at, 0, 1e7, "0..1e7 seconds")},
  };
}

KeyTable slow_table(SlowConfig& f) {
  return {
      {"fraction", real(&f.fraction, 0, 1, "0..1")},
      {"osd", integer(&f.osd, 0, 99999)},
      {"factor", real(&f.factor, 1, 1000, "1..1000")},
  };
}

// The sections of a simulator config: its own, and the device models' through ModelSections.
class Sections {
 public:
  explicit Sections(SimConfig& c) : c_(c) {}

  Expected<KeyTable> open(const std::string& type, const std::string& name, const Place& at) {
    const std::string where = at.section_prefix();
    const bool named = type == "ssd" || type == "hdd" || type == "stream" || type == "failure" ||
                       type == "slow";
    if (!named && type != "sim" && type != "cluster")
      return Error{"section", where + "unknown section; accepted: sim, cluster, ssd NAME, hdd NAME, stream NAME, failure NAME, slow NAME"};
    if (!named && !name.empty()) return Error{"section", where + "section '" + type + "' takes no name"};
    if (named && !devices::valid_name(name))
      return Error{"section", where + "needs a name of 1..64 letters, digits, '_', '-', '.'"};
    if (type == "sim") return sim_table(c_);
    if (type == "cluster") return cluster_table(c_);
    if (type == "ssd" || type == "hdd") return models_.open(type == "ssd", name, at);
    if (type == "failure") {
      for (const auto& f : c_.failures)
        if (f.name == name) return Error{"section", where + "failure '" + name + "' defined twice"};
      if (c_.failures.size() >= 4096) return Error{"section", where + "too many failures; accepted: at most 4096"};
      c_.failures.emplace_back();
      c_.failures.back().name = name;
      return failure_table(c_.failures.back());
    }
    if (type == "slow") {
      for (const auto& f : c_.slow)
        if (f.name == name) return Error{"section", where + "slow '" + name + "' defined twice"};
      if (c_.slow.size() >= 64) return Error{"section", where + "too many slow sections; accepted: at most 64"};
      c_.slow.emplace_back();
      c_.slow.back().name = name;
      return slow_table(c_.slow.back());
    }
    for (const auto& s : c_.streams)
      if (s.name == name) return Error{"section", where + "stream '" + name + "' defined twice"};
    if (c_.streams.size() >= 1024) return Error{"section", where + "too many streams; accepted: at most 1024"};
    c_.streams.emplace_back();
    c_.streams.back().name = name;
    stream_origins_.push_back(at.origin);
    return stream_table(c_.streams.back());
  }

  devices::ModelSections& models() { return models_; }
  // The file each stream was defined in, which its trace path is relative to.
  const std::vector<std::string>& stream_origins() const { return stream_origins_; }

 private:
  SimConfig& c_;
  devices::ModelSections models_;
  std::vector<std::string> stream_origins_;
};

// The scheduler's per-stream settings: present for the scheduler that reads them, absent otherwise,
// and admissible together (utilizations add up to at most 1: the QBox broker's admission rule).
std::optional<Error> check_scheduler(SimConfig& c, const std::string& origin) {
  auto fail = [&](const char* key, const std::string& msg) { return Error{key, origin + ": " + msg}; };
  const bool shares = c.scheduler == qbox::SchedulerKind::qbox || c.scheduler == qbox::SchedulerKind::fifo;
  const std::string name = scheduler_name(c.scheduler);
  double total_utilization = 0;
  bool any_target = false;
  for (auto& s : c.streams) {
    any_target = any_target || s.target > 0;
    const std::string where = "[stream " + s.name + "] ";
    if (shares && s.utilization <= 0)
      return fail("utilization", where + "scheduler " + name + " needs utilization; accepted: 1e-6..1");
    if (!shares && s.utilization > 0)
      return fail("utilization", where + "utilization is read only by scheduler qbox or fifo, not " + name);
    const bool mclock_keys = s.reservation > 0 || s.limit > 0 || s.weight != 1;
    if (c.scheduler != qbox::SchedulerKind::mclock && mclock_keys)
      return fail(s.reservation > 0 ? "reservation" : s.limit > 0 ? "limit" : "weight",
                  where + "reservation, weight and limit are read only by scheduler mclock, not " + name);
    if (s.limit > 0 && s.limit < s.reservation)
      return fail("limit", where + "limit is below reservation; accepted: 0 (none) or >= reservation");
    total_utilization += s.utilization;
    if (s.target_window == 0) s.target_window = c.timeline_interval;
    const double windows = s.target_window / c.timeline_interval;
    if (windows < 1 - 1e-9 || std::fabs(windows - std::round(windows)) > 1e-6)
      return fail("target_window", where + "target_window must be a multiple of [sim] timeline_interval");
  }
  if (total_utilization > 1 + 1e-9)
    return fail("utilization", "streams' utilizations add up to " + std::to_string(total_utilization) +
                                   "; accepted: at most 1 (admission control)");
  if (c.scheduler == qbox::SchedulerKind::qbox && (c.read_cost <= 0 || c.write_cost <= 0))
    return fail(c.read_cost <= 0 ? "read_cost" : "write_cost",
                "[cluster] scheduler qbox needs read_cost and write_cost (profiled seconds per 4 KiB)");
  if (c.cost_source == CostSource::kEstimator && c.scheduler != qbox::SchedulerKind::qbox)
    return fail("cost_source", "[cluster] cost_source estimator is read only by scheduler qbox, not " + name);
  const double rows = (c.duration + c.drain_limit) / c.timeline_interval;
  if ((c.scheduler || any_target) && rows * static_cast<double>(c.streams.size()) > 2e7)
    return fail("timeline_interval", "[sim] streams * timeline rows exceeds 2e7 (per-stream timelines); "
                                     "accepted: a longer timeline_interval or a shorter drain_limit");
  return std::nullopt;
}

std::optional<Error> check(SimConfig& c, const std::string& origin) {
  auto fail = [&](const char* key, const std::string& msg) { return Error{key, origin + ": " + msg}; };
  const int n = c.k + c.m;
  if ((c.duration + c.drain_limit) / c.timeline_interval > 1e7)
    return fail("timeline_interval", "[sim] (duration + drain_limit) / timeline_interval exceeds 1e7 timeline rows; "
                                     "accepted: a longer timeline_interval");
  if (n > rails::kMaxColors) return fail("m", "k+m is " + std::to_string(n) + "; accepted: at most 64");
  if (c.policy == Policy::kRails && c.k != 1)
    return fail("k", "policy rails is replication and needs k = 1 (use policy erails for k > 1)");
  if (c.readers == 0) c.readers = c.policy == Policy::kRails ? n - 1 : c.k;
  if (c.policy != Policy::kNone) {
    auto v = rails::validate({n, c.frame, c.readers, c.epoch, c.guard});
    if (!v.ok()) return fail(v.error().key.c_str(), v.error().message);
    if (c.policy == Policy::kErails && c.readers < c.k)
      return fail("rails-readers", "rails-readers (readers) is " + std::to_string(c.readers) + "; accepted: " +
                                       std::to_string(c.k) + ".." + std::to_string(n - 1) +
                                       " (at least k, so reads never need a write-phase shard)");
    if (c.journal_device.empty())
      return fail("journal_device", "[cluster] journal_device is required for policies rails and erails");
  }
  if (c.data_device.empty()) return fail("data_device", "[cluster] data_device is required; accepted: an [ssd] or [hdd] name");
  auto dev = c.devices.find(c.data_device);
  if (dev == c.devices.end())
    return fail("data_device", "[cluster] data_device '" + c.data_device + "' is not a defined [ssd] or [hdd] section");
  if (!c.journal_device.empty()) {
    auto j = c.devices.find(c.journal_device);
    if (j == c.devices.end())
      return fail("journal_device", "[cluster] journal_device '" + c.journal_device + "' is not a defined device");
  }
  if (auto s = devices::check_models(c.devices, origin); !s.ok()) return s.error();
  if (static_cast<int64_t>(n) * c.osds_per_color > 100000)
    return fail("osds_per_color", "(k+m) * osds_per_color exceeds 100000 OSDs");
  if (c.streams.empty()) return fail("stream", "no [stream NAME] section; accepted: at least one");
  uint64_t objects = 0;
  for (const auto& s : c.streams) {
    objects += s.objects;
    const std::string where = "[stream " + s.name + "] ";
    if (s.stop <= s.start) return fail("stop", where + "stop must be > start");
    if (s.kind == StreamKind::kOpen && s.rate <= 0) return fail("rate", where + "kind open needs rate > 0");
    if (s.kind == StreamKind::kTrace && s.trace.empty()) return fail("trace", where + "kind trace needs trace = PATH");
    if (s.kind != StreamKind::kTrace && !s.trace.empty()) return fail("trace", where + "trace is only for kind trace");
  }
  for (const auto& f : c.failures) {
    if (f.osd < 0) return fail("osd", "[failure " + f.name + "] osd is required");
    if (f.osd >= n * c.osds_per_color)
      return fail("osd", "[failure " + f.name + "] osd is " + std::to_string(f.osd) + "; accepted: 0.." +
                             std::to_string(n * c.osds_per_color - 1));
  }
  if (auto e = check_scheduler(c, origin)) return e;
  double slow_total = 0;
  for (const auto& f : c.slow) {
    slow_total += f.fraction;
    const std::string where = "[slow " + f.name + "] ";
    if (f.osd >= 0 && f.fraction > 0)
      return fail("osd", where + "osd and fraction are both given; accepted: one of them");
    if (f.osd >= n * c.osds_per_color)
      return fail("osd", where + "osd is " + std::to_string(f.osd) + "; accepted: 0.." +
                             std::to_string(n * c.osds_per_color - 1));
  }
  if (slow_total > 1) return fail("fraction", "[slow] fractions add up to more than 1");
  if (c.fast_read && c.policy != Policy::kNone)
    return fail("fast_read", std::string("[sim] fast_read is on with policy ") + policy_name(c.policy) +
                                 "; accepted: fast_read on with policy none only (rails and erails choose the "
                                 "shards a read fetches)");
  if (objects * static_cast<uint64_t>(n) > 400000000ull)
    return fail("objects", "total objects * (k+m) exceeds 4e8 (memory for per-shard versions)");
  return std::nullopt;
}

}  // namespace

const char* policy_name(Policy p) {
  switch (p) {
    case Policy::kNone: return "none";
    case Policy::kRails: return "rails";
    case Policy::kErails: return "erails";
  }
  return "?";
}

const char* scheduler_name(const std::optional<qbox::SchedulerKind>& s) {
  return s ? qbox::to_string(*s) : "none";
}

Expected<SimConfig> parse_config(std::string_view text, const std::string& origin,
                                 const devices::IncludeLoader& loader) {
  SimConfig c;
  Sections sections(c);
  auto open = [&](const std::string& type, const std::string& name, const Place& at) {
    return sections.open(type, name, at);
  };
  if (auto e = devices::read_config(text, origin, loader, open)) return *e;
  if (auto s = sections.models().resolve_bases(); !s.ok()) return s.error();
  c.devices = std::move(sections.models().models());
  for (size_t i = 0; i < c.streams.size(); ++i)
    if (!c.streams[i].trace.empty() && c.streams[i].trace.front() != '/')
      c.streams[i].trace = devices::dir_of(sections.stream_origins()[i]) + c.streams[i].trace;
  if (auto e = check(c, origin)) return *e;
  return c;
}

Expected<SimConfig> load_config(const std::string& path) {
  auto top = devices::read_config_file(path);
  if (!top.ok()) return top.error();
  return parse_config(top.value().first, path, devices::file_include_loader());
}

}  // namespace erails::sim
