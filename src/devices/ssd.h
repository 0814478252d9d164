// SSD model: reads are fast and steady; writes consume free flash, and when free flash runs low
// the device blocks every queued request while garbage collection relocates still-valid data.
//
// Why writes over a wide range hurt (thesis §4.3, fig. 4.3): GC victims hold a fraction u of
// still-valid data that must be copied before an erase. Random writes spread over a footprint F
// (bytes of the logical space that random writes touched) leave u ~ F / (F + spare); writing a
// narrow range (100 MB in fig. 4.3a) leaves victims almost empty and GC nearly free, writing
// 200 GB (fig. 4.3b) makes each reclaimed byte cost u/(1-u) copies. Sequential rewrites of a
// region invalidate whole blocks, so they take the region out of the footprint.
//
// Timing: `parallelism` internal units serve requests in submission order; a request of b bytes
// holds a unit for latency + b * parallelism / bandwidth, so a saturated device delivers
// `bandwidth`. A GC event waits for in-flight requests, then blocks all units for a duration drawn
// uniformly from [gc_event_min, gc_event_max] (events up to ~100 ms, §4.4.1), reclaiming as many
// bytes as that time buys at the current u. Three triggers:
//  - foreground: a write finds free flash below gc_low_free_bytes;
//  - background: free flash below gc_target_free_bytes while the device is busy (e.g. reading)
//    causes one event per bg_gc_interval: the leftover work Rails sees right after a switch (§4.4.4);
//  - idle: while the device has nothing queued, GC reclaims toward the target without blocking
//    anyone (why "idle before switch" helps).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "devices/device.h"
#include "devices/drive_b_defaults.h"
#include "devices/rng.h"

namespace erails::devices {

// Defaults are drive B's (src/devices/models/intel510_drive_b.conf, where each value's source is
// given), generated from that file by the build.
struct SsdParams {
  std::string name = "ssd";
  double capacity_bytes = drive_b::capacity_bytes;
  double spare_bytes = drive_b::spare_bytes;                // physical minus logical capacity
  int parallelism = drive_b::parallelism;                   // 1..64
  double read_latency = drive_b::read_latency;              // seconds per request, on top of transfer
  double read_bandwidth = drive_b::read_bandwidth;          // bytes/s
  double write_latency = drive_b::write_latency;
  double write_bandwidth = drive_b::write_bandwidth;
  double gc_copy_bandwidth = drive_b::gc_copy_bandwidth;    // bytes/s of valid data relocated during GC
  double gc_erase_bandwidth = drive_b::gc_erase_bandwidth;  // bytes/s of flash erased (cost even when u = 0)
  double gc_low_free_bytes = drive_b::gc_low_free_bytes;
  double gc_target_free_bytes = drive_b::gc_target_free_bytes;
  double gc_event_min = drive_b::gc_event_min;              // seconds
  double gc_event_max = drive_b::gc_event_max;
  double bg_gc_interval = drive_b::bg_gc_interval;          // seconds between background events; 0 disables them
  double region_bytes = drive_b::region_bytes;              // granularity of the random-write footprint
  double initial_footprint = drive_b::initial_footprint;    // fraction of capacity already randomly written (0..1)
  // Multiplies every duration the model returns (service, GC events, the background-GC interval,
  // idle reclaim): the same drive, time_scale times slower. Lets an emulated device stay slower
  // than the CPU noise of a small test machine; 1 is the calibrated drive.
  double time_scale = 1;
  uint64_t seed = 1;
};

// An error names the field as its key, and its message the field and the accepted range.
Status validate(const SsdParams& p);

class SsdModel final : public Device {
 public:
  // Precondition: validate(p).ok().
  explicit SsdModel(const SsdParams& p);

  IoResult submit(double now, const IoRequest& req) override;
  double drained_at() const override;
  const DeviceStats& stats() const override { return stats_; }
  std::string describe() const override { return "ssd " + p_.name; }

  double free_bytes() const { return free_; }
  // Fraction of valid data in GC victims right now.
  double victim_valid_fraction() const;

 private:
  // The model on its own clock (the caller's time divided by time_scale).
  IoResult serve(double now, const IoRequest& req);
  double model_drained_at() const;
  double seconds_per_reclaimed_byte() const;
  // idle_since: model_drained_at() as this request arrives.
  void reclaim_while_idle(double now, double idle_since);
  // Blocks all units from the later of `at` and the in-flight work; returns when the block ends.
  double gc_event(double at);
  void note_write_footprint(const IoRequest& req);

  SsdParams p_;
  Rng rng_;
  std::vector<double> unit_free_;     // when each internal unit is next free
  std::vector<uint8_t> random_region_;
  uint64_t random_regions_ = 0;
  uint64_t next_sequential_offset_ = UINT64_MAX;
  double free_;
  double last_gc_end_ = -1e300;
  double gc_chain_start_ = -1e300;  // start of the current run of back-to-back GC events
  DeviceStats stats_;
};

}  // namespace erails::devices
