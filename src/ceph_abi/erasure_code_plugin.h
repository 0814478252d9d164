// Our declaration of Ceph 16.2's erasure-code plugin entry points (doc/dev/ceph-abi.md).
// The registry lives in the host executable; a plugin only names its singleton and calls add().
#pragma once

#include <ostream>
#include <string>

#include "ceph_abi/erasure_code_interface.h"

namespace ceph {

// Layout is ABI: vptr at offset 0, `library` at offset 8 (the host stores the dlopen handle there).
class ErasureCodePlugin {
 public:
  void* library = nullptr;

  virtual ~ErasureCodePlugin() {}
  virtual int factory(const std::string& directory, ErasureCodeProfile& profile,
                      ErasureCodeInterfaceRef* erasure_code, std::ostream* ss) = 0;
};

// Only the two members a plugin touches. Hosts own the object; the host keeps its lock held
// while it calls a plugin's __erasure_code_init, which is where add() is called.
class ErasureCodePluginRegistry {
 public:
  static ErasureCodePluginRegistry singleton;
  // Takes ownership of `plugin`. Returns 0, or -EEXIST if `name` is already registered.
  int add(const std::string& name, ErasureCodePlugin* plugin);
};

}  // namespace ceph

// The two C entry points the host resolves with dlsym after dlopen(RTLD_NOW).
extern "C" {
const char* __erasure_code_version();
int __erasure_code_init(char* plugin_name, char* directory);
}
