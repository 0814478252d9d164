#pragma once
// Least-squares solution for all four class costs over several long windows (writes, §3.5.1).
//
// The two-window intersections cannot separate reads from writes: when the reads' costs are solved
// on the time left after writes and the writes' on the time left after reads, any split that
// explains the total busy time is a fixed point. Over several long windows whose read/write mixes
// differ, the four costs are pinned down by minimizing sum_k (counts_k . costs - busy_k)^2.

#include <array>
#include <optional>
#include <vector>

#include "qbox/seconds.h"

namespace erails::qbox {

struct LongWindow {
  std::array<double, 4> completions{};  // indexed by class_index()
  Seconds busy = 0;
};

// Costs of the classes that occur in `windows` (absent classes come back as nothing). Nothing at
// all when the system is singular (too few or too similar windows) or a cost is not positive.
std::optional<std::array<std::optional<Seconds>, 4>> solve_jointly(
    const std::vector<LongWindow>& windows);

}  // namespace erails::qbox
