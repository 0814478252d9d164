#include "devices/hdd.h"

#include <algorithm>
#include <cmath>

namespace erails::devices {

Status validate(const HddParams& p) {
  auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  if (!positive(p.capacity_bytes)) return Error{"capacity_bytes", "capacity_bytes must be > 0"};
  if (!positive(p.bandwidth)) return Error{"bandwidth", "bandwidth must be > 0 bytes/s"};
  if (!(p.avg_seek >= 0) || !std::isfinite(p.avg_seek)) return Error{"avg_seek", "avg_seek must be >= 0 seconds"};
  if (!positive(p.rpm)) return Error{"rpm", "rpm must be > 0"};
  if (p.ncq_depth < 1 || p.ncq_depth > 256) return Error{"ncq_depth", "ncq_depth must be in 1..256"};
  if (!(p.sequential_window >= 0) || !std::isfinite(p.sequential_window))
    return Error{"sequential_window", "sequential_window must be >= 0 bytes"};
  if (!positive(p.time_scale)) return Error{"time_scale", "time_scale must be finite and > 0"};
  return Ok{};
}

IoResult HddModel::submit(double caller_now, const IoRequest& req) {
  // As in SsdModel::submit: the model's clock runs time_scale times slower, exactly so at 1.
  const double now = caller_now / p_.time_scale;
  while (!outstanding_.empty() && outstanding_.front() <= now) outstanding_.pop_front();
  const uint64_t offset = req.offset % static_cast<uint64_t>(p_.capacity_bytes);
  const uint64_t distance = offset > head_ ? offset - head_ : head_ - offset;
  const bool sequential = head_known_ && distance <= p_.sequential_window;
  double positioning = 0;
  if (!sequential) {
    const double queued = static_cast<double>(std::min<size_t>(outstanding_.size() + 1, p_.ncq_depth));
    positioning = (p_.avg_seek + 30.0 / p_.rpm) / std::sqrt(queued);
  }
  const double start = std::max(now, busy_until_);
  const double service = positioning + req.bytes / p_.bandwidth;
  busy_until_ = start + service;
  outstanding_.push_back(busy_until_);
  head_ = offset + req.bytes;
  head_known_ = true;
  stats_.busy_seconds += service * p_.time_scale;
  if (req.operation == Operation::read) {
    stats_.reads++;
    stats_.read_bytes += req.bytes;
  } else {
    stats_.writes++;
    stats_.write_bytes += req.bytes;
  }
  return IoResult{std::max(caller_now, busy_until_ * p_.time_scale), 0};
}

}  // namespace erails::devices
