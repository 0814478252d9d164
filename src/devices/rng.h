// A small seeded generator whose output is fixed by this file alone (std:: distributions differ
// between standard libraries, which would break "same seed, same output").
#pragma once

#include <cstdint>

namespace erails::devices {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  // splitmix64: full-period, passes BigCrush, two lines.
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n); n > 0.
  uint64_t below(uint64_t n) { return static_cast<uint64_t>(uniform() * static_cast<double>(n)); }

 private:
  uint64_t state_;
};

}  // namespace erails::devices
