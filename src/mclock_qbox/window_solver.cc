#include "window_solver.h"

#include <cmath>

namespace qbox {

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

std::optional<CostPair> project(const CostPair& estimate, const Window& i, const Window& j) {
  if (j.busy <= 0 || (j.sequential <= 0 && j.random <= 0)) return std::nullopt;
  double mu = estimate.random / estimate.sequential;
  if (i.random > 0 && estimate.sequential > 0) {
    const double on_line_i = (i.busy / estimate.sequential - i.sequential) / i.random;
    if (on_line_i > 0) mu = on_line_i;
  }
  const double denominator = j.sequential + mu * j.random;
  if (!(denominator > 0) || !(mu > 0)) return std::nullopt;
  const double x = j.busy / denominator;
  return CostPair{x, mu * x};
}

std::optional<ClassSample> single_class(const Window& w) {
  if (w.busy <= 0) return std::nullopt;
  if (w.sequential > 0 && w.random == 0) return ClassSample{Access::sequential, w.busy / w.sequential};
  if (w.random > 0 && w.sequential == 0) return ClassSample{Access::random, w.busy / w.random};
  return std::nullopt;
}

}  // namespace qbox
