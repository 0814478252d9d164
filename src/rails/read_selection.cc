#include "rails/read_selection.h"

#include <string>

namespace erails::rails {

namespace {

Expected<ColorSet> to_set(const char* name, const std::vector<int>& ids, int n) {
  ColorSet s;
  for (int id : ids) {
    if (id < 0 || id >= n)
      return Error{name, std::string(name) + " contains shard " + std::to_string(id) +
                             "; accepted: 0.." + std::to_string(n - 1)};
    s.insert(id);
  }
  return s;
}

uint64_t low_bits(int n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

}  // namespace

Expected<ReadChoice> choose_read_shards(int k, int n, const std::vector<int>& wanted,
                                        const std::vector<int>& available, ColorSet read_phase,
                                        ColorSet slow) {
  if (n < 2 || n > kMaxColors)
    return Error{"n", "n (k+m) is " + std::to_string(n) + "; accepted: 2.." + std::to_string(kMaxColors)};
  if (k < 1 || k > n)
    return Error{"k", "k is " + std::to_string(k) + "; accepted: 1.." + std::to_string(n)};
  if (wanted.empty()) return Error{"wanted", "wanted is empty; accepted: at least one shard id"};
  auto want = to_set("wanted", wanted, n);
  if (!want.ok()) return want.error();
  auto avail = to_set("available", available, n);
  if (!avail.ok()) return avail.error();

  const uint64_t readers = read_phase.mask() & low_bits(n);
  const uint64_t slows = slow.mask() & low_bits(n);
  const uint64_t w = want.value().mask();
  const uint64_t a = avail.value().mask();

  if ((w & a) == w && (w & readers & ~slows) == w) return ReadChoice{ColorSet(w).to_vector(), 0, 0};

  if (ColorSet(a).size() < k)
    return Error{"available", "only " + std::to_string(ColorSet(a).size()) + " shards available, " +
                                  std::to_string(k) + " needed to decode"};

  uint64_t chosen = 0;
  int missing = k;
  for (const uint64_t speed : {a & ~slows, a & slows}) {
    const uint64_t preference[] = {speed & readers & w, speed & readers & ~w, speed & ~readers & w,
                                   speed & ~readers & ~w};
    for (uint64_t group : preference) {
      for (; group != 0 && missing > 0; group &= group - 1, --missing) chosen |= group & -group;
    }
  }
  return ReadChoice{ColorSet(chosen).to_vector(), ColorSet(chosen & ~readers).size(),
                    ColorSet(chosen & slows).size()};
}

}  // namespace erails::rails
