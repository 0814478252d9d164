#include "sim/read_blocked.h"

#include <algorithm>
#include <cmath>

namespace erails::sim {

void ReadBlockedTime::flush(RunResult& result) {
  if (to_ <= from_) return;
  result.read_gc_blocked += to_ - from_;
  for (double t = from_; t < to_;) {
    const double edge = (std::floor(t / result.interval) + 1) * result.interval;
    const double until = std::min(edge, to_);
    timeline_row(result, t).read_gc_blocked += until - t;
    t = until;
  }
  from_ = to_;
}

}  // namespace erails::sim
