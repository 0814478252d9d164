// A set of colors (equivalently shard ids, since shard i lives on color i) as a bitmask.
#pragma once

#include <cstdint>
#include <vector>

namespace erails::rails {

inline constexpr int kMaxColors = 64;

class ColorSet {
 public:
  constexpr ColorSet() = default;
  constexpr explicit ColorSet(uint64_t mask) : mask_(mask) {}

  // Precondition for all color arguments: 0 <= color < kMaxColors.
  constexpr bool contains(int color) const { return (mask_ >> color) & 1u; }
  constexpr void insert(int color) { mask_ |= uint64_t{1} << color; }
  constexpr void erase(int color) { mask_ &= ~(uint64_t{1} << color); }
  constexpr uint64_t mask() const { return mask_; }
  int size() const { return __builtin_popcountll(mask_); }
  bool empty() const { return mask_ == 0; }

  // Members in increasing order.
  std::vector<int> to_vector() const {
    std::vector<int> out;
    for (uint64_t m = mask_; m != 0; m &= m - 1) out.push_back(__builtin_ctzll(m));
    return out;
  }

  friend constexpr bool operator==(ColorSet a, ColorSet b) { return a.mask_ == b.mask_; }
  friend constexpr bool operator!=(ColorSet a, ColorSet b) { return a.mask_ != b.mask_; }

 private:
  uint64_t mask_ = 0;
};

}  // namespace erails::rails
