// Decoding tables for Reed-Solomon with w=8, one per erasure pattern, kept in a bounded
// least-recently-used cache. Building them inverts a k x k matrix; a degraded PG loses the same
// chunks for every object it reads, so the same few patterns come back on every call.
//
// One cache serves the whole process: the OSD creates a codec per PG, and all the codecs of one
// k and m share the same matrix, hence the same tables. Safe to call from several threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace erails {

// How to rebuild the chunks of one erasure pattern: outputs[i] is the product of row i of the
// decoding matrix, expanded by ISA-L's ec_init_tables into `tables`, with the chunks `survivors`;
// or, when `by_xor`, the one output is the XOR of the survivors (its row is all ones).
struct DecodePlan {
  std::vector<int> survivors;  // k chunk ids, ascending
  std::vector<int> outputs;    // the erased chunk ids, ascending
  std::vector<unsigned char> tables;
  bool by_xor = false;

  size_t bytes() const;
};

struct DecodeCacheStats {
  size_t entries = 0;
  size_t bytes = 0;
  size_t capacity_bytes = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t evictions = 0;
};

class DecodeCache {
 public:
  // The code a plan belongs to and the chunks it rebuilds (bit i: chunk i is erased).
  struct Key {
    int k;
    int m;
    uint64_t erased;
    bool operator==(const Key& other) const {
      return k == other.k && m == other.m && erased == other.erased;
    }
  };
  using Builder = std::function<std::shared_ptr<const DecodePlan>()>;

  // Keeps plans while their bytes() add up to at most `capacity_bytes`; the most recently used
  // plan is kept even if it alone is larger.
  explicit DecodeCache(size_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

  // The plan for `key`, from the cache or else from `build` (called without the lock held, so
  // other threads keep decoding meanwhile). nullptr if `build` returns nullptr. A plan stays
  // valid for as long as the caller holds it, even if it is evicted meanwhile.
  std::shared_ptr<const DecodePlan> get(const Key& key, const Builder& build);

  DecodeCacheStats stats() const;

  // The cache every codec of the process uses.
  static DecodeCache& shared();

 private:
  struct KeyHash {
    size_t operator()(const Key& key) const;
  };
  using Entry = std::pair<Key, std::shared_ptr<const DecodePlan>>;

  const size_t capacity_bytes_;
  mutable std::mutex mutex_;
  std::list<Entry> recency_;  // most recently used first
  std::unordered_map<Key, std::list<Entry>::iterator, KeyHash> index_;
  DecodeCacheStats stats_;
};

}  // namespace erails
