#include "sim/targets.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace erails::sim {

std::vector<TargetOutcome> judge_targets(const SimConfig& c, const RunResult& r) {
  std::vector<TargetOutcome> out;
  for (size_t s = 0; s < c.streams.size(); ++s) {
    const StreamConfig& sc = c.streams[s];
    if (sc.target <= 0) continue;
    TargetOutcome o{sc.name, sc.target, sc.target_window};
    const auto rows = static_cast<size_t>(std::llround(sc.target_window / c.timeline_interval));
    const std::vector<uint64_t>& counts = r.stream_timeline[s];
    const double end = std::min(sc.stop, c.duration);
    o.worst = std::numeric_limits<double>::infinity();
    for (auto j = static_cast<size_t>(std::ceil(sc.start / sc.target_window - 1e-9));
         (j + 1) * sc.target_window <= end + 1e-9; ++j) {
      uint64_t done = 0;
      for (size_t i = j * rows; i < (j + 1) * rows && i < counts.size(); ++i) done += counts[i];
      const double rate = done / sc.target_window;
      o.windows++;
      if (rate >= sc.target) o.met++;
      o.worst = std::min(o.worst, rate);
    }
    if (o.windows == 0) o.worst = 0;
    out.push_back(o);
  }
  return out;
}

}  // namespace erails::sim
