#include "qbox/stream_generator.h"

#include <algorithm>

namespace erails::qbox {
namespace {

constexpr std::uint64_t kBlock = 4096;
constexpr std::uint32_t kLargestTraceRequest = 1 << 20;

}  // namespace

StreamGenerator::StreamGenerator(const ClientSpec& spec, std::uint64_t region_start,
                                 std::uint64_t region_bytes, const std::vector<TraceRecord>* trace,
                                 std::uint64_t seed)
    : spec_(spec),
      region_start_(region_start),
      region_bytes_(region_bytes),
      trace_(trace),
      rng_(seed),
      cursor_(0) {
  if (spec_.pattern == Pattern::trace) {
    // One mean inter-arrival gap between the end of a pass and the start of the next.
    const Seconds span = trace_->back().time;
    trace_period_ = span + (trace_->size() > 1 ? span / static_cast<double>(trace_->size() - 1) : 1.0);
    next_arrival_ = trace_->front().time;
  }
}

// Random requests are aligned to their own size, as block-aligned I/O is, so they never straddle
// a stripe or object boundary that is a multiple of the request size.
std::uint64_t StreamGenerator::random_offset(std::uint32_t length) {
  const std::uint64_t slots = (region_bytes_ - length) / length + 1;
  return std::uniform_int_distribution<std::uint64_t>(0, slots - 1)(rng_) * length;
}

StreamRequest StreamGenerator::from_trace() {
  const TraceRecord& record = (*trace_)[position_ % trace_->size()];
  std::uint32_t length = static_cast<std::uint32_t>(
      std::min<std::uint64_t>((record.size + kBlock - 1) / kBlock * kBlock, kLargestTraceRequest));
  length = static_cast<std::uint32_t>(std::min<std::uint64_t>(length, region_bytes_));
  // Keep the trace's locality: nearby trace offsets stay nearby, folded into the region. The fold
  // must not depend on the request's length, or a sequential run of mixed sizes (32 and 64 KiB in
  // the MSR traces) would land in pieces all over the region.
  std::uint64_t offset = (record.offset / kBlock * kBlock) % region_bytes_;
  offset = std::min(offset, region_bytes_ - length);
  const std::size_t following = (position_ + 1) % trace_->size();
  const std::uint64_t following_pass = (position_ + 1) / trace_->size();
  next_arrival_ = (*trace_)[following].time + static_cast<double>(following_pass) * trace_period_;
  return StreamRequest{record.operation, region_start_ + offset, length};
}

StreamRequest StreamGenerator::next() {
  if (spec_.pattern == Pattern::trace) {
    StreamRequest request = from_trace();
    ++position_;
    return request;
  }
  const std::uint32_t length = spec_.size;
  bool sequential = spec_.pattern == Pattern::sequential;
  if (spec_.pattern == Pattern::semi) {
    const std::uint64_t group = spec_.semi_random + spec_.semi_sequential;
    sequential = position_ % group >= spec_.semi_random;
  }
  std::uint64_t offset;
  if (sequential) {
    if (cursor_ + length > region_bytes_) cursor_ = 0;
    offset = cursor_;
  } else {
    offset = random_offset(length);
  }
  // A random request moves the sequential cursor too, so the next sequential run starts after it
  // (a semi-sequential stream's random requests are jumps, then it streams on from there).
  cursor_ = offset + length;
  ++position_;
  if (!spec_.closed_loop) next_arrival_ += 1.0 / spec_.rate;
  return StreamRequest{spec_.operation, region_start_ + offset, length};
}

}  // namespace erails::qbox
