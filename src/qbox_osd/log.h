// One line on the daemon's standard error (its journal under systemd; <cluster>/log/osd.N.stdout
// on a local cluster): the library has no access to Ceph's log without more ABI.
#pragma once

#include <cstdio>
#include <string>

namespace erails::qbox_osd {

inline void log_line(const std::string& text) {
  std::fprintf(stderr, "erails qbox: %s\n", text.c_str());
  std::fflush(stderr);
}

}  // namespace erails::qbox_osd
