// The Rails lease of one OSD, Ceph-free: the rails mgr module grants it with every hold and renews
// it while the OSD is held; if no renewal comes in time (the module disabled, its mgr killed or
// stuck), the OSD releases itself by applying the settings the module gave it. The module decides
// what a release is (src/mgr/rails/settings.py); this code only keeps it and says when it is due.
// Time is passed in (seconds on a monotonic clock), so tests drive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"

namespace erails::rails_osd {

// The longest lease granted: a lease outliving this is a mistake of the caller, not a hold.
inline constexpr double kMaxLeaseSeconds = 3600.0;
// The largest kick write (osd bench's own limit for a single write is far above).
inline constexpr std::uint64_t kMaxKickBytes = 4 << 20;

// What the OSD applies when its lease runs out, in this order: one injectargs of `set`, a config
// unset of each of `unset`, then one write of `kick_bytes` (osd bench) so that BlueStore applies
// what it held even when no client writes to this OSD (0: no write).
struct ReleasePlan {
  std::vector<std::pair<std::string, std::string>> set;
  std::vector<std::string> unset;
  std::uint64_t kick_bytes = 0;
};

struct Grant {
  double seconds = 0;
  ReleasePlan release;
};

// One `rails lease` command, from its words:
//   (none)                  report the lease's state
//   cancel                  drop the lease; nothing is applied
//   seconds=<s> release=<option>=<value>[,<option>=<value>...] [unset=<option>[,...]] [kick=<bytes>]
//                           grant or renew: unless renewed, apply the release in <s> seconds
struct Request {
  enum class Kind { report, grant, cancel };
  Kind kind = Kind::report;
  Grant grant;  // for Kind::grant
};

// The request, or an error naming the word's key and what it accepts.
Expected<Request> parse_request(const std::vector<std::string>& words);

// The admin-socket commands (Ceph's JSON form) that carry out `plan`, in order.
std::vector<std::string> release_commands(const ReleasePlan& plan);

class Lease {
 public:
  // Grants or renews the lease at `now`. Returns true when the OSD released itself since the
  // previous grant (the hold the caller believes in has lapsed and must be sent again).
  bool grant(const Grant& grant, double now);

  // Drops the lease: nothing is applied when it would have run out.
  void cancel(double now);

  // When the lease runs out, if it is active.
  std::optional<double> deadline() const;

  // The length of the last lease granted (0 before the first).
  double lease_seconds() const { return grant_.seconds; }

  // The plan to apply, exactly once, when the lease ran out at or before `now`; then the lease is
  // "released" until the next grant.
  std::optional<ReleasePlan> take_expired(double now);

  // How applying the plan taken went: `ok` and one line of detail, for the report.
  void record_release(double now, bool ok, const std::string& detail);

  // The state as JSON (`rails lease -f json`) and as text; both say whether the last grant found
  // the lease run out (grant()'s result), for the caller that renews.
  std::string report_json(double now) const;
  std::string report_plain(double now) const;

 private:
  enum class State { none, active, released, cancelled };
  static const char* name(State state);

  State state_ = State::none;
  double granted_at_ = 0;
  double deadline_ = 0;
  Grant grant_;
  std::uint64_t grants_ = 0;
  std::uint64_t self_releases_ = 0;
  bool lapsed_at_last_grant_ = false;
  std::optional<double> released_at_;
  bool release_ok_ = false;
  std::string release_detail_;
};

}  // namespace erails::rails_osd
