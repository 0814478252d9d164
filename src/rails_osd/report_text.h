// How the Rails commands of ceph-osd (`rails lease`, `rails avoid`) write seconds in their answers.
#pragma once

#include <sstream>
#include <string>

namespace erails::rails_osd {

// Milliseconds are enough for leases and marks that last seconds.
inline std::string seconds_text(double seconds) {
  std::ostringstream out;
  out.precision(3);
  out << std::fixed << seconds;
  return out.str();
}

}  // namespace erails::rails_osd
