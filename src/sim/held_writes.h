// One OSD's writes between their acknowledgement and its data device, under policies rails and
// erails: a shard is journaled and acknowledged, held until its color may apply writes, then
// applied to the data device, a few at a time. The simulation does the I/O and the timing; this
// keeps the books:
//   - held bytes (journaling, journaled or being applied) stay within the OSD's budget: a shard
//     that does not fit waits, and so does every shard after it (first come, first journaled),
//     until applied writes make room; that is how clients are throttled to the slowest device;
//   - held writes are applied oldest first, and one taken out but refused by the device's
//     scheduler (its turn came after the phase ended) is the first to go next time.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>

namespace erails::sim {

// A journaled shard write, held until applied.
struct HeldWrite {
  uint64_t object;
  uint32_t version;
  uint32_t bytes;
  int shard;
  uint32_t stream;  // whose write it is: the scheduler charges the apply to that stream
};

// A shard write waiting for room in the budget before it may be journaled.
struct WaitingShard {
  uint64_t request;
  int shard;
  uint32_t bytes;
};

class HeldWrites {
 public:
  explicit HeldWrites(double budget) : budget_(budget) {}

  // Reserves the shard's bytes and returns true (journal it now) if they fit and no shard waits;
  // else queues it and returns false.
  bool admit(const WaitingShard& shard);
  // The first waiting shard, its bytes reserved, if they now fit.
  std::optional<WaitingShard> admit_waiting();

  // A journaled shard, now held.
  void hold(const HeldWrite& write) { held_.push_back(write); }
  // The oldest held write, counted as applying, if fewer than `depth` are. The caller has checked
  // that its color may apply writes now.
  std::optional<HeldWrite> start_apply(int depth);
  // A write start_apply returned that may not be applied after all: no longer applying, and the
  // first to apply next time.
  void put_back(const HeldWrite& write);
  // A write start_apply returned is on the data device: its bytes leave the budget.
  void applied(uint32_t bytes);
  // Reserved bytes of a shard that will never be held (journaled as the OSD failed).
  void release(uint32_t bytes) { held_bytes_ -= bytes; }

  // The OSD failed: its held writes that are not being applied are gone. Returns how many, and
  // their bytes, which leave the budget.
  std::pair<uint64_t, double> drop_held();
  // The OSD failed: the shards waiting for the budget never will be journaled. Returns them, in
  // order, and forgets them.
  std::deque<WaitingShard> drop_waiting();

  double held_bytes() const { return held_bytes_; }
  // Held writes not yet being applied.
  size_t held() const { return held_.size(); }
  int applying() const { return applying_; }
  size_t waiting() const { return waiting_.size(); }

 private:
  bool fits(uint32_t bytes) const { return held_bytes_ + bytes <= budget_; }

  const double budget_;
  double held_bytes_ = 0;
  std::deque<HeldWrite> held_;
  std::deque<WaitingShard> waiting_;
  int applying_ = 0;
};

}  // namespace erails::sim
