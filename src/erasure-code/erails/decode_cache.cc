#include "erasure-code/erails/decode_cache.h"

namespace erails {
namespace {

// The 793 patterns of up to 4 lost chunks of an 8+4 code take 0.8 MiB; the 6195 of a 16+4 code
// 12 MiB, so for wide codes the cache keeps the patterns in use, not all of them.
constexpr size_t kSharedCapacityBytes = 4 << 20;

}  // namespace

size_t DecodePlan::bytes() const {
  return sizeof(DecodePlan) + tables.size() + (survivors.size() + outputs.size()) * sizeof(int);
}

size_t DecodeCache::KeyHash::operator()(const Key& key) const {
  return std::hash<uint64_t>()(key.erased * 0x9e3779b97f4a7c15ULL ^
                               (static_cast<uint64_t>(key.k) << 8 | static_cast<uint64_t>(key.m)));
}

std::shared_ptr<const DecodePlan> DecodeCache::get(const Key& key, const Builder& build) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = index_.find(key); it != index_.end()) {
      recency_.splice(recency_.begin(), recency_, it->second);
      ++stats_.hits;
      return it->second->second;
    }
    ++stats_.misses;
  }
  std::shared_ptr<const DecodePlan> plan = build();
  if (!plan) return nullptr;

  std::lock_guard<std::mutex> lock(mutex_);
  // Another thread may have built the same plan meanwhile: keep the one already cached.
  if (auto it = index_.find(key); it != index_.end()) return it->second->second;
  recency_.emplace_front(key, plan);
  index_.emplace(key, recency_.begin());
  stats_.bytes += plan->bytes();
  while (stats_.bytes > capacity_bytes_ && recency_.size() > 1) {
    const Entry& oldest = recency_.back();
    stats_.bytes -= oldest.second->bytes();
    index_.erase(oldest.first);
    recency_.pop_back();
    ++stats_.evictions;
  }
  return plan;
}

DecodeCacheStats DecodeCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  DecodeCacheStats stats = stats_;
  stats.entries = recency_.size();
  stats.capacity_bytes = capacity_bytes_;
  return stats;
}

DecodeCache& DecodeCache::shared() {
  static DecodeCache cache(kSharedCapacityBytes);
  return cache;
}

}  // namespace erails
