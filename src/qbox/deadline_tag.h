#pragma once
// QBox's scheduling tag (thesis 3.2, 6.1.2): a request of estimated cost e from a client with
// utilization u gets the relative deadline d = e / u, and the absolute deadline D = T + d, where T
// is the sum of the client's earlier relative deadlines. Only the order of absolute deadlines
// matters (EDF), not whether they are met.

#include "qbox/seconds.h"

namespace erails::qbox {

struct DeadlineTag {
  Seconds relative = 0;  // d = e / u: device time this request is worth to its client's share
  Seconds absolute = 0;  // D = T + d

  // Preconditions: cost >= 0, 0 < utilization <= 1. `accumulated` is the client's T.
  static DeadlineTag after(Seconds accumulated, Seconds cost, double utilization) {
    const Seconds relative = cost / utilization;
    return DeadlineTag{relative, accumulated + relative};
  }
};

}  // namespace erails::qbox
