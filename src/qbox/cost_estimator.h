#pragma once
// Black-box cost estimation for the four request classes (thesis 3.3 and 3.5.1).
//
// The estimator sees only what a controller in front of a black box sees: when requests are
// dispatched, when they complete, and their class. Time is cut into short windows; in each it
// counts completions per class and integrates the time the device had at least one request
// outstanding (the "z" of eq. 3.1 — equal to the window length when the device is saturated, as the
// thesis assumes, and smaller when it idles, so idle time is not charged to requests).
//
// Reads are estimated per short window by the two-window method, on the time left after
// subtracting the writes' current estimate. Writes are acknowledged from caches and reach the media
// in bursts, so they are estimated over long windows (a whole number of short ones, §3.5.1): all
// four costs are solved jointly by least squares over the last few long windows and the write
// costs taken from that (joint_solver.h says why the split needs it). Until writes have an
// estimate, short windows price them like reads.

#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include "qbox/joint_solver.h"
#include "qbox/pair_estimator.h"
#include "qbox/request_class.h"
#include "qbox/seconds.h"

namespace erails::qbox {

struct CostEstimatorConfig {
  Seconds window = 0.1;                // short (read) window; 100 ms as in thesis 3.4.2
  std::size_t windows_per_write_window = 50;  // 5 s write windows (§3.3.3, §3.5.1)
  std::size_t write_history = 12;             // long windows in the joint solve
  PairEstimatorConfig reads;
  PairEstimatorConfig writes;
  std::optional<CostPair> read_prior;   // seeds, e.g. from a device profile
  std::optional<CostPair> write_prior;
};

// What one closed short window looked like; the controller logs these.
struct WindowObservation {
  Seconds end = 0;
  Seconds busy = 0;
  std::array<double, 4> completions{};  // indexed by class_index()
};

inline std::size_t class_index(RequestClass c) {
  return (c.operation == Operation::write ? 2 : 0) + (c.access == Access::random ? 1 : 0);
}

class CostEstimator {
 public:
  // Preconditions: config.window > 0, config.windows_per_write_window >= 1. `start` begins the
  // first window.
  CostEstimator(CostEstimatorConfig config, Seconds start);

  // Calls must come with non-decreasing `now`. Every completion must follow its own dispatch.
  void on_dispatch(Seconds now);
  void on_completion(RequestClass request_class, Seconds now);
  // Closes every window that ended at or before `now`; the other calls do this too.
  void advance(Seconds now);

  // Current estimate of a class's average cost, if it has been observed or seeded.
  std::optional<Seconds> cost(RequestClass request_class) const;

  // Number of short windows closed so far, and the last one (for logs and tests).
  std::size_t windows_closed() const { return windows_closed_; }
  const WindowObservation& last_window() const { return last_window_; }

 private:
  void accumulate_busy(Seconds until);
  void close_window();
  void close_write_window();

  CostEstimatorConfig config_;
  PairEstimator reads_;
  PairEstimator writes_;
  std::vector<LongWindow> long_history_;  // ring of the last config_.write_history long windows
  std::size_t long_next_ = 0;

  Seconds window_end_;
  Seconds last_event_;
  std::size_t in_flight_ = 0;

  WindowObservation current_;
  WindowObservation long_window_;
  std::size_t windows_in_long_ = 0;

  WindowObservation last_window_;
  std::size_t windows_closed_ = 0;
};

}  // namespace erails::qbox
