#include "sim/invariants.h"

namespace erails::sim {

void record_violation(RunResult& result, const std::string& what) {
  if (result.first_violations.size() < 10) result.first_violations.push_back(what);
  result.invariant_violations++;
}

void check_drained(const VersionTable& versions, int k, int shards, const std::function<bool(uint64_t, int)>& up,
                   RunResult& result) {
  for (uint64_t o = 0; o < versions.objects(); ++o) {
    const uint32_t acked = versions.object(o).acked;
    int current = 0;
    for (int s = 0; s < shards; ++s) {
      const uint32_t on_device = versions.shard(o, s).on_device;
      if (on_device >= acked) {
        current++;
      } else if (up(o, s)) {
        record_violation(result, "acknowledged write lost: object " + std::to_string(o) + " shard " + std::to_string(s) +
                                     " has version " + std::to_string(on_device) + " < " + std::to_string(acked));
      }
    }
    if (current < k)
      record_violation(result, "object " + std::to_string(o) + " has only " + std::to_string(current) + " current shards");
  }
}

}  // namespace erails::sim
