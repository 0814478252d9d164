#include "rails/read_selection.h"

#include <gtest/gtest.h>

namespace erails::rails {
namespace {

ColorSet set_of(std::initializer_list<int> ids) {
  ColorSet s;
  for (int id : ids) s.insert(id);
  return s;
}

const std::vector<int> kAll6 = {0, 1, 2, 3, 4, 5};

ColorSet chosen_set(const ReadChoice& choice) {
  ColorSet s;
  for (int id : choice.shards) s.insert(id);
  return s;
}

TEST(ReadSelection, WantedAllReadPhaseReadsExactlyThem) {
  auto r = choose_read_shards(3, 6, {0, 1, 2}, kAll6, set_of({0, 1, 2}), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(r.value().write_phase_shards, 0);
}

TEST(ReadSelection, SingleWantedReadPhaseShardNeedsNoDecode) {
  auto r = choose_read_shards(3, 6, {4}, kAll6, set_of({3, 4, 5}), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{4}));
}

TEST(ReadSelection, WriteWantedShardIsDecodedFromReadPhaseShards) {
  // Wanted data shards 0..2, readers {2,3,4}: read 2 (wanted) then 3,4, never 0 or 1.
  auto r = choose_read_shards(3, 6, {0, 1, 2}, kAll6, set_of({2, 3, 4}), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(r.value().write_phase_shards, 0);
}

TEST(ReadSelection, MoreReadersThanKPrefersWantedThenLowestIds) {
  // s=4 > k=3: wanted 1 and 5 read-phase go first, then the lowest other reader (2).
  auto r = choose_read_shards(3, 6, {1, 5, 0}, kAll6, set_of({1, 2, 3, 5}), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{1, 2, 5}));
  EXPECT_EQ(r.value().write_phase_shards, 0);
}

TEST(ReadSelection, FailedReaderFallsBackToFewestWritersPreferringWanted) {
  // Reader 3 is down: two read-phase shards left, one writer needed; wanted writer 1 beats 0.
  auto r = choose_read_shards(3, 6, {1}, {0, 1, 2, 4, 5}, set_of({2, 3, 4}), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(r.value().write_phase_shards, 1);
}

TEST(ReadSelection, FallbackWithoutWantedWritersTakesLowestIds) {
  auto r = choose_read_shards(3, 6, {2}, {0, 1, 3, 4, 5}, set_of({2, 3, 4}), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{0, 3, 4}));
  EXPECT_EQ(r.value().write_phase_shards, 1);
}

TEST(ReadSelection, FewerReadersThanKAlwaysMixes) {
  auto r = choose_read_shards(4, 6, {0, 1, 2, 3}, kAll6, set_of({4, 5}), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(r.value().write_phase_shards, 2);
}

TEST(ReadSelection, ReplicationReadsOneReadPhaseCopy) {
  auto r = choose_read_shards(1, 3, {0}, {0, 1, 2}, set_of({2}), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{2}));
  EXPECT_EQ(r.value().write_phase_shards, 0);

  auto primary_reads = choose_read_shards(1, 3, {0}, {0, 1, 2}, set_of({0, 1}), {});
  ASSERT_TRUE(primary_reads.ok());
  EXPECT_EQ(primary_reads.value().shards, (std::vector<int>{0}));
}

TEST(ReadSelection, ReplicationWithOnlyWriterCopiesLeftMixes) {
  auto r = choose_read_shards(1, 3, {0}, {0, 1}, set_of({2}), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{0}));
  EXPECT_EQ(r.value().write_phase_shards, 1);
}

TEST(ReadSelection, DuplicatesAndOrderDoNotMatter) {
  auto r = choose_read_shards(2, 4, {3, 3, 0}, {3, 2, 1, 0, 0}, set_of({0, 3}), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{0, 3}));
}

TEST(ReadSelection, ReadPhaseBitsBeyondNAreIgnored) {
  auto r = choose_read_shards(2, 4, {0, 1}, {0, 1, 2, 3}, ColorSet(0b110000 | 0b0100), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{0, 2}));
  EXPECT_EQ(r.value().write_phase_shards, 1);
}

TEST(ReadSelection, TooFewAvailableIsAnError) {
  auto r = choose_read_shards(3, 6, {0}, {1, 4}, set_of({0, 1, 2}), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().key, "available");
}

TEST(ReadSelection, BadArgumentsNameTheArgument) {
  EXPECT_EQ(choose_read_shards(0, 6, {0}, kAll6, {}, {}).error().key, "k");
  EXPECT_EQ(choose_read_shards(7, 6, {0}, kAll6, {}, {}).error().key, "k");
  EXPECT_EQ(choose_read_shards(1, 1, {0}, kAll6, {}, {}).error().key, "n");
  EXPECT_EQ(choose_read_shards(1, 65, {0}, kAll6, {}, {}).error().key, "n");
  EXPECT_EQ(choose_read_shards(3, 6, {}, kAll6, {}, {}).error().key, "wanted");
  EXPECT_EQ(choose_read_shards(3, 6, {6}, kAll6, {}, {}).error().key, "wanted");
  EXPECT_EQ(choose_read_shards(3, 6, {0}, {-1, 1, 2}, {}, {}).error().key, "available");
}

TEST(ReadSelection, SlowWantedShardIsDecodedAroundWithoutReadingMore) {
  // 4+2, no Rails (every shard read-phase), shard 1 slow: read 0,2,3 and the first parity, 4.
  auto r = choose_read_shards(4, 6, {0, 1, 2, 3}, kAll6, ColorSet(0b111111), set_of({1}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{0, 2, 3, 4}));
  EXPECT_EQ(r.value().slow_shards, 0);
}

TEST(ReadSelection, SlowShardNotWantedChangesNothing) {
  auto r = choose_read_shards(4, 6, {0, 1, 2, 3}, kAll6, ColorSet(0b111111), set_of({5}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{0, 1, 2, 3}));
}

TEST(ReadSelection, SlowReadPhaseShardGivesWayToAWritePhaseShard) {
  // Readers {0,1,2,3}, 3 slow: the three fast readers, then the lowest fast writer, 4.
  auto r = choose_read_shards(4, 6, {0, 1, 2, 3}, kAll6, set_of({0, 1, 2, 3}), set_of({3}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{0, 1, 2, 4}));
  EXPECT_EQ(r.value().write_phase_shards, 1);
  EXPECT_EQ(r.value().slow_shards, 0);
}

TEST(ReadSelection, SlowShardsAreReadWhenKOthersAreNotThere) {
  // Shard 5 down, 1 and 3 slow: only 0,2,4 are fast, so one slow shard is read; the wanted one.
  auto r = choose_read_shards(4, 6, {3}, {0, 1, 2, 3, 4}, ColorSet(0b111111), set_of({1, 3}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().shards, (std::vector<int>{0, 2, 3, 4}));
  EXPECT_EQ(r.value().slow_shards, 1);
}

TEST(ReadSelection, EveryShardSlowReadsAsIfNoneWere) {
  const ColorSet all(0b111111);
  for (uint64_t readers : {uint64_t{0b001111}, uint64_t{0b111100}, uint64_t{0b111111}}) {
    auto marked = choose_read_shards(4, 6, {1, 4}, kAll6, ColorSet(readers), all);
    auto unmarked = choose_read_shards(4, 6, {1, 4}, kAll6, ColorSet(readers), {});
    ASSERT_TRUE(marked.ok() && unmarked.ok());
    if (unmarked.value().shards.size() == 2) {
      // Rule 1 no longer applies when the wanted shards are slow: k shards are read.
      EXPECT_EQ(marked.value().shards.size(), 4u);
    } else {
      EXPECT_EQ(marked.value().shards, unmarked.value().shards);
    }
  }
}

// Marks never fail a read nor read more than k (or the wanted shards directly), and a fast shard
// is never left out for a slow one.
TEST(ReadSelection, ExhaustiveSmallCodeWithMarks) {
  const int n = 5, k = 3;
  for (uint64_t avail = 0; avail < 32; ++avail) {
    for (uint64_t readers = 0; readers < 32; readers += 3) {
      for (uint64_t slow = 0; slow < 32; ++slow) {
        auto r = choose_read_shards(k, n, {0, 2}, ColorSet(avail).to_vector(), ColorSet(readers),
                                    ColorSet(slow));
        const uint64_t wanted = 0b101;
        const bool direct = (wanted & avail & readers & ~slow) == wanted;
        if (!direct && ColorSet(avail).size() < k) {
          EXPECT_FALSE(r.ok());
          continue;
        }
        ASSERT_TRUE(r.ok());
        const ColorSet chosen = chosen_set(r.value());
        EXPECT_EQ(chosen.mask() & ~avail, 0u);
        EXPECT_EQ(chosen.size(), direct ? 2 : k);
        const int fast_available = ColorSet(avail & ~slow).size();
        EXPECT_EQ(r.value().slow_shards, std::max(0, chosen.size() - fast_available));
        EXPECT_EQ(r.value().slow_shards, ColorSet(chosen.mask() & slow).size());
      }
    }
  }
}

// Exhaustive check of the documented rule on a small code: every read set, every availability.
TEST(ReadSelection, ExhaustiveSmallCodeUsesFewestWriters) {
  const int n = 5, k = 3;
  for (uint64_t avail = 0; avail < 32; ++avail) {
    for (uint64_t readers = 0; readers < 32; ++readers) {
      std::vector<int> available = ColorSet(avail).to_vector();
      auto r = choose_read_shards(k, n, {0, 1, 2}, available, ColorSet(readers), {});
      if (ColorSet(avail).size() < k) {
        EXPECT_FALSE(r.ok());
        continue;
      }
      ASSERT_TRUE(r.ok());
      const ColorSet chosen = chosen_set(r.value());
      EXPECT_EQ(chosen.mask() & ~avail, 0u);
      const bool direct = (avail & 7) == 7 && (readers & 7) == 7;
      EXPECT_EQ(chosen.size(), direct ? 3 : k);
      const int available_readers = ColorSet(avail & readers).size();
      const int fewest = available_readers >= k ? 0 : k - available_readers;
      EXPECT_EQ(r.value().write_phase_shards, direct ? 0 : fewest);
      EXPECT_EQ(r.value().write_phase_shards, ColorSet(chosen.mask() & ~readers).size());
    }
  }
}

}  // namespace
}  // namespace erails::rails
