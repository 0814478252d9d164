#include "qbox/joint_solver.h"

#include <cmath>
#include <cstddef>

namespace erails::qbox {

std::optional<std::array<std::optional<Seconds>, 4>> solve_jointly(
    const std::vector<LongWindow>& windows) {
  std::array<std::size_t, 4> column{};
  std::size_t n = 0;
  for (std::size_t c = 0; c < 4; ++c) {
    for (const LongWindow& w : windows) {
      if (w.completions[c] > 0) {
        column[n++] = c;
        break;
      }
    }
  }
  if (n == 0 || windows.size() < n) return std::nullopt;

  // Normal equations A^T A x = A^T b, with each column scaled to unit norm first so the disk-like
  // spread of counts (thousands of sequential, tens of random) does not ruin the pivoting.
  std::array<double, 4> scale{};
  for (std::size_t a = 0; a < n; ++a) {
    for (const LongWindow& w : windows) scale[a] += w.completions[column[a]] * w.completions[column[a]];
    scale[a] = std::sqrt(scale[a]);
  }
  double m[4][5] = {};
  for (const LongWindow& w : windows) {
    for (std::size_t a = 0; a < n; ++a) {
      const double ra = w.completions[column[a]] / scale[a];
      for (std::size_t b = 0; b < n; ++b) m[a][b] += ra * w.completions[column[b]] / scale[b];
      m[a][n] += ra * w.busy;
    }
  }
  for (std::size_t p = 0; p < n; ++p) {
    std::size_t best = p;
    for (std::size_t r = p + 1; r < n; ++r) {
      if (std::fabs(m[r][p]) > std::fabs(m[best][p])) best = r;
    }
    // With unit columns the Gram matrix has a unit diagonal; a tiny pivot means the windows'
    // mixes were too alike to tell these classes apart.
    if (std::fabs(m[best][p]) < 1e-6) return std::nullopt;
    for (std::size_t k = 0; k <= n; ++k) std::swap(m[p][k], m[best][k]);
    for (std::size_t r = 0; r < n; ++r) {
      if (r == p) continue;
      const double f = m[r][p] / m[p][p];
      for (std::size_t k = p; k <= n; ++k) m[r][k] -= f * m[p][k];
    }
  }
  std::array<std::optional<Seconds>, 4> costs;
  for (std::size_t a = 0; a < n; ++a) {
    const double cost = m[a][n] / m[a][a] / scale[a];
    if (!(cost > 0) || !std::isfinite(cost)) return std::nullopt;
    costs[column[a]] = cost;
  }
  return costs;
}

}  // namespace erails::qbox
