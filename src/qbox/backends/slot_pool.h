#pragma once
// The request slots of a real backend. Each slot owns what one request in flight needs (an aligned
// buffer, a librados completion), allocated at open, so submit and collect allocate nothing.

#include <optional>
#include <vector>

#include "common/error.h"

namespace erails::qbox {

class SlotPool {
 public:
  // Error naming queue_depth unless `depth` is 1..1024.
  static std::optional<Error> check_depth(unsigned depth) {
    if (depth >= 1 && depth <= 1024) return std::nullopt;
    return Error{"queue_depth", "must be in 1..1024"};
  }

  // Slot 0 is handed out first.
  explicit SlotPool(unsigned depth) : depth_(depth) {
    for (unsigned slot = depth; slot > 0; --slot) free_.push_back(slot - 1);
  }

  // A slot for a new request; the caller releases it again if the request does not start.
  Expected<unsigned> take() {
    if (free_.empty()) return Error{"queue_depth", "all slots are in flight"};
    const unsigned slot = free_.back();
    free_.pop_back();
    return slot;
  }
  void release(unsigned slot) { free_.push_back(slot); }

  unsigned depth() const { return depth_; }
  bool idle() const { return free_.size() == depth_; }

 private:
  unsigned depth_;
  std::vector<unsigned> free_;
};

}  // namespace erails::qbox
