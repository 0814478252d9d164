#pragma once
// Per-stream sequential/random classification from request offsets (thesis 3.4.3: classify each
// request, not each stream). A request is sequential when it starts within `max_gap_bytes` after
// the end of the same stream's previous request; a stream's first request is random because the
// device head (or FTL mapping) is somewhere else.

#include <cstdint>

#include "qbox/request_class.h"

namespace erails::qbox {

class StreamClassifier {
 public:
  // max_gap_bytes: a forward jump up to this many bytes still counts as sequential, so
  // semi-sequential streams with small skips are not charged as random.
  explicit StreamClassifier(std::uint64_t max_gap_bytes = 0) : max_gap_bytes_(max_gap_bytes) {}

  // Classifies a request of `length` bytes at `offset` and remembers where it ends.
  Access classify(std::uint64_t offset, std::uint64_t length);
  // Whether a request at `offset` would be classified sequential now (nothing is remembered).
  bool continues(std::uint64_t offset) const {
    return seen_any_ && offset >= next_offset_ && offset - next_offset_ <= max_gap_bytes_;
  }

 private:
  std::uint64_t max_gap_bytes_;
  std::uint64_t next_offset_ = 0;
  bool seen_any_ = false;
};

}  // namespace erails::qbox
