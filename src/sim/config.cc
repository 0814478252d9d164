#include "sim/config.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "rails/schedule.h"

namespace erails::sim {

namespace {

// Where a value came from, for error messages.
struct Place {
  std::string origin;
  int line = 0;
  std::string section;
  std::string key;
  std::string prefix() const {
    return origin + ":" + std::to_string(line) + ": [" + section + "] " + key + ": ";
  }
};

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

Expected<double> parse_double(const Place& at, std::string_view v, double lo, double hi, const char* range) {
  std::string s(v);
  char* end = nullptr;
  errno = 0;
  const double d = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(d) || d < lo || d > hi)
    return Error{at.key, at.prefix() + "'" + s + "' is not accepted; accepted: a number in " + range};
  return d;
}

Expected<int64_t> parse_int(const Place& at, std::string_view v, int64_t lo, int64_t hi) {
  std::string s(v);
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || n < lo || n > hi)
    return Error{at.key, at.prefix() + "'" + s + "' is not accepted; accepted: an integer in " +
                             std::to_string(lo) + ".." + std::to_string(hi)};
  return static_cast<int64_t>(n);
}

using Setter = std::function<std::optional<Error>(const Place&, std::string_view)>;
using Table = std::map<std::string, Setter>;

Setter real(double* out, double lo, double hi, const char* range) {
  return [=](const Place& at, std::string_view v) -> std::optional<Error> {
    auto d = parse_double(at, v, lo, hi, range);
    if (!d.ok()) return d.error();
    *out = d.value();
    return std::nullopt;
  };
}

template <class T>
Setter integer(T* out, int64_t lo, int64_t hi) {
  return [=](const Place& at, std::string_view v) -> std::optional<Error> {
    auto n = parse_int(at, v, lo, hi);
    if (!n.ok()) return n.error();
    *out = static_cast<T>(n.value());
    return std::nullopt;
  };
}

Setter text(std::string* out) {
  return [=](const Place& at, std::string_view v) -> std::optional<Error> {
    if (v.empty()) return Error{at.key, at.prefix() + "empty; accepted: a name or path"};
    *out = std::string(v);
    return std::nullopt;
  };
}

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
constexpr int kMaxNesting = 8;  // include levels, and links in a chain of device bases

Table sim_table(SimConfig& c) {
  return {
      {"seed", integer(&c.seed, 0, INT64_MAX)},
      {"duration", real(&c.duration, 1e-3, 1e7, "0.001..1e7 seconds")},
      {"drain_limit", real(&c.drain_limit, 0, 1e7, "0..1e7 seconds")},
      {"timeline_interval", real(&c.timeline_interval, 1e-3, 1e6, "0.001..1e6 seconds")},
      {"policy", choice(&c.policy, {{"none", Policy::kNone}, {"rails", Policy::kRails}, {"erails", Policy::kErails}})},
      {"scheduler", choice(&c.scheduler, {{"none", Scheduler::kNone}, {"qbox", Scheduler::kQbox},
                                          {"fifo", Scheduler::kFifo}, {"mclock", Scheduler::kMclock}})},
  };
}

Table cluster_table(SimConfig& c) {
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

Table ssd_table(devices::SsdParams& p) {
  return {
      {"capacity_bytes", real(&p.capacity_bytes, 1e6, kBig, "1e6..1e18")},
      {"spare_bytes", real(&p.spare_bytes, 1, kBig, "1..1e18")},
      {"parallelism", integer(&p.parallelism, 1, 64)},
      {"read_latency", real(&p.read_latency, 0, 1, "0..1 seconds")},
      {"read_bandwidth", real(&p.read_bandwidth, 1, kBig, "1..1e18 bytes/s")},
      {"write_latency", real(&p.write_latency, 0, 1, "0..1 seconds")},
      {"write_bandwidth", real(&p.write_bandwidth, 1, kBig, "1..1e18 bytes/s")},
      {"gc_copy_bandwidth", real(&p.gc_copy_bandwidth, 1, kBig, "1..1e18 bytes/s")},
      {"gc_erase_bandwidth", real(&p.gc_erase_bandwidth, 1, kBig, "1..1e18 bytes/s")},
      {"gc_low_free_bytes", real(&p.gc_low_free_bytes, 1, kBig, "1..1e18")},
      {"gc_target_free_bytes", real(&p.gc_target_free_bytes, 1, kBig, "1..1e18, above gc_low_free_bytes")},
      {"gc_event_min", real(&p.gc_event_min, 1e-6, 10, "1e-6..10 seconds")},
      {"gc_event_max", real(&p.gc_event_max, 1e-6, 10, "1e-6..10 seconds, >= gc_event_min")},
      {"bg_gc_interval", real(&p.bg_gc_interval, 0, 1e6, "0..1e6 seconds (0 disables)")},
      {"region_bytes", real(&p.region_bytes, 4096, kBig, "4096..1e18, at least capacity_bytes/1e7")},
      {"initial_footprint", real(&p.initial_footprint, 0, 1, "0..1")},
  };
}

Table hdd_table(devices::HddParams& p) {
  return {
      {"capacity_bytes", real(&p.capacity_bytes, 1e6, kBig, "1e6..1e18")},
      {"bandwidth", real(&p.bandwidth, 1, kBig, "1..1e18 bytes/s")},
      {"avg_seek", real(&p.avg_seek, 0, 1, "0..1 seconds")},
      {"rpm", real(&p.rpm, 1, 1e6, "1..1e6")},
      {"ncq_depth", integer(&p.ncq_depth, 1, 256)},
      {"sequential_window", real(&p.sequential_window, 0, kBig, "0..1e18 bytes")},
  };
}

Table stream_table(StreamConfig& s) {
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

// An [ssd] or [hdd] section's keys: the model's parameters and the base it derives from.
Table device_table(DeviceConfig& d) {
  Table t = d.is_ssd ? ssd_table(d.ssd) : hdd_table(d.hdd);
  t["base"] = text(&d.base);
  return t;
}

Table failure_table(FailureConfig& f) {
  return {
      {"osd", integer(&f.osd, 0, 99999)},
      {"at", real(&f.at, 0, 1e7, "0..1e7 seconds")},
  };
}

Table slow_table(SlowConfig& f) {
  return {
      {"fraction", real(&f.fraction, 0, 1, "0..1")},
      {"factor", real(&f.factor, 1, 1000, "1..1000")},
  };
}

std::string accepted_keys(const Table& t) {
  std::string out;
  for (const auto& [k, _] : t) out += (out.empty() ? "" : ", ") + k;
  return out;
}

bool valid_name(std::string_view n) {
  if (n.empty() || n.size() > 64) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

class Parser {
 public:
  Parser(SimConfig& c, const IncludeLoader& loader) : c_(c), loader_(loader) {}

  std::optional<Error> parse(std::string_view text, const std::string& origin, int depth) {
    if (depth > kMaxNesting)
      return Error{"include", origin + ": includes nested deeper than " + std::to_string(kMaxNesting) +
                                  "; accepted: at most " + std::to_string(kMaxNesting) + " levels"};
    Place at{origin, 0, "", ""};
    Table table;
    std::string section_key;
    size_t pos = 0;
    while (pos <= text.size()) {
      auto nl = text.find('\n', pos);
      if (nl == std::string_view::npos) nl = text.size();
      std::string_view line = text.substr(pos, nl - pos);
      pos = nl + 1;
      at.line++;
      if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
      line = trim(line);
      if (line.empty()) continue;
      if (line.front() == '[') {
        if (line.back() != ']')
          return Error{"section", origin + ":" + std::to_string(at.line) + ": section header without ']'"};
        auto opened = open_section(trim(line.substr(1, line.size() - 2)), at, table);
        if (opened) return opened;
        continue;
      }
      const auto eq = line.find('=');
      if (eq == std::string_view::npos)
        return Error{"line", origin + ":" + std::to_string(at.line) + ": expected 'key = value' or '[section]'"};
      at.key = std::string(trim(line.substr(0, eq)));
      const std::string_view value = trim(line.substr(eq + 1));
      if (at.key == "include" && at.section.empty()) {
        if (auto e = include(std::string(value), at, depth)) return e;
        continue;
      }
      if (at.section.empty())
        return Error{at.key, origin + ":" + std::to_string(at.line) + ": key '" + at.key +
                                 "' outside a section; accepted there: include"};
      auto setter = table.find(at.key);
      if (setter == table.end())
        return Error{at.key, at.prefix() + "unknown key; accepted: " + accepted_keys(table)};
      if (auto e = setter->second(at, value)) return e;
      if (!device_.empty()) device_lines_[device_].push_back({at, std::string(value)});
    }
    return std::nullopt;
  }

  // Gives every device with a base its final values: the base's (resolved first), then the
  // device's own lines replayed on top, so a base may be defined after the device or in another
  // file, and the order of keys in a section does not matter.
  std::optional<Error> resolve_bases() {
    std::set<std::string> resolved;
    for (const auto& entry : c_.devices)
      if (auto e = resolve(entry.first, {}, resolved)) return e;
    return std::nullopt;
  }

 private:
  std::optional<Error> open_section(std::string_view header, Place& at, Table& table) {
    const auto space = header.find(' ');
    const std::string type(header.substr(0, space));
    const std::string name(space == std::string_view::npos ? std::string_view() : trim(header.substr(space + 1)));
    at.section = std::string(header);
    device_.clear();
    const std::string where = at.origin + ":" + std::to_string(at.line) + ": [" + at.section + "]: ";
    const bool named = type == "ssd" || type == "hdd" || type == "stream" || type == "failure" ||
                       type == "slow";
    if (!named && type != "sim" && type != "cluster")
      return Error{"section", where + "unknown section; accepted: sim, cluster, ssd NAME, hdd NAME, stream NAME, failure NAME, slow NAME"};
    if (!named && !name.empty()) return Error{"section", where + "section '" + type + "' takes no name"};
    if (named && !valid_name(name))
      return Error{"section", where + "needs a name of 1..64 letters, digits, '_', '-', '.'"};
    if (type == "sim") {
      table = sim_table(c_);
    } else if (type == "cluster") {
      table = cluster_table(c_);
    } else if (type == "ssd" || type == "hdd") {
      auto [it, fresh] = c_.devices.try_emplace(name);
      if (!fresh) return Error{"section", where + "device '" + name + "' defined twice"};
      it->second.is_ssd = type == "ssd";
      it->second.ssd.name = it->second.hdd.name = name;
      table = device_table(it->second);
      device_ = name;
    } else if (type == "failure") {
      for (const auto& f : c_.failures)
        if (f.name == name) return Error{"section", where + "failure '" + name + "' defined twice"};
      if (c_.failures.size() >= 4096) return Error{"section", where + "too many failures; accepted: at most 4096"};
      c_.failures.emplace_back();
      c_.failures.back().name = name;
      table = failure_table(c_.failures.back());
    } else if (type == "slow") {
      for (const auto& f : c_.slow)
        if (f.name == name) return Error{"section", where + "slow '" + name + "' defined twice"};
      if (c_.slow.size() >= 64) return Error{"section", where + "too many slow sections; accepted: at most 64"};
      c_.slow.emplace_back();
      c_.slow.back().name = name;
      table = slow_table(c_.slow.back());
    } else if (type == "stream") {
      for (const auto& s : c_.streams)
        if (s.name == name) return Error{"section", where + "stream '" + name + "' defined twice"};
      if (c_.streams.size() >= 1024) return Error{"section", where + "too many streams; accepted: at most 1024"};
      c_.streams.emplace_back();
      c_.streams.back().name = name;
      stream_origins_.push_back(at.origin);
      table = stream_table(c_.streams.back());
    }
    return std::nullopt;
  }

  std::optional<Error> include(const std::string& value, const Place& at, int depth) {
    if (!loader_)
      return Error{"include", at.origin + ":" + std::to_string(at.line) + ": include is not available here"};
    auto loaded = loader_(at.origin, value);
    if (!loaded.ok()) return loaded.error();
    // Read once, so a device file may include the file of the device it derives from and a
    // config may still include both.
    if (!included_.insert(loaded.value().second).second) return std::nullopt;
    return parse(loaded.value().first, loaded.value().second, depth + 1);
  }

  // `chain`: the devices whose bases led here, outermost first.
  std::optional<Error> resolve(const std::string& name, std::vector<std::string> chain,
                               std::set<std::string>& resolved) {
    DeviceConfig& d = c_.devices.at(name);
    if (d.base.empty() || resolved.count(name)) return std::nullopt;
    const Place& at = base_line(name);
    const char* kind = d.is_ssd ? "ssd" : "hdd";
    auto accepted = [&] {
      return "; accepted: the name of an [" + std::string(kind) + "] section that does not derive from '" + name +
             "'" + list_or_none(base_candidates(name));
    };
    const auto base = c_.devices.find(d.base);
    if (base == c_.devices.end() || base->second.is_ssd != d.is_ssd)
      return Error{"base", at.prefix() + "'" + d.base + "' is not a defined [" + kind + "] section" + accepted()};
    chain.push_back(name);
    if (auto loop = std::find(chain.begin(), chain.end(), d.base); loop != chain.end()) {
      std::string cycle;
      for (auto it = loop; it != chain.end(); ++it) cycle += *it + " -> ";
      return Error{"base", at.prefix() + "'" + d.base + "' makes a cycle (" + cycle + d.base + ")" + accepted()};
    }
    if (static_cast<int>(chain.size()) > kMaxNesting)
      return Error{"base", at.prefix() + "bases chained deeper than " + std::to_string(kMaxNesting) +
                               "; accepted: at most " + std::to_string(kMaxNesting) + " links"};
    if (auto e = resolve(d.base, chain, resolved)) return e;
    DeviceConfig derived = base->second;
    derived.ssd.name = derived.hdd.name = name;
    Table table = device_table(derived);
    for (const auto& [line, value] : device_lines_[name]) table.at(line.key)(line, value);  // checked when parsed
    d = derived;
    resolved.insert(name);
    return std::nullopt;
  }

  const Place& base_line(const std::string& device) {
    const auto& lines = device_lines_[device];
    return std::find_if(lines.rbegin(), lines.rend(), [](const auto& l) { return l.first.key == "base"; })->first;
  }

  // Devices of the same kind as `device` whose chain of bases never reaches it.
  std::vector<std::string> base_candidates(const std::string& device) const {
    std::vector<std::string> out;
    const bool ssd = c_.devices.at(device).is_ssd;
    for (const auto& [name, d] : c_.devices) {
      if (d.is_ssd != ssd) continue;
      std::string at = name;
      for (int hop = 0; hop <= kMaxNesting && !at.empty() && at != device; ++hop) {
        const auto next = c_.devices.find(at);
        at = next == c_.devices.end() ? std::string() : next->second.base;
      }
      if (at != device) out.push_back(name);
    }
    return out;
  }

  static std::string list_or_none(const std::vector<std::string>& names) {
    if (names.empty()) return " (there is none)";
    std::string out;
    for (const auto& n : names) out += (out.empty() ? ": " : ", ") + n;
    return out;
  }

  SimConfig& c_;
  const IncludeLoader& loader_;
  std::string device_;  // the [ssd]/[hdd] section being read, if any
  std::map<std::string, std::vector<std::pair<Place, std::string>>> device_lines_;
  std::set<std::string> included_;

 public:
  std::vector<std::string> stream_origins_;
};

// The scheduler's per-stream settings: present for the scheduler that reads them, absent otherwise,
// and admissible together (utilizations add up to at most 1: the QBox broker's admission rule).
std::optional<Error> check_scheduler(SimConfig& c, const std::string& origin) {
  auto fail = [&](const char* key, const std::string& msg) { return Error{key, origin + ": " + msg}; };
  const bool shares = c.scheduler == Scheduler::kQbox || c.scheduler == Scheduler::kFifo;
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
    if (c.scheduler != Scheduler::kMclock && mclock_keys)
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
  if (c.scheduler == Scheduler::kQbox && (c.read_cost <= 0 || c.write_cost <= 0))
    return fail(c.read_cost <= 0 ? "read_cost" : "write_cost",
                "[cluster] scheduler qbox needs read_cost and write_cost (profiled seconds per 4 KiB)");
  if (c.cost_source == CostSource::kEstimator && c.scheduler != Scheduler::kQbox)
    return fail("cost_source", "[cluster] cost_source estimator is read only by scheduler qbox, not " + name);
  const double rows = (c.duration + c.drain_limit) / c.timeline_interval;
  if ((c.scheduler != Scheduler::kNone || any_target) && rows * static_cast<double>(c.streams.size()) > 2e7)
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
  for (auto& [name, d] : c.devices) {
    const std::string problem = d.is_ssd ? validate(d.ssd) : validate(d.hdd);
    if (!problem.empty()) return fail("device", "[" + std::string(d.is_ssd ? "ssd " : "hdd ") + name + "] " + problem);
  }
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
  for (const auto& f : c.slow) slow_total += f.fraction;
  if (slow_total > 1) return fail("fraction", "[slow] fractions add up to more than 1");
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

const char* scheduler_name(Scheduler s) {
  switch (s) {
    case Scheduler::kNone: return "none";
    case Scheduler::kQbox: return "qbox";
    case Scheduler::kFifo: return "fifo";
    case Scheduler::kMclock: return "mclock";
  }
  return "?";
}

Expected<SimConfig> parse_config(std::string_view text, const std::string& origin, const IncludeLoader& loader) {
  SimConfig c;
  Parser parser(c, loader);
  if (auto e = parser.parse(text, origin, 0)) return *e;
  if (auto e = parser.resolve_bases()) return *e;
  for (size_t i = 0; i < c.streams.size(); ++i)
    if (!c.streams[i].trace.empty() && c.streams[i].trace.front() != '/')
      c.streams[i].trace = dir_of(parser.stream_origins_[i]) + c.streams[i].trace;
  if (auto e = check(c, origin)) return *e;
  return c;
}

namespace {

Expected<std::pair<std::string, std::string>> read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return Error{"include", "cannot read config file '" + p + "'"};
  std::ostringstream s;
  s << in.rdbuf();
  // One spelling per file, so a file reached by two relative paths is still included once.
  return std::make_pair(s.str(), std::filesystem::path(p).lexically_normal().string());
}

}  // namespace

IncludeLoader file_include_loader() {
  return [](const std::string& from, const std::string& inc) {
    return read_file(!inc.empty() && inc.front() == '/' ? inc : dir_of(from) + inc);
  };
}

Expected<SimConfig> load_config(const std::string& path) {
  auto top = read_file(path);
  if (!top.ok()) return top.error();
  return parse_config(top.value().first, path, file_include_loader());
}

}  // namespace erails::sim
