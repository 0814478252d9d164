#pragma once
// Moving estimate of the average sequential and random cost of one operation kind (reads, or
// writes), fed one closed window at a time (thesis 3.3.1 and 3.3.3).
//
// Each new window is intersected with up to `history` earlier windows; the valid intersections are
// averaged into one sample, so a single noisy pair carries little weight and more windows yield an
// update. When none is valid the current estimate is projected onto the new window (3.6-3.7); a
// window holding one class only updates that class directly.

#include <cstddef>
#include <optional>
#include <vector>

#include "qbox/window_solver.h"

namespace erails::qbox {

struct PairEstimatorConfig {
  std::size_t history = 10;  // earlier windows each new one is intersected with (3.3.3 uses 10)
  // Weight of one sample in the moving estimate, discounted by how far the sample jumped from the
  // previous sample (thesis 3.3.3 weights each estimate by its distance): a sample a relative
  // distance j away from the last one gets gain / (1 + j). A lone outlier moves the estimate
  // little; a real cost shift, seen consistently window after window, gets the full gain and is
  // followed within a few dozen windows however large it is.
  double gain = 0.1;
  SolverLimits limits;
};

class PairEstimator {
 public:
  enum class Update { intersections, projection, single_class, none };

  // `prior` seeds the estimate (e.g., from a device profile); without one the first usable window
  // sets it.
  explicit PairEstimator(PairEstimatorConfig config, std::optional<CostPair> prior = std::nullopt);

  // Folds a closed window into the estimate and returns which rule produced the sample. Windows
  // with no busy time or no completions carry no information and are neither used nor kept.
  Update add_window(const Window& window);

  // Blends externally solved samples (e.g., the joint write solve) into the moving estimate.
  void blend_sample(std::optional<Seconds> sequential, std::optional<Seconds> random) {
    if (sequential) blend(sequential_, last_sequential_sample_, *sequential);
    if (random) blend(random_, last_random_sample_, *random);
  }

  std::optional<Seconds> sequential() const { return sequential_; }
  std::optional<Seconds> random() const { return random_; }
  // Both components, once both have been observed or seeded.
  std::optional<CostPair> estimate() const;

 private:
  void blend(std::optional<Seconds>& current, std::optional<Seconds>& previous_sample,
             Seconds sample) const;

  PairEstimatorConfig config_;
  std::vector<Window> history_;  // ring of the last config_.history informative windows
  std::size_t next_slot_ = 0;
  std::optional<Seconds> sequential_;
  std::optional<Seconds> random_;
  std::optional<Seconds> last_sequential_sample_;
  std::optional<Seconds> last_random_sample_;
};

}  // namespace erails::qbox
