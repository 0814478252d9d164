#pragma once
// The classes the cost estimator tells apart (thesis 3.3.1 and 3.5.1): sequential vs random
// (costs differ by orders of magnitude on disks) and read vs write (writes are acknowledged from
// caches, so they are estimated separately over longer windows).

#include <cstddef>

#include "common/operation.h"

namespace erails::qbox {

enum class Access { sequential, random };

struct RequestClass {
  Operation operation = Operation::read;
  Access access = Access::random;

  friend bool operator==(RequestClass a, RequestClass b) {
    return a.operation == b.operation && a.access == b.access;
  }
};

inline const char* to_string(Access a) { return a == Access::sequential ? "sequential" : "random"; }

}  // namespace erails::qbox
