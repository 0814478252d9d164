#pragma once
// Per-client FIFO as a ring buffer that only grows (doubling). Once a client's queue has reached its
// steady-state depth, pushing and popping never touch the heap — the scheduler's no-allocation-per-
// request property rests on this.
//
// Preconditions on T: default-constructible and move-assignable (slots are reused in place).

#include <cstddef>
#include <utility>
#include <vector>

namespace erails::qbox {

template <class T>
class ClientFifo {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  void push(T&& value) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = std::move(value);
    ++size_;
  }

  void push_front(T&& value) {
    if (size_ == slots_.size()) grow();
    head_ = (head_ + slots_.size() - 1) & (slots_.size() - 1);
    slots_[head_] = std::move(value);
    ++size_;
  }

  // Preconditions for front/pop: !empty().
  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  // The k-th entry from the front. Precondition: k < size().
  T& at(std::size_t k) { return slots_[(head_ + k) & (slots_.size() - 1)]; }
  T pop() {
    T value = std::move(slots_[head_]);
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
    return value;
  }

 private:
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 4 : slots_.size() * 2);
    for (std::size_t k = 0; k < size_; ++k) {
      bigger[k] = std::move(slots_[(head_ + k) & (slots_.size() - 1)]);
    }
    slots_.swap(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;  // capacity is always zero or a power of two
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace erails::qbox
