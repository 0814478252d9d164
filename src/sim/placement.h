// Which OSD holds a shard: the ordered placement Rails needs (shard i of every PG on an OSD of
// color i, so a color's phase is every PG's shard i's phase), with objects hashed to PGs and each
// PG's shard hashed to one OSD of its color, as CRUSH would spread them.
#pragma once

#include <cstdint>

namespace erails::sim {

// A 64-bit finalizer (MurmurHash3's): every output bit depends on every input bit, so consecutive
// objects and PGs land far apart. Also derives per-device seeds from the run's seed.
inline uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

class Placement {
 public:
  // Preconditions: pgs >= 1, osds_per_color >= 1.
  Placement(int pgs, int osds_per_color) : pgs_(pgs), osds_per_color_(osds_per_color) {}

  // OSD i has color i / osds_per_color. Returns an OSD of color `shard`; the same for every object
  // of a PG. Precondition: shard >= 0.
  int osd_of(uint64_t object, int shard) const {
    const uint64_t pg = mix(object) % static_cast<uint64_t>(pgs_);
    const auto within = static_cast<int>(mix(pg * 64 + shard + 1) % static_cast<uint64_t>(osds_per_color_));
    return shard * osds_per_color_ + within;
  }

 private:
  int pgs_;
  int osds_per_color_;
};

}  // namespace erails::sim
