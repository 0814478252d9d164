// Simulator configuration: the structure, and the parser of its text format.
//
// Format: the config format of devices/config_file.h (comments, includes, sections, key = value),
// used by src/sim/examples and bench/sim, with these sections:
//   [sim]        seed, duration, policy, scheduler, timeline_interval, drain_limit, read_around,
//                fast_read
//   [cluster]    k, m, osds_per_color, pgs, data_device, journal_device, hold_budget, flush_depth,
//                frame, readers, epoch, guard, dispatch_depth, read_cost, write_cost, cost_source
//   [ssd NAME], [hdd NAME]  device models, as in devices/model_config.h (src/devices/models)
//   [failure NAME] osd, at  (the OSD with that index stops for good at that time)
//   [slow NAME]  fraction or osd, factor  (that fraction of OSDs, drawn with the seed, or the OSD
//                with that index, have data devices `factor` times slower for the whole run: "The
//                Tail at Store" slowdowns)
//   [stream NAME] kind, read_fraction, pattern, size, outstanding, rate, objects, start, stop,
//                max_requests, trace, trace_speed, utilization (qbox, fifo), reservation, weight,
//                limit (mclock), target, target_window
// Sizes are bytes; times are seconds. Every error names the file, line, section and key and says
// what is accepted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "devices/config_file.h"
#include "devices/model_config.h"
#include "qbox/scheduler.h"

namespace erails::sim {

enum class Policy { kNone, kRails, kErails };
// Where qbox's price e comes from: the configured profile (read_cost/write_cost), or QBox's own
// black-box cost estimator per data device (cost_estimator.h), fed with that device's dispatches
// and completions by class; the profile prices requests until the estimator has seen their class.
enum class CostSource { kProfile, kEstimator };
enum class StreamKind { kClosed, kOpen, kTrace };

struct StreamConfig {
  std::string name;
  StreamKind kind = StreamKind::kClosed;
  double read_fraction = 1.0;   // probability a generated request is a read
  bool sequential = false;      // objects in increasing order (else uniform random)
  uint32_t size = 262144;       // bytes per request (traces: per-record size)
  int outstanding = 1;          // closed loop: requests in flight
  double rate = 0;              // open loop: Poisson arrivals per second
  uint64_t objects = 1000;      // objects this stream addresses
  double start = 0, stop = 1e300;
  uint64_t max_requests = 0;    // 0 = no limit
  std::string trace;            // MSR Cambridge CSV path (kind = trace), resolved against the config
  double trace_speed = 1.0;     // > 1 replays faster
  double utilization = 0;       // qbox, fifo: share of every data device it uses, (0, 1]
  double reservation = 0;       // mclock: requests/s per data device; 0 = none
  double weight = 1;            // mclock: share of the spare capacity, > 0
  double limit = 0;             // mclock: requests/s cap per data device; 0 = none
  double target = 0;            // completed requests/s the stream should get; 0 = no target
  double target_window = 0;     // seconds over which `target` is judged; 0 = timeline_interval
};

struct FailureConfig {
  std::string name;
  int osd = -1;      // index 0 .. (k+m)*osds_per_color - 1; OSD i has color i / osds_per_color
  double at = 0;     // seconds
};

struct SlowConfig {
  std::string name;
  double fraction = 0;  // 0..1 of all OSDs
  int osd = -1;         // or this OSD (then fraction is 0)
  double factor = 2;    // >= 1: latencies and transfer times multiplied by this
};

struct SimConfig {
  uint64_t seed = 1;
  double duration = 10;          // seconds during which clients issue requests
  double drain_limit = 600;      // seconds after `duration` allowed to flush held writes
  double timeline_interval = 1;
  Policy policy = Policy::kNone;
  // Who orders the requests waiting for one data device (QoS, thesis ch. 3 and §6.2), on top of
  // the policy: none (nothing here) submits in arrival order; qbox, fifo and mclock queue per data
  // device in the QBox library's own scheduler (qbox/scheduler.h, linked), and keep at most
  // dispatch_depth requests on the device. qbox's e is the profiled device time of the request
  // (read_cost/write_cost); mclock's rates are requests per second.
  std::optional<qbox::SchedulerKind> scheduler;
  // Reads around slow OSDs (doc/rails.rst, "Reading around a slow OSD"), as the rails module marks
  // them once detected: shards of a color holding a [slow] OSD are read only when k others are not
  // there. The marks are known from the start: the steady state after detection.
  bool read_around = false;
  // Ceph's pool option fast_read: every read fetches all available shards and completes when k
  // have arrived. Policy none only (the others choose the shards a read may fetch).
  bool fast_read = false;

  int k = 1, m = 1;
  int osds_per_color = 1;
  int pgs = 64;
  std::string data_device;
  std::string journal_device;    // empty: writes are acknowledged from the data device (policy none)
  double hold_budget = 8e9;      // bytes per OSD that may be held (journaled, not yet applied)
  int flush_depth = 4;           // device writes in flight per OSD while applying held writes
  double frame = 10, epoch = 0, guard = 0;
  int readers = 0;               // 0: k for erails, N-1 for rails (the thesis' settings)
  int dispatch_depth = 4;        // requests a scheduler keeps outstanding on one data device
  double read_cost = 0;          // qbox: profiled device seconds per 4 KiB read (required for qbox)
  double write_cost = 0;         // qbox: profiled device seconds per 4 KiB written
  CostSource cost_source = CostSource::kProfile;

  devices::DeviceModels devices;
  std::vector<StreamConfig> streams;
  std::vector<FailureConfig> failures;
  std::vector<SlowConfig> slow;
};

// Reads the file at `path` (and what it includes). Returns the resolved config or the first error.
Expected<SimConfig> load_config(const std::string& path);

// Parses `text` (reported as `origin` in errors). `loader` may be empty: includes are then errors.
Expected<SimConfig> parse_config(std::string_view text, const std::string& origin,
                                 const devices::IncludeLoader& loader);

const char* policy_name(Policy p);
const char* scheduler_name(const std::optional<qbox::SchedulerKind>& s);

}  // namespace erails::sim
