// One line on the daemon's standard error (its journal under systemd; <cluster>/log/osd.N.stdout
// on a local cluster), for the libraries loaded into Ceph daemons: they have no access to Ceph's
// log without more ABI.
#pragma once

#include <cstdio>
#include <string>

namespace erails::ceph_osd {

// Writes "erails <library>: <text>".
inline void log_line(const char* library, const std::string& text) {
  std::fprintf(stderr, "erails %s: %s\n", library, text.c_str());
  std::fflush(stderr);
}

}  // namespace erails::ceph_osd
