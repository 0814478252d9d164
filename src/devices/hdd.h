// Hard-disk model: one head, so requests are served one at a time; a request that does not start
// where the previous one ended pays a positioning time (seek + half a rotation) that is orders of
// magnitude above its transfer time (thesis ch. 3 uses this gap to motivate cost estimation).
//
// NCQ: with q requests outstanding the drive reorders them to shorten seeks. The model does not
// reorder (completions stay in submission order, which keeps submit() a pure function); instead
// the positioning time shrinks by 1/sqrt(min(q, ncq_depth)): the expected distance to the nearest
// of q random targets falls like 1/q and short seeks take time ~ sqrt(distance).
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "common/error.h"
#include "devices/device.h"

namespace erails::devices {

struct HddParams {
  std::string name = "hdd";
  double capacity_bytes = 1e12;
  double bandwidth = 150e6;         // sequential transfer, bytes/s
  double avg_seek = 8.5e-3;         // seconds
  double rpm = 7200;
  int ncq_depth = 32;               // 1 disables reordering gains
  double sequential_window = 0;     // bytes: a start within this distance of the last end is sequential
  double time_scale = 1;            // multiplies every duration the model returns (as SsdParams')
};

// An error names the field as its key, and its message the field and the accepted range.
Status validate(const HddParams& p);

class HddModel final : public Device {
 public:
  // Precondition: validate(p).ok().
  explicit HddModel(const HddParams& p) : p_(p) {}

  IoResult submit(double now, const IoRequest& req) override;
  double drained_at() const override { return busy_until_ * p_.time_scale; }
  const DeviceStats& stats() const override { return stats_; }
  std::string describe() const override { return "hdd " + p_.name; }

 private:
  HddParams p_;
  double busy_until_ = 0;  // on the model's clock: the caller's time divided by time_scale
  uint64_t head_ = 0;
  bool head_known_ = false;
  std::deque<double> outstanding_;  // completion times of requests not yet done
  DeviceStats stats_;
};

}  // namespace erails::devices
