// libec_qbox.so's lines on the daemon's standard error (ceph_abi/daemon_log.h).
#pragma once

#include <string>

#include "ceph_abi/daemon_log.h"

namespace erails::qbox_osd {

inline void log_line(const std::string& text) { ceph_osd::log_line("qbox", text); }

}  // namespace erails::qbox_osd
