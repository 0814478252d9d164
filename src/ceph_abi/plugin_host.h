// A minimal host for Ceph erasure-code plugins outside the Ceph daemons, for tools and tests:
// it defines the registry a plugin registers into and loads plugins the way ceph-osd does
// (dlopen RTLD_NOW, version check, __erasure_code_init, factory). Executables that use it must
// export their symbols (CMake ENABLE_EXPORTS) so that plugins resolve the registry to this one.
#pragma once

#include <ostream>
#include <string>

#include "ceph_abi/erasure_code_plugin.h"

namespace ceph_abi {

// Gives stock plugins the CephContext they log through (they dereference g_ceph_context).
// Idempotent; returns 0 or a negative errno. Not needed for erails itself.
int ensure_ceph_context();

// Loads (once) the plugin `name` from `directory` and creates an instance for `profile`, writing
// the plugin's defaults back into it. Returns 0 or a negative errno with the reason in *err.
int make_erasure_code(const std::string& directory, const std::string& name,
                      ceph::ErasureCodeProfile& profile, ceph::ErasureCodeInterfaceRef* instance,
                      std::ostream* err);

}  // namespace ceph_abi
