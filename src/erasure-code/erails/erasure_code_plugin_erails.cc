// Entry points the Ceph daemons look up after dlopen("libec_erails.so"). Inside ceph-osd the
// library also carries the Rails lease (src/rails_osd), set up once the plugin is registered.
#include <cerrno>

#include "ceph_abi/checked_build.h"
#include "erasure-code/erails/erasure_code_erails.h"
#include "ceph_abi/erasure_code_plugin.h"
#include "rails_osd/osd_lease.h"

namespace {

class ErasureCodePluginErails final : public ceph::ErasureCodePlugin {
 public:
  int factory(const std::string& /*directory*/, ceph::ErasureCodeProfile& profile,
              ceph::ErasureCodeInterfaceRef* erasure_code, std::ostream* ss) override {
    auto instance = std::make_shared<erails::ErasureCodeErails>();
    int r = instance->init(profile, ss);
    if (r != 0) return r;
    *erasure_code = std::move(instance);
    return 0;
  }
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const char* __erasure_code_version() {
  return erails::ceph_build::kVersion;
}

extern "C" __attribute__((visibility("default"))) int __erasure_code_init(char* plugin_name,
                                                                            char* /*directory*/) {
  auto* plugin = new ErasureCodePluginErails();
  int r = ceph::ErasureCodePluginRegistry::singleton.add(plugin_name, plugin);
  if (r != 0) {
    delete plugin;
    return r;
  }
  erails::rails_osd::start_in_osd();
  return 0;
}
