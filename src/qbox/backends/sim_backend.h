#pragma once
// A simulated device from src/sim (HDD or SSD model) as the black box, in simulated time. The
// device computes each request's completion at submit; completions are handed out in time order.
//
// For evaluation only, each completion carries the device time the request occupied: with u
// internal units served in submission order, a request starts when the earliest unit frees (or at
// submit), and occupies (completion - start) / u of the whole device's time. The scheduler never
// sees this; the reproductions use it to measure achieved utilization as the thesis did with its
// per-disk service times (3.4.1).

#include <memory>
#include <queue>
#include <vector>

#include "qbox/backend.h"
#include "devices/device.h"

namespace erails::qbox {

class SimBackend final : public Backend {
 public:
  // The HDD model with its default parameters (src/devices/hdd.h), NCQ depth `ncq` (1..256),
  // capacity `capacity_bytes` (0 = the model's default), every duration `time_scale` times the
  // model's (as the OSD benchmarks' emulated devices run it). Errors name the parameter.
  static Expected<std::unique_ptr<SimBackend>> hdd(int ncq, double capacity_bytes,
                                                   double time_scale = 1);
  // The SSD model with its default parameters, `capacity_bytes` (0 = default) and `time_scale`.
  static Expected<std::unique_ptr<SimBackend>> ssd(double capacity_bytes, double time_scale = 1);

  Status submit(const BackendRequest& request, Seconds now) override;
  void collect(Seconds now, std::vector<BackendCompletion>& out) override;
  std::optional<Seconds> next_completion() const override;
  void wait(Seconds) override {}

  std::uint64_t capacity_bytes() const { return capacity_; }

 private:
  SimBackend(std::unique_ptr<erails::devices::Device> device, int units, std::uint64_t capacity);

  struct Pending {
    Seconds at;
    std::uint64_t token;
    Seconds service;
    int bytes;
    bool operator>(const Pending& other) const {
      return at > other.at || (at == other.at && token > other.token);
    }
  };

  std::unique_ptr<erails::devices::Device> device_;
  std::vector<Seconds> unit_free_;
  std::uint64_t capacity_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending_;
};

}  // namespace erails::qbox
