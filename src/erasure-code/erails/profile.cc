#include "erasure-code/erails/profile.h"

#include <limits>
#include <set>
#include <sstream>

#include "common/number.h"

namespace erails {
namespace {

// Keys Ceph itself puts in or reads from every profile; the plugin accepts and ignores them.
const std::set<std::string> kCephKeys = {"plugin", "directory", "stripe_unit"};

const std::vector<std::string> kOwnKeys = {
    "k",          "m",           "technique",     "w",            "packetsize",
    "crush-root", "crush-failure-domain",         "crush-device-class", "crush-colors",
    "rails-frame", "rails-readers", "rails-epoch", "rails-guard"};

constexpr int kDefaultPacketSize = 2048;
constexpr int kMaxPacketSize = 1 << 20;

std::string format_number(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

// Returns the value of `key`, writing `fallback` into the profile when the key is absent.
const std::string& value_or_default(ProfileMap& profile, const std::string& key,
                                    const std::string& fallback) {
  return profile.emplace(key, fallback).first->second;
}

// Every integer of a profile is a small count or size, so one beyond int is out of every range.
bool to_int(const std::string& text, int* out) {
  const auto value = parse_int(text);
  if (!value || *value < std::numeric_limits<int>::min() || *value > std::numeric_limits<int>::max()) return false;
  *out = static_cast<int>(*value);
  return true;
}

bool to_seconds(const std::string& text, double* out) {
  const auto value = parse_real(text);
  if (!value) return false;
  *out = *value;
  return true;
}

std::string value_of(const ProfileMap& profile, const std::string& key) {
  auto it = profile.find(key);
  return it == profile.end() ? "" : it->second;
}

Error invalid(const ProfileMap& profile, const std::string& key, const std::string& reason) {
  return Error{key, "erails: " + key + "=" + value_of(profile, key) + " is invalid: " + reason};
}

Error error(const ProfileMap& profile, const std::string& key, const std::string& accepted) {
  return invalid(profile, key, "expected " + accepted);
}

Status check_known_keys(const ProfileMap& profile) {
  for (const auto& [key, value] : profile) {
    if (kCephKeys.count(key)) continue;
    bool known = false;
    for (const auto& own : kOwnKeys) known = known || own == key;
    if (known) continue;
    std::string accepted = "unknown key; erails accepts";
    for (const auto& own : kOwnKeys) accepted += " " + own;
    return error(profile, key, accepted);
  }
  return Ok{};
}

Status parse_code(ProfileMap& profile, Profile* p) {
  if (auto it = profile.find("plugin"); it != profile.end() && it->second != "erails")
    return error(profile, "plugin", "this plugin is erails");

  const std::string chunk_limit = std::to_string(kMaxChunks);
  // Ceph's default erasure-code profile is k=2 m=2; an erails profile without k or m gets the same.
  if (!to_int(value_or_default(profile, "k", "2"), &p->k) || p->k < 1 || p->k >= kMaxChunks)
    return error(profile, "k", "an integer from 1 to " + std::to_string(kMaxChunks - 1) +
                                   " (k=1 stores m+1 full copies)");
  if (!to_int(value_or_default(profile, "m", "2"), &p->m) || p->m < 1 || p->m >= kMaxChunks)
    return error(profile, "m", "an integer from 1 to " + std::to_string(kMaxChunks - 1));
  if (p->k + p->m > kMaxChunks)
    return error(profile, "m", "k+m at most " + chunk_limit + " (one Rails color per shard)");

  const std::string technique = value_or_default(profile, "technique", "reed_sol_van");
  if (technique == "reed_sol_van") {
    p->technique = Technique::kReedSolVan;
  } else if (technique == "cauchy_orig") {
    p->technique = Technique::kCauchyOrig;
  } else if (technique == "cauchy_good") {
    p->technique = Technique::kCauchyGood;
  } else {
    return error(profile, "technique", "one of reed_sol_van, cauchy_orig, cauchy_good");
  }

  const bool cauchy = p->technique != Technique::kReedSolVan;
  const std::string w = value_or_default(profile, "w", "8");
  if (!cauchy) {
    if (!to_int(w, &p->w) || (p->w != 8 && p->w != 16 && p->w != 32))
      return error(profile, "w", "8, 16 or 32 for technique=reed_sol_van");
  } else if (!to_int(w, &p->w) || p->w < 2 || p->w > 32) {
    return error(profile, "w", "an integer from 2 to 32 for technique=" + technique);
  }
  if (p->w < 31 && p->k + p->m > (1 << p->w))
    return error(profile, "w", "a word size with 2^w >= k+m (k+m=" +
                                   std::to_string(p->k + p->m) + ")");

  if (!cauchy) {
    if (profile.count("packetsize"))
      return error(profile, "packetsize", "nothing: packetsize applies to cauchy_orig and cauchy_good only");
    p->packetsize = 0;
  } else {
    const std::string packetsize =
        value_or_default(profile, "packetsize", std::to_string(kDefaultPacketSize));
    if (!to_int(packetsize, &p->packetsize) || p->packetsize < 8 ||
        p->packetsize > kMaxPacketSize || p->packetsize % 8 != 0)
      return error(profile, "packetsize",
                   "a multiple of 8 from 8 to " + std::to_string(kMaxPacketSize) + " (bytes)");
  }
  return Ok{};
}

Status parse_crush(ProfileMap& profile, Profile* p) {
  p->crush_root = value_or_default(profile, "crush-root", "default");
  if (p->crush_root.empty()) return error(profile, "crush-root", "the name of a CRUSH bucket");
  p->crush_failure_domain = value_or_default(profile, "crush-failure-domain", "host");
  if (p->crush_failure_domain.empty())
    return error(profile, "crush-failure-domain", "a CRUSH type name such as host, rack or osd");
  p->crush_device_class = value_or_default(profile, "crush-device-class", "");

  const std::string colors = value_or_default(profile, "crush-colors", "");
  p->crush_colors.clear();
  if (colors.empty()) return Ok{};
  std::set<std::string> seen;
  std::string::size_type start = 0;
  while (true) {
    auto comma = colors.find(',', start);
    std::string name = colors.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name.empty() || !seen.insert(name).second) break;
    p->crush_colors.push_back(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const int n = p->k + p->m;
  if (static_cast<int>(p->crush_colors.size()) != n || seen.size() != p->crush_colors.size() ||
      colors.back() == ',')
    return error(profile, "crush-colors",
                 "empty, or exactly k+m=" + std::to_string(n) +
                     " distinct CRUSH bucket names separated by commas, in shard order");
  return Ok{};
}

Status parse_rails(ProfileMap& profile, Profile* p) {
  rails::ScheduleParams& schedule = p->schedule;
  schedule.colors = p->k + p->m;
  if (!to_seconds(value_or_default(profile, "rails-frame", "10"), &schedule.frame_seconds))
    return error(profile, "rails-frame", "seconds per window step, a decimal number");
  // Reads must be able to decode from the read-phase colors alone.
  if (!to_int(value_or_default(profile, "rails-readers", std::to_string(p->k)),
                 &schedule.readers) ||
      schedule.readers < p->k)
    return error(profile, "rails-readers",
                 "an integer from k=" + std::to_string(p->k) + " to k+m-1=" +
                     std::to_string(schedule.colors - 1) +
                     " (colors read at once; one color at least writes)");
  if (!to_seconds(value_or_default(profile, "rails-epoch", "0"), &schedule.epoch))
    return error(profile, "rails-epoch", "seconds since the Unix epoch, a decimal number");
  // A tenth of the frame lets writers drain before they turn readers without idling them long.
  if (!to_seconds(value_or_default(profile, "rails-guard", format_number(schedule.frame_seconds / 10)),
                     &schedule.guard_seconds))
    return error(profile, "rails-guard", "seconds, a decimal number");

  auto valid = rails::validate(schedule);
  if (!valid.ok()) {
    const std::string& key = valid.error().key;
    return invalid(profile, key, valid.error().message);
  }
  // The rails mgr module cannot follow a faster schedule; the figure is the module's own
  // (src/mgr/rails/limits.py, compiled in by CMakeLists.txt).
  if (schedule.frame_seconds < ERAILS_MIN_RAILS_FRAME_SECONDS)
    return error(profile, "rails-frame",
                 "at least " + format_number(ERAILS_MIN_RAILS_FRAME_SECONDS) +
                     " seconds, the time the rails mgr module needs to carry a switch to the OSDs");
  return Ok{};
}

}  // namespace

const char* technique_name(Technique technique) {
  switch (technique) {
    case Technique::kReedSolVan: return "reed_sol_van";
    case Technique::kCauchyOrig: return "cauchy_orig";
    case Technique::kCauchyGood: return "cauchy_good";
  }
  return "unknown";
}

Expected<Profile> parse_profile(ProfileMap& profile) {
  Profile p;
  if (auto s = check_known_keys(profile); !s.ok()) return s.error();
  if (auto s = parse_code(profile, &p); !s.ok()) return s.error();
  if (auto s = parse_crush(profile, &p); !s.ok()) return s.error();
  if (auto s = parse_rails(profile, &p); !s.ok()) return s.error();
  return p;
}

}  // namespace erails
