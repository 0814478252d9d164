// Seconds during which at least one read waited on garbage collection. Reads waiting on the same GC
// event overlap, so the waits are merged into their union before they are credited to the run and,
// split at interval edges, to the timeline rows they fall in.
#pragma once

#include "sim/run_result.h"

namespace erails::sim {

class ReadBlockedTime {
 public:
  // A read waited on GC from `from` to `to`. Precondition: `from` never decreases from one call to
  // the next (waits are noted as reads are submitted, in time order).
  void add(double from, double to, RunResult& result) {
    if (from > to_) {
      flush(result);
      from_ = from;
    }
    if (to > to_) to_ = to;
  }

  // Credits the waits not yet credited; call once the last read has been submitted.
  void flush(RunResult& result);

 private:
  double from_ = 0, to_ = 0;  // the union's current interval, not yet credited
};

}  // namespace erails::sim
