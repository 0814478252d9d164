#include "device_emulator/stats.h"

#include <cmath>
#include <cstdio>

#include "common/json_text.h"

namespace erails::device_emulator {

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", std::isfinite(v) ? v : 0.0);
  return buf;
}

template <class T>
std::string array(const T& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

}  // namespace

void LatencyHistogram::add(double seconds) {
  const double us = seconds * 1e6;
  int bucket = 0;
  while (bucket < kLatencyBuckets - 1 && us > std::ldexp(1.0, bucket)) ++bucket;
  counts[bucket]++;
}

std::string to_json(const StatsHeader& h, const EmulatorStats& s, const devices::DeviceStats& m) {
  std::array<uint64_t, kLatencyBuckets - 1> bounds{};
  for (int i = 0; i < kLatencyBuckets - 1; ++i) bounds[i] = uint64_t{1} << i;
  std::string j = "{\n";
  j += "  \"pid\": " + std::to_string(h.pid) + ",\n";
  j += "  \"model\": " + json_string(h.model) + ",\n";
  j += "  \"kind\": " + json_string(h.kind) + ",\n";
  j += "  \"time_scale\": " + number(h.time_scale) + ",\n";
  j += "  \"slowdown\": " + number(h.slowdown) + ",\n";
  j += std::string("  \"model_on\": ") + (h.model_on ? "true" : "false") + ",\n";
  j += "  \"device\": " + json_string(h.device) + ",\n";
  j += "  \"uptime_seconds\": " + number(h.uptime_seconds) + ",\n";
  j += "  \"requests\": {\"read\": " + std::to_string(s.reads) + ", \"write\": " + std::to_string(s.writes) +
       ", \"flush\": " + std::to_string(s.flushes) + ", \"sync_read\": " + std::to_string(s.sync_reads) +
       ", \"sync_write\": " + std::to_string(s.sync_writes) + ", \"sync_flush\": " + std::to_string(s.sync_flushes) +
       ", \"not_accepted\": " + std::to_string(s.not_accepted) + "},\n";
  j += "  \"bytes\": {\"read\": " + std::to_string(s.read_bytes) + ", \"write\": " + std::to_string(s.write_bytes) +
       "},\n";
  j += "  \"gc_events\": " + std::to_string(m.gc_events) + ",\n";
  j += "  \"gc_blocked_seconds\": " + number(m.gc_blocked_seconds) + ",\n";
  j += "  \"gc_wait_seconds\": " + number(s.gc_wait_seconds) + ",\n";
  j += "  \"held_seconds\": " + number(s.held_seconds) + ",\n";
  j += "  \"held_max_seconds\": " + number(s.held_max_seconds) + ",\n";
  j += "  \"errors\": " + std::to_string(s.errors) + ",\n";
  j += "  \"latency_us\": {\"upper_bounds\": " + array(bounds) + ",\n";
  j += "                 \"modeled\": " + array(s.modeled.counts) + ",\n";
  j += "                 \"real\": " + array(s.real.counts) + "}\n";
  return j + "}\n";
}

}  // namespace erails::device_emulator
