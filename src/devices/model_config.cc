#include "devices/model_config.h"

#include <algorithm>
#include <set>

namespace erails::devices {

namespace {

constexpr double kBig = 1e18;
constexpr int kMaxBaseLinks = 8;
// time_scale: far beyond any use either way, so that a typo (1e9 for 1e1) is refused.
constexpr double kMinTimeScale = 1e-6;
constexpr double kMaxTimeScale = 1e6;

KeyTable ssd_keys(SsdParams& p) {
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

KeyTable hdd_keys(HddParams& p) {
  return {
      {"capacity_bytes", real(&p.capacity_bytes, 1e6, kBig, "1e6..1e18")},
      {"bandwidth", real(&p.bandwidth, 1, kBig, "1..1e18 bytes/s")},
      {"avg_seek", real(&p.avg_seek, 0, 1, "0..1 seconds")},
      {"rpm", real(&p.rpm, 1, 1e6, "1..1e6")},
      {"ncq_depth", integer(&p.ncq_depth, 1, 256)},
      {"sequential_window", real(&p.sequential_window, 0, kBig, "0..1e18 bytes")},
  };
}

// An [ssd] or [hdd] section's keys: the model's parameters and the base it derives from.
KeyTable device_keys(DeviceModel& d) {
  KeyTable t = d.is_ssd ? ssd_keys(d.ssd) : hdd_keys(d.hdd);
  t["base"] = text(&d.base);
  t["time_scale"] = real(d.is_ssd ? &d.ssd.time_scale : &d.hdd.time_scale, kMinTimeScale, kMaxTimeScale,
                         "1e-6..1e6 (finite, > 0; multiplies every modeled duration)");
  return t;
}

std::string list_or_none(const std::vector<std::string>& names) {
  if (names.empty()) return " (there is none)";
  std::string out;
  for (const auto& n : names) out += (out.empty() ? ": " : ", ") + n;
  return out;
}

}  // namespace

Expected<KeyTable> ModelSections::open(bool is_ssd, const std::string& name, const Place& at) {
  auto [it, fresh] = models_.try_emplace(name);
  if (!fresh) return Error{"section", at.section_prefix() + "device '" + name + "' defined twice"};
  DeviceModel& d = it->second;
  d.is_ssd = is_ssd;
  d.ssd.name = d.hdd.name = name;
  KeyTable keys = device_keys(d);
  for (auto& entry : keys) {
    entry.second = [this, name, set = std::move(entry.second)](const Place& line, std::string_view value) {
      auto e = set(line, value);
      if (!e) lines_[name].push_back({line, std::string(value)});
      return e;
    };
  }
  return keys;
}

Status ModelSections::resolve_bases() {
  std::set<std::string> resolved;
  for (const auto& entry : models_)
    if (auto s = resolve(entry.first, {}, resolved); !s.ok()) return s;
  return Ok{};
}

// `chain`: the devices whose bases led here, outermost first.
Status ModelSections::resolve(const std::string& name, std::vector<std::string> chain,
                              std::set<std::string>& resolved) {
  DeviceModel& d = models_.at(name);
  if (d.base.empty() || resolved.count(name)) return Ok{};
  const Place& at = base_line(name);
  const char* kind = d.is_ssd ? "ssd" : "hdd";
  auto accepted = [&] {
    return "; accepted: the name of an [" + std::string(kind) + "] section that does not derive from '" + name + "'" +
           list_or_none(base_candidates(name));
  };
  const auto base = models_.find(d.base);
  if (base == models_.end() || base->second.is_ssd != d.is_ssd)
    return Error{"base", at.prefix() + "'" + d.base + "' is not a defined [" + kind + "] section" + accepted()};
  chain.push_back(name);
  if (auto loop = std::find(chain.begin(), chain.end(), d.base); loop != chain.end()) {
    std::string cycle;
    for (auto it = loop; it != chain.end(); ++it) cycle += *it + " -> ";
    return Error{"base", at.prefix() + "'" + d.base + "' makes a cycle (" + cycle + d.base + ")" + accepted()};
  }
  if (static_cast<int>(chain.size()) > kMaxBaseLinks)
    return Error{"base", at.prefix() + "bases chained deeper than " + std::to_string(kMaxBaseLinks) +
                             "; accepted: at most " + std::to_string(kMaxBaseLinks) + " links"};
  if (auto s = resolve(d.base, chain, resolved); !s.ok()) return s;
  DeviceModel derived = base->second;
  derived.ssd.name = derived.hdd.name = name;
  KeyTable keys = device_keys(derived);
  for (const auto& [line, value] : lines_[name]) keys.at(line.key)(line, value);  // checked when read
  d = derived;
  resolved.insert(name);
  return Ok{};
}

const Place& ModelSections::base_line(const std::string& device) {
  const auto& lines = lines_[device];
  return std::find_if(lines.rbegin(), lines.rend(), [](const auto& l) { return l.first.key == "base"; })->first;
}

// Devices of the same kind as `device` whose chain of bases never reaches it.
std::vector<std::string> ModelSections::base_candidates(const std::string& device) const {
  std::vector<std::string> out;
  const bool ssd = models_.at(device).is_ssd;
  for (const auto& [name, d] : models_) {
    if (d.is_ssd != ssd) continue;
    std::string at = name;
    for (int hop = 0; hop <= kMaxBaseLinks && !at.empty() && at != device; ++hop) {
      const auto next = models_.find(at);
      at = next == models_.end() ? std::string() : next->second.base;
    }
    if (at != device) out.push_back(name);
  }
  return out;
}

Status check_models(const DeviceModels& models, const std::string& origin) {
  for (const auto& [name, d] : models) {
    const Status valid = d.is_ssd ? validate(d.ssd) : validate(d.hdd);
    if (!valid.ok())
      return Error{"device", origin + ": [" + std::string(d.is_ssd ? "ssd " : "hdd ") + name + "] " +
                                 valid.error().message};
  }
  return Ok{};
}

Expected<DeviceModels> parse_models(std::string_view text, const std::string& origin, const IncludeLoader& loader) {
  ModelSections sections;
  auto open = [&](const std::string& type, const std::string& name, const Place& at) -> Expected<KeyTable> {
    if (type != "ssd" && type != "hdd")
      return Error{"section", at.section_prefix() + "unknown section; accepted: ssd NAME, hdd NAME"};
    if (!valid_name(name))
      return Error{"section", at.section_prefix() + "needs a name of 1..64 letters, digits, '_', '-', '.'"};
    return sections.open(type == "ssd", name, at);
  };
  if (auto e = read_config(text, origin, loader, open)) return *e;
  if (auto s = sections.resolve_bases(); !s.ok()) return s.error();
  if (auto s = check_models(sections.models(), origin); !s.ok()) return s.error();
  return std::move(sections.models());
}

Expected<DeviceModels> load_models(const std::string& path) {
  auto file = read_config_file(path);
  if (!file.ok()) return file.error();
  return parse_models(file.value().first, path, file_include_loader());
}

}  // namespace erails::devices
