// A device whose speed can change while it runs: fail-slow drives (a drive that still works, but
// at a fraction of its speed, for minutes or for good) are what read-around has to cope with, and
// the emulated device under an OSD has to be able to become one without the OSD restarting.
//
// After set_slowdown(k, t) every duration the wrapped device produces for a request submitted at
// or after t is k times as long: the wrapped device's clock runs k times slower from t on. Its
// clock is continuous at t, so its queue, garbage collection and idle time carry over; what was
// submitted before t completes when it was told it would, and a request after t that queues
// behind it waits the rest of it out at the new speed.
#pragma once

#include <memory>
#include <string>

#include "common/error.h"
#include "devices/device.h"

namespace erails::devices {

inline constexpr double kMaxSlowdown = 1000;

// Ok if 1 <= factor <= kMaxSlowdown, else an error with key "slowdown" quoting `as_written`.
Status check_slowdown(double factor, const std::string& as_written);

class SlowedDevice final : public Device {
 public:
  explicit SlowedDevice(std::unique_ptr<Device> inner);

  // Error (key "slowdown") unless 1 <= factor <= kMaxSlowdown. `now` must not be before the `now`
  // of any earlier call.
  Status set_slowdown(double factor, double now);
  double slowdown() const { return factor_; }

  IoResult submit(double now, const IoRequest& req) override;
  double drained_at() const override;
  const DeviceStats& stats() const override { return ever_slowed_ ? stats_ : inner_->stats(); }
  std::string describe() const override { return inner_->describe(); }

 private:
  std::unique_ptr<Device> inner_;
  // From since_ (the caller's clock) on, the wrapped device's clock reads
  // inner_since_ + (now - since_) / factor_.
  double since_ = 0;
  double inner_since_ = 0;
  double factor_ = 1;
  bool ever_slowed_ = false;
  double drained_ = 0;  // the latest completion returned, once ever_slowed_
  DeviceStats stats_;  // once ever_slowed_: the wrapped device's, its times scaled as they accrued
};

}  // namespace erails::devices
