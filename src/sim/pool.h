// Records addressed by a small integer id that events carry (EventQueue's payload), with freed ids
// reused last-freed first. Why not pointers or a map: an event holds 64 bits of payload, and a run
// creates and frees hundreds of millions of requests whose records should stay in a few hot pages.
#pragma once

#include <cstdint>
#include <vector>

namespace erails::sim {

template <class T>
class Pool {
 public:
  // Stores `value` and returns its id, valid until release(id).
  uint64_t add(const T& value) {
    if (!free_.empty()) {
      const uint64_t id = free_.back();
      free_.pop_back();
      records_[id] = value;
      return id;
    }
    records_.push_back(value);
    return records_.size() - 1;
  }

  // Precondition: id came from add() and was not released since.
  void release(uint64_t id) { free_.push_back(id); }

  // Precondition: id came from add(). A reference is valid until the next add().
  T& operator[](uint64_t id) { return records_[id]; }
  const T& operator[](uint64_t id) const { return records_[id]; }

 private:
  std::vector<T> records_;
  std::vector<uint64_t> free_;
};

}  // namespace erails::sim
