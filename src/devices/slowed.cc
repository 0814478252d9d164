#include "devices/slowed.h"

#include <algorithm>
#include <cmath>

namespace erails::devices {

SlowedDevice::SlowedDevice(std::unique_ptr<Device> inner) : inner_(std::move(inner)), stats_(inner_->stats()) {}

Status SlowedDevice::set_slowdown(double factor, double now) {
  if (!std::isfinite(factor) || factor < 1 || factor > kMaxSlowdown) {
    return Error{"slowdown", "slowdown must be a number in 1..1000 (how many times slower than the model)"};
  }
  if (factor == factor_) return Ok{};
  if (!ever_slowed_) drained_ = inner_->drained_at();
  const double at = std::max(now, since_);
  inner_since_ += (at - since_) / factor_;
  since_ = at;
  factor_ = factor;
  ever_slowed_ = true;
  return Ok{};
}

IoResult SlowedDevice::submit(double now, const IoRequest& req) {
  // Never slowed, the wrapped device sees the caller's clock itself, so its results are the same
  // to the bit.
  if (!ever_slowed_) {
    const IoResult r = inner_->submit(now, req);
    stats_ = inner_->stats();
    return r;
  }
  const DeviceStats before = inner_->stats();
  const IoResult r = inner_->submit(inner_since_ + (std::max(now, since_) - since_) / factor_, req);
  const DeviceStats& after = inner_->stats();
  const double busy = stats_.busy_seconds + (after.busy_seconds - before.busy_seconds) * factor_;
  const double gc = stats_.gc_blocked_seconds + (after.gc_blocked_seconds - before.gc_blocked_seconds) * factor_;
  stats_ = after;
  stats_.busy_seconds = busy;
  stats_.gc_blocked_seconds = gc;
  const double completion = std::max(now, since_ + (r.completion - inner_since_) * factor_);
  drained_ = std::max(drained_, completion);
  return IoResult{completion, r.gc_wait * factor_};
}

double SlowedDevice::drained_at() const { return ever_slowed_ ? drained_ : inner_->drained_at(); }

}  // namespace erails::devices
