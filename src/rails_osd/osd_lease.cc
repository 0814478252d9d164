#include "rails_osd/osd_lease.h"

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ceph_abi/daemon_log.h"
#include "ceph_abi/osd_build.h"
#include "ceph_abi/osd_commands.h"
#include "rails_osd/allow_list.h"
#include "rails_osd/lease.h"
#include "rails_osd/osd_avoid.h"

namespace erails::rails_osd {
namespace {

constexpr const char* kLibrary = "rails";
constexpr const char* kLeaseCommand = "rails lease name=args,type=CephString,n=N,req=false";
constexpr const char* kLeaseHelp =
    "Rails: with no words, this OSD's lease; seconds=<s> release=<option>=<value>,... "
    "[unset=<option>,...] [kick=<bytes>] grants or renews it; cancel drops it";
constexpr const char* kWordsArgument = "args";

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void answer(ceph::buffer::list& out, const std::string& text) {
  out.append(text.data(), static_cast<unsigned>(text.size()));
}

// The lease and the thread that ends it; one per daemon, never destroyed (the socket keeps the
// hook, and the thread runs for the daemon's life).
class OsdLease final : public ceph_osd::SyncAdminSocketHook {
 public:
  explicit OsdLease(void* cct) : cct_(cct) {}

  int respond(std::string_view, const ceph_osd::CmdMap& cmdmap, ceph_osd::Formatter*,
           std::ostream& errors, ceph::buffer::list& out) override {
    const bool json = ceph_osd::wants_json(cmdmap);
    const auto request = parse_request(ceph_osd::words_argument(cmdmap, kWordsArgument));
    if (!request) {
      errors << "rails lease: " << request.error().to_string();
      return -EINVAL;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    const double at = now();
    if (request.value().kind == Request::Kind::grant) {
      lease_.grant(request.value().grant, at);
      start_thread();
      wakeup_.notify_all();
    } else if (request.value().kind == Request::Kind::cancel) {
      lease_.cancel(at);
    }
    answer(out, json ? lease_.report_json(at) : lease_.report_plain(at));
    return 0;
  }

 private:
  // Called with mutex_ held.
  void start_thread() {
    if (started_) return;
    started_ = true;
    std::thread([this] { run(); }).detach();
  }

  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      const auto deadline = lease_.deadline();
      const double at = now();
      if (!deadline) {
        wakeup_.wait(lock);
        continue;
      }
      if (*deadline > at) {
        wakeup_.wait_for(lock, std::chrono::duration<double>(*deadline - at));
        continue;
      }
      const auto plan = lease_.take_expired(at);
      if (!plan) continue;
      const double length = lease_.lease_seconds();
      lock.unlock();
      const auto [ok, detail] = apply(*plan);
      lock.lock();
      lease_.record_release(now(), ok, detail);
      std::ostringstream why;
      why << "the Rails lease of " << length << " s ran out without renewal; ";
      ceph_osd::log_to_daemon(cct_, kLibrary, why.str() +
                                       (ok ? "released this OSD: " : "releasing this OSD failed: ") + detail);
    }
  }

  // Runs the release's commands through this daemon's admin socket, all of them even if one fails.
  std::pair<bool, std::string> apply(const ReleasePlan& plan) {
    bool ok = true;
    std::string detail;
    for (const auto& command : release_commands(plan)) {
      const auto outcome = ceph_osd::execute_command(cct_, command);
      ok = ok && outcome.result == 0;
      detail += (detail.empty() ? "" : "; ") + command + " -> " + std::to_string(outcome.result);
      if (outcome.result != 0 && !outcome.errors.empty()) detail += " (" + outcome.errors + ")";
    }
    return {ok, detail};
  }

  void* cct_;
  std::mutex mutex_;
  std::condition_variable wakeup_;
  Lease lease_;
  bool started_ = false;
};

void set_up() {
  if (!ceph_osd::in_ceph_osd()) return;
  ceph_osd::AllowListSource source{"ERAILS_RAILS_OSD_ALLOWED_BUILDS", "ERAILS_RAILS_OSD_ALLOW_LIST", {}, 0};
  for (const auto& entry : kAllowedBuilds) source.compiled.push_back(entry);
  const std::string build_id = ceph_osd::executable_build_id();
  const auto allowed = ceph_osd::read_allow_list(source);
  const auto found = allowed ? ceph_osd::find_build(build_id, allowed.value())
                             : Expected<const ceph_osd::AllowedBuild*>(allowed.error());
  void* cct = ceph_osd::daemon_context();
  Status status = found ? Status(Ok{}) : Status(found.error());
  if (status && cct == nullptr) status = Error{"g_ceph_context", "not set in this daemon"};
  if (status) {
    // Lives as long as the daemon: the socket keeps the pointer.
    static OsdLease* lease = new OsdLease(cct);
    status = ceph_osd::register_commands(cct, lease, {{kLeaseCommand, kLeaseHelp}});
    if (status) status = register_avoid_command(cct);
    if (status) {
      ceph_osd::log_line(kLibrary, "`rails lease` and `rails avoid` are available (build-id " + build_id + ")");
    }
  }
  if (!status) {
    ceph_osd::log_to_daemon(cct, kLibrary, "no Rails lease in this OSD, so a hold the rails module leaves is "
                                 "bounded by BlueStore's own limits only, and its erails reads do not avoid "
                                 "slow OSDs: " + status.error().to_string());
  }
}

}  // namespace

void start_in_osd() {
  static std::once_flag once;
  std::call_once(once, set_up);
}

}  // namespace erails::rails_osd
