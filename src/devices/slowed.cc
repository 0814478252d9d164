#include "devices/slowed.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace erails::devices {

Status check_slowdown(double factor, const std::string& as_written) {
  if (std::isfinite(factor) && factor >= 1 && factor <= kMaxSlowdown) return Ok{};
  std::ostringstream accepted;
  accepted << "slowdown = '" << as_written << "' is not accepted; accepted: a number in 1.." << kMaxSlowdown;
  return Error{"slowdown", accepted.str()};
}

SlowedDevice::SlowedDevice(std::unique_ptr<Device> inner) : inner_(std::move(inner)) {}

Status SlowedDevice::set_slowdown(double factor, double now) {
  std::ostringstream written;
  written << factor;
  if (Status valid = check_slowdown(factor, written.str()); !valid.ok()) return valid;
  if (factor == factor_) return Ok{};
  if (!ever_slowed_) {
    drained_ = inner_->drained_at();
    stats_ = inner_->stats();
  }
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
  if (!ever_slowed_) return inner_->submit(now, req);
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
