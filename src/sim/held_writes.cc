#include "sim/held_writes.h"

namespace erails::sim {

bool HeldWrites::admit(const WaitingShard& shard) {
  if (!waiting_.empty() || !fits(shard.bytes)) {
    waiting_.push_back(shard);
    return false;
  }
  held_bytes_ += shard.bytes;
  return true;
}

std::optional<WaitingShard> HeldWrites::admit_waiting() {
  if (waiting_.empty() || !fits(waiting_.front().bytes)) return std::nullopt;
  const WaitingShard shard = waiting_.front();
  waiting_.pop_front();
  held_bytes_ += shard.bytes;
  return shard;
}

std::optional<HeldWrite> HeldWrites::start_apply(int depth) {
  if (applying_ >= depth || held_.empty()) return std::nullopt;
  const HeldWrite write = held_.front();
  held_.pop_front();
  applying_++;
  return write;
}

void HeldWrites::put_back(const HeldWrite& write) {
  held_.push_front(write);
  applying_--;
}

void HeldWrites::applied(uint32_t bytes) {
  applying_--;
  held_bytes_ -= bytes;
}

std::pair<uint64_t, double> HeldWrites::drop_held() {
  double bytes = 0;
  for (const HeldWrite& w : held_) bytes += w.bytes;
  const uint64_t writes = held_.size();
  held_bytes_ -= bytes;
  held_.clear();
  return {writes, bytes};
}

std::deque<WaitingShard> HeldWrites::drop_waiting() {
  std::deque<WaitingShard> dropped;
  dropped.swap(waiting_);
  return dropped;
}

}  // namespace erails::sim
