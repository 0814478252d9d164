#include "qbox/stream_classifier.h"

#include <gtest/gtest.h>

namespace erails::qbox {
namespace {

TEST(StreamClassifier, FirstRequestIsRandomThenContiguousIsSequential) {
  StreamClassifier stream;
  EXPECT_EQ(stream.classify(0, 4096), Access::random);
  EXPECT_EQ(stream.classify(4096, 4096), Access::sequential);
  EXPECT_EQ(stream.classify(8192, 8192), Access::sequential);
  EXPECT_EQ(stream.classify(1 << 20, 4096), Access::random);
  EXPECT_EQ(stream.classify((1 << 20) + 4096, 4096), Access::sequential);
}

TEST(StreamClassifier, BackwardJumpIsRandomEvenWhenSmall) {
  StreamClassifier stream(65536);
  stream.classify(65536, 4096);
  EXPECT_EQ(stream.classify(0, 4096), Access::random);
}

TEST(StreamClassifier, SmallForwardGapWithinToleranceIsSequential) {
  StreamClassifier stream(8192);
  stream.classify(0, 4096);
  EXPECT_EQ(stream.classify(4096 + 8192, 4096), Access::sequential);
  EXPECT_EQ(stream.classify(4096 + 8192 + 4096 + 8193, 4096), Access::random);
}

TEST(StreamClassifier, ContinuesAsksWithoutRemembering) {
  StreamClassifier stream;
  EXPECT_FALSE(stream.continues(0));
  stream.classify(0, 4096);
  EXPECT_TRUE(stream.continues(4096));
  EXPECT_FALSE(stream.continues(0));
  EXPECT_EQ(stream.classify(4096, 4096), Access::sequential);
}

}  // namespace
}  // namespace erails::qbox
