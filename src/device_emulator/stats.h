// What the emulator counts, and the JSON it writes for status.sh and the benchmarks. The JSON is
// the stats file's one definition (tests/emulator_harness.cc and vstart-configs/status.sh read it):
//   {"pid", "model", "kind", "time_scale", "slowdown", "model_on", "device", "uptime_seconds",
//    "requests": {"read", "write", "flush", "sync_read", "sync_write", "sync_flush", "not_accepted"},
//    "bytes": {"read", "write"},
//    "gc_events", "gc_blocked_seconds", "gc_wait_seconds",
//    "held_seconds",      completions held past their real completion, summed over requests
//    "held_max_seconds",
//    "errors",            calls on the data device that failed, or completions of unknown requests
//    "latency_us": {"upper_bounds": [...], "modeled": [...], "real": [...]}}
// Latency buckets are powers of two microseconds; the last holds everything above.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "devices/device.h"

namespace erails::device_emulator {

inline constexpr int kLatencyBuckets = 26;  // 1 us .. 2^24 us (16.8 s), then one overflow bucket

struct LatencyHistogram {
  std::array<uint64_t, kLatencyBuckets> counts{};
  void add(double seconds);
};

struct EmulatorStats {
  uint64_t reads = 0, writes = 0, flushes = 0;
  uint64_t sync_reads = 0, sync_writes = 0, sync_flushes = 0;
  uint64_t not_accepted = 0;
  uint64_t read_bytes = 0, write_bytes = 0;
  double gc_wait_seconds = 0;
  double held_seconds = 0, held_max_seconds = 0;
  uint64_t errors = 0;
  LatencyHistogram modeled, real;
};

struct StatsHeader {
  long pid = 0;
  std::string model;  // Device::describe()
  std::string kind;   // "ssd" or "hdd"
  double time_scale = 1;
  double slowdown = 1;   // the control file's, now (config.h)
  bool model_on = true;  // likewise
  std::string device;
  double uptime_seconds = 0;
};

std::string to_json(const StatsHeader& header, const EmulatorStats& s, const devices::DeviceStats& model);

}  // namespace erails::device_emulator
