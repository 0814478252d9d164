#include "qbox/stream_classifier.h"

namespace erails::qbox {

Access StreamClassifier::classify(std::uint64_t offset, std::uint64_t length) {
  const bool sequential = continues(offset);
  seen_any_ = true;
  next_offset_ = offset + length;
  return sequential ? Access::sequential : Access::random;
}

}  // namespace erails::qbox
