#pragma once
// The two-window cost system of thesis 3.3.1 as pure functions.
//
// A window is what the controller can observe of a black box: how many sequential (alpha) and
// random (beta) requests completed, and how long the device was busy (z). If the average costs x
// (sequential) and y (random) stay the same over two windows i and j,
//   alpha_i x + beta_i y = z_i,   alpha_j x + beta_j y = z_j          (3.1)
// and the intersection of the two lines is the pair of costs (3.2).

#include <optional>

#include "qbox/request_class.h"
#include "qbox/seconds.h"

namespace erails::qbox {

struct Window {
  double sequential = 0;  // alpha: sequential completions
  double random = 0;      // beta: random completions
  Seconds busy = 0;       // z: device-busy time attributed to these completions
};

struct CostPair {
  Seconds sequential = 0;  // x
  Seconds random = 0;      // y
};

struct SolverLimits {
  // The two lines must cross at a clear angle: |det| / (alpha_j beta_i + alpha_i beta_j) below this
  // means the windows had nearly the same mix and the intersection is noise (3.5 is volatile then).
  double min_relative_determinant = 0.02;
  // Bounds on the random/sequential cost ratio lambda (3.5); intersections outside them are
  // "clearly wrong" (3.3.3). Wide enough for disks (ratio ~100) and SSDs (ratio near 1).
  double min_ratio = 0.2;
  double max_ratio = 5000;
};

// Intersection of windows i and j (3.2), or nothing when it is not valid: non-positive components
// (the conditions 3.3 are exactly x > 0 and y > 0), nearly parallel lines, or a ratio out of bounds.
std::optional<CostPair> intersect(const Window& i, const Window& j, const SolverLimits& limits);

// How sharply the lines of windows i and j cross: (det / (alpha_j beta_i + alpha_i beta_j))^2, in
// [0, 1]; 0 for parallel lines or windows without both classes.
double crossing_weight(const Window& i, const Window& j);

// Projection of an estimate onto window j's line (3.6-3.7), used when no intersection is valid:
// the point of that line with the estimate's cost ratio mu = y/x. The thesis derives mu from where
// the estimate meets the previous window's line (3.7); that re-derives the ratio from one noisy
// window every time and, under the steady mix EDF produces, lets it random-walk along the line.
// Keeping the estimate's own ratio leaves ratio changes to the intersections, which measure them.
// Returns nothing if window j has no completions or the estimate is not positive.
std::optional<CostPair> project(const CostPair& estimate, const Window& j);

struct ClassSample {
  Access access;
  Seconds cost;
};

// A window holding a single class gives that class's cost directly: with no random completions
// x = z / alpha, and symmetrically (thesis 3.4.2). Nothing for mixed or empty windows.
std::optional<ClassSample> single_class(const Window& w);

}  // namespace erails::qbox
