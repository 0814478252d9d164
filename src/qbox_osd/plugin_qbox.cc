// Entry points the Ceph daemons look up after dlopen("libec_qbox.so"). The library is an
// erasure-code plugin only to be loaded early (osd_erasure_code_plugins): ceph-osd loads the
// preloaded plugins before it builds its shards, so redirecting make_scheduler here makes every
// shard a QBox shard. Other daemons and tools that load it (ceph-mon) have no make_scheduler and
// are left alone.
#include <dlfcn.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ceph_abi/checked_build.h"
#include "ceph_abi/erasure_code_plugin.h"
#include "ceph_abi/op_scheduler.h"
#include "qbox_osd/build_check.h"
#include "qbox_osd/log.h"
#include "qbox_osd/osd_scheduler.h"

namespace {

// Set to 1 to make ceph-osd refuse to start (instead of running stock) when the build is not on
// the allow-list.
constexpr const char* kRequireVariable = "ERAILS_QBOX_REQUIRE";

class QBoxPlugin final : public ceph::ErasureCodePlugin {
 public:
  int factory(const std::string&, ceph::ErasureCodeProfile&, ceph::ErasureCodeInterfaceRef*,
              std::ostream* ss) override {
    if (ss != nullptr) {
      *ss << "qbox is the QBox op scheduler loaded into OSDs, not an erasure code; use "
             "plugin=erails, jerasure, isa or lrc";
    }
    return -EINVAL;
  }
};

bool required() {
  const char* value = std::getenv(kRequireVariable);
  return value != nullptr && std::strcmp(value, "1") == 0;
}

// 0 when QBox is in place or the daemon is not an OSD; an error only when the build is refused
// and ERAILS_QBOX_REQUIRE=1.
int install_scheduler() {
  using namespace erails::qbox_osd;
  void* target = dlsym(RTLD_DEFAULT, erails::ceph_osd::kMakeSchedulerSymbol);
  if (target == nullptr) return 0;
  const std::string build_id = executable_build_id();
  auto allowed = allowed_builds();
  auto* stand_in = &erails::ceph_osd::make_scheduler_stand_in<&create_qbox_scheduler>;
  erails::Status status = allowed ? redirect_if_allowed(target, reinterpret_cast<void*>(stand_in),
                                                        build_id, allowed.value())
                                  : erails::Status(allowed.error());
  if (status) {
    set_build_id(build_id);
    log_line("QBox schedules this OSD's ops (build-id " + build_id + ")");
    return 0;
  }
  log_line("not scheduling, this OSD runs its stock scheduler: " + status.error().to_string() +
           (required() ? "; refusing to start (ERAILS_QBOX_REQUIRE=1)" : ""));
  return required() ? -ENOEXEC : 0;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const char* __erasure_code_version() {
  return erails::ceph_build::kVersion;
}

extern "C" __attribute__((visibility("default"))) int __erasure_code_init(char* plugin_name,
                                                                            char* /*directory*/) {
  const int r = install_scheduler();
  if (r != 0) return r;
  auto* plugin = new QBoxPlugin();
  const int added = ceph::ErasureCodePluginRegistry::singleton.add(plugin_name, plugin);
  if (added != 0) delete plugin;
  return added;
}
