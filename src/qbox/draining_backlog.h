#pragma once
// Work that arrives in lumps and drains at a rate: the device time of the writes submitted and not
// yet done, at the device's pace (OsdShares, `qbox status`), or not yet covered by what the readers
// about leave the writes (ShardQueue, "The writes' backlog").

#include <algorithm>
#include <limits>

#include "qbox/seconds.h"

namespace erails::qbox {

class DrainingBacklog {
 public:
  explicit DrainingBacklog(double rate = 1.0) : rate_(rate) {}

  Seconds at(Seconds now) const { return std::max<Seconds>(0, amount_ - rate_ * (now - since_)); }

  void add(Seconds amount, Seconds now) {
    amount_ = at(now) + amount;
    since_ = now;
  }
  // Only a change re-bases the backlog: a shard that waited until falls_to() must find it there,
  // not a rounding error short of it.
  void set_rate(double rate, Seconds now) {
    if (rate == rate_) return;
    amount_ = at(now);
    since_ = now;
    rate_ = rate;
  }
  double rate() const { return rate_; }
  // When the backlog falls to `limit`: an absolute time, infinity if it does not drain.
  Seconds falls_to(Seconds limit) const {
    if (amount_ <= limit) return since_;
    if (rate_ <= 0) return std::numeric_limits<Seconds>::infinity();
    return since_ + (amount_ - limit) / rate_;
  }

 private:
  Seconds amount_ = 0;  // at since_
  Seconds since_ = 0;
  double rate_;
};

}  // namespace erails::qbox
