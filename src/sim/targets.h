// Whether streams got the throughput they were promised (thesis §6.2, figs. 6.8-6.9: the share of
// time the targets are met). A stream with `target` > 0 is judged over consecutive windows of
// `target_window` seconds, aligned to multiples of it, that lie wholly between the stream's start
// and min(stop, duration): a window meets the target when completed requests / window >= target.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config.h"
#include "sim/simulation.h"

namespace erails::sim {

struct TargetOutcome {
  std::string stream;
  double target = 0;        // requests/s
  double window = 0;        // seconds
  uint64_t windows = 0;     // judged
  uint64_t met = 0;
  double worst = 0;         // lowest windowed throughput, requests/s
  double fraction() const { return windows == 0 ? 0 : static_cast<double>(met) / windows; }
};

// One entry per stream with a target, in config order. Precondition: r came from run_simulation(c).
std::vector<TargetOutcome> judge_targets(const SimConfig& c, const RunResult& r);

}  // namespace erails::sim
