#include "qbox/window_solver.h"

#include <cmath>

namespace erails::qbox {

std::optional<CostPair> intersect(const Window& i, const Window& j, const SolverLimits& limits) {
  const double det = j.sequential * i.random - i.sequential * j.random;
  const double scale = j.sequential * i.random + i.sequential * j.random;
  if (scale <= 0 || std::fabs(det) < limits.min_relative_determinant * scale) return std::nullopt;
  // Cramer's rule; the same solution as (3.2) without dividing by beta_i, which may be zero.
  const double x = (j.busy * i.random - j.random * i.busy) / det;
  const double y = (j.sequential * i.busy - i.sequential * j.busy) / det;
  if (!(x > 0) || !(y > 0)) return std::nullopt;
  const double ratio = y / x;
  if (ratio < limits.min_ratio || ratio > limits.max_ratio) return std::nullopt;
  return CostPair{x, y};
}

double crossing_weight(const Window& i, const Window& j) {
  const double det = j.sequential * i.random - i.sequential * j.random;
  const double scale = j.sequential * i.random + i.sequential * j.random;
  if (scale <= 0) return 0;
  return (det / scale) * (det / scale);
}

std::optional<CostPair> project(const CostPair& estimate, const Window& j) {
  if (j.busy <= 0 || (j.sequential <= 0 && j.random <= 0)) return std::nullopt;
  if (!(estimate.sequential > 0) || !(estimate.random > 0)) return std::nullopt;
  const double mu = estimate.random / estimate.sequential;
  const double x = j.busy / (j.sequential + mu * j.random);
  return CostPair{x, mu * x};
}

std::optional<ClassSample> single_class(const Window& w) {
  if (w.busy <= 0) return std::nullopt;
  if (w.sequential > 0 && w.random == 0) return ClassSample{Access::sequential, w.busy / w.sequential};
  if (w.random > 0 && w.sequential == 0) return ClassSample{Access::random, w.busy / w.random};
  return std::nullopt;
}

}  // namespace erails::qbox
