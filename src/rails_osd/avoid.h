// Which Rails colors this OSD's erails reads avoid, Ceph-free: the rails mgr module marks the
// colors that hold a slow OSD (`ceph tell osd.N rails avoid seconds=<s> colors=<bucket>,...`) and
// renews the marks while the OSD stays slow; marks not renewed in time end by themselves, so a
// mark never outlives the module that set it by more than its length. The plugin reads them on
// every read (slow_mask), so that is cheap when nothing is marked. Time is passed in (seconds on a
// monotonic clock), so tests drive it.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"

namespace erails::rails_osd {

// The longest mark accepted: the module renews far sooner; a longer one is a mistake.
inline constexpr double kMaxAvoidSeconds = 600.0;

// One `rails avoid` command, from its words:
//   (none)                                 report the marks
//   clear                                  drop every mark now
//   seconds=<s> colors=<bucket>[,<bucket>] avoid exactly these colors for <s> seconds (replaces
//                                          the marks before)
struct AvoidRequest {
  enum class Kind { report, mark, clear };
  Kind kind = Kind::report;
  double seconds = 0;
  std::set<std::string> colors;
};

// The request, or an error naming the word's key and what it accepts.
Expected<AvoidRequest> parse_avoid_request(const std::vector<std::string>& words);

// Thread-safe: the admin socket's thread writes, every OSD op thread reads.
class AvoidMarks {
 public:
  void mark(const std::set<std::string>& colors, double seconds, double now);
  void clear();

  // Bit i set when colors[i] is marked at `now` (colors: a pool's crush-colors, shard i on
  // colors[i], at most 64).
  std::uint64_t slow_mask(const std::vector<std::string>& colors, double now) const;

  std::string report_json(double now) const;
  std::string report_plain(double now) const;

 private:
  mutable std::mutex mutex_;
  // False when nothing is marked (never marked, cleared, or seen ended): slow_mask then skips the
  // lock, which is every read's case.
  mutable std::atomic<bool> any_{false};
  std::set<std::string> colors_;
  double until_ = 0;
  std::uint64_t marks_ = 0;
};

// The one set of marks of this process, read by every erails instance in it.
AvoidMarks& process_avoid_marks();

// The clock marks are given and read on inside ceph-osd: the OSD's monotonic clock, so that a
// mark ends on time whatever the wall clock does.
double avoid_clock_seconds();

}  // namespace erails::rails_osd
