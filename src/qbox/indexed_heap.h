#pragma once
// Binary min-heap of small integer slots keyed by a double, with each slot's position kept so a
// slot's key can be changed or the slot removed in O(log n). Ties break on the slot number, which
// makes every schedule deterministic.
//
// Slots are dense indices owned by the caller (client table positions). Memory grows only when a
// slot number is seen for the first time, so steady-state operations do not allocate.

#include <cstdint>
#include <limits>
#include <vector>

namespace erails::qbox {

class IndexedHeap {
 public:
  using Slot = std::uint32_t;
  static constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();

  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  bool contains(Slot slot) const { return slot < position_.size() && position_[slot] != kAbsent; }

  // Preconditions for top/top_key/pop: !empty().
  Slot top() const { return entries_[0].slot; }
  double top_key() const { return entries_[0].key; }

  // Precondition: !contains(slot).
  void push(Slot slot, double key);
  // Precondition: contains(slot).
  void update(Slot slot, double key);
  // Precondition: contains(slot).
  void erase(Slot slot);
  void pop() { erase(top()); }

 private:
  struct Entry {
    double key;
    Slot slot;
  };
  static bool before(const Entry& a, const Entry& b) {
    return a.key < b.key || (a.key == b.key && a.slot < b.slot);
  }
  void place(std::size_t index, const Entry& entry) {
    entries_[index] = entry;
    position_[entry.slot] = static_cast<std::uint32_t>(index);
  }
  void sift_up(std::size_t index);
  void sift_down(std::size_t index);

  std::vector<Entry> entries_;
  std::vector<std::uint32_t> position_;
};

inline void IndexedHeap::push(Slot slot, double key) {
  if (slot >= position_.size()) position_.resize(slot + 1, kAbsent);
  entries_.push_back(Entry{key, slot});
  position_[slot] = static_cast<std::uint32_t>(entries_.size() - 1);
  sift_up(entries_.size() - 1);
}

inline void IndexedHeap::update(Slot slot, double key) {
  const std::size_t index = position_[slot];
  const double old_key = entries_[index].key;
  entries_[index].key = key;
  if (key < old_key) {
    sift_up(index);
  } else {
    sift_down(index);
  }
}

inline void IndexedHeap::erase(Slot slot) {
  const std::size_t index = position_[slot];
  position_[slot] = kAbsent;
  const Entry last = entries_.back();
  entries_.pop_back();
  if (index == entries_.size()) return;
  place(index, last);
  sift_up(index);
  sift_down(position_[last.slot]);
}

inline void IndexedHeap::sift_up(std::size_t index) {
  const Entry moving = entries_[index];
  while (index > 0) {
    const std::size_t parent = (index - 1) / 2;
    if (!before(moving, entries_[parent])) break;
    place(index, entries_[parent]);
    index = parent;
  }
  place(index, moving);
}

inline void IndexedHeap::sift_down(std::size_t index) {
  const Entry moving = entries_[index];
  const std::size_t n = entries_.size();
  while (true) {
    std::size_t child = 2 * index + 1;
    if (child >= n) break;
    if (child + 1 < n && before(entries_[child + 1], entries_[child])) ++child;
    if (!before(entries_[child], moving)) break;
    place(index, entries_[child]);
    index = child;
  }
  place(index, moving);
}

}  // namespace erails::qbox
