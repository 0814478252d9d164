// Rails-aware choice of the shards a read fetches (what the plugin's minimum_to_decode returns).
//
// Shard i lives on color i, so "shard i is read-phase" means "its OSD is read-phase". The rule:
//  1. If every wanted shard is available and read-phase, read exactly the wanted shards.
//  2. Otherwise read k available shards, preferring in this order: wanted read-phase shards, other
//     read-phase shards, wanted write-phase shards (each one avoids a decode), other write-phase
//     shards; lowest id first inside each group so the choice is deterministic. This uses the
//     fewest write-phase shards possible. The count of write-phase shards read is reported so the
//     operator can see reads that mixed phases (failures, or readers < k).
//  3. Fewer than k available shards: an Error (the plugin answers -EIO).
// With k = 1 (replication: every shard is a full copy) rule 2 picks one read-phase copy.
// Shards on slow devices (the rails module's marks, doc/rails.rst "Reading around a slow OSD")
// count in rule 1 as not read-phase, and in rule 2 come after every other available shard, in the
// same order among themselves: a mark never makes a read fail or read more than k shards, it only
// moves the read to other shards when k of them are there.
#pragma once

#include <vector>

#include "rails/color_set.h"
#include "common/error.h"

namespace erails::rails {

struct ReadChoice {
  std::vector<int> shards;    // sorted, distinct
  int write_phase_shards = 0; // how many of `shards` are write-phase
  int slow_shards = 0;        // how many of `shards` are marked slow
};

// k: shards needed to decode, 1 <= k <= n. n: total shards (= colors), 2 <= n <= kMaxColors.
// wanted / available: shard ids in 0..n-1 (duplicates are ignored; order does not matter); wanted
// must not be empty. read_phase: the schedule's read set; slow: the shards on devices marked slow
// (bits >= n are ignored in both). Bad arguments come back as an Error naming the argument.
Expected<ReadChoice> choose_read_shards(int k, int n, const std::vector<int>& wanted,
                                        const std::vector<int>& available, ColorSet read_phase,
                                        ColorSet slow);

}  // namespace erails::rails
