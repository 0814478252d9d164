// The simulated OSDs: each a data device, a journal device (policies rails and erails), the writes
// it holds, and, with a QoS scheduler, the queue in front of its data device. OSD i has color
// i / osds_per_color (sim/placement.h).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "devices/device.h"
#include "devices/model_config.h"
#include "qbox/scheduler.h"
#include "sim/config.h"
#include "sim/held_writes.h"

namespace erails::sim {

struct Osd {
  Osd(int color, double hold_budget) : color(color), held(hold_budget) {}

  int color;
  bool slow = false;  // a [slow] section drew this OSD: its data device is slowed down
  std::unique_ptr<devices::Device> data;
  std::unique_ptr<devices::Device> journal;  // null without a journal_device
  uint64_t journal_head = 0;                 // the journal is written sequentially
  HeldWrites held;
  bool down = false;
  std::unique_ptr<qbox::Scheduler> scheduler;  // null with scheduler none: submit in arrival order
  double retry_at = -1;                        // a kDispatch event is pending for this time
  double writes_until = 0;                     // when the last write submitted to the data device completes
  double gc_seen_until = 0;                    // latest end of a GC wait its data device reported
  int reads_queued_reading = 0;  // reads in the scheduler that were queued in the OSD's read phase
  bool applies_deferred = false;  // held writes wait for those reads to be dispatched
};

// The model `d` with every latency and transfer time stretched by `slowdown` (>= 1; 1 leaves it as
// configured). `seed` seeds an SSD's garbage collection draws.
std::unique_ptr<devices::Device> make_device(const devices::DeviceModel& d, uint64_t seed, double slowdown);

// The cluster's (k+m) * osds_per_color OSDs, each device seeded from config.seed and its index, and
// the data devices of the [slow] sections' OSDs (named, or fractions drawn with config.seed) slowed down.
// Precondition: config validated.
std::vector<Osd> make_osds(const SimConfig& config);

}  // namespace erails::sim
