#include "ceph_abi/plugin_host.h"

#include <dlfcn.h>
#include <rados/librados.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "ceph_abi/checked_build.h"

namespace ceph {

ErasureCodePluginRegistry ErasureCodePluginRegistry::singleton;

namespace {
// The registry's state; the declared class has no members because plugins never see them.
std::mutex registry_mutex;
std::map<std::string, std::unique_ptr<ErasureCodePlugin>>& registered_plugins() {
  static std::map<std::string, std::unique_ptr<ErasureCodePlugin>> plugins;
  return plugins;
}
}  // namespace

// Called by a plugin's __erasure_code_init while load_plugin below holds registry_mutex.
int ErasureCodePluginRegistry::add(const std::string& name, ErasureCodePlugin* plugin) {
  auto& plugins = registered_plugins();
  if (plugins.count(name)) return -EEXIST;
  plugins.emplace(name, plugin);
  return 0;
}

}  // namespace ceph

namespace ceph_abi {
namespace {

ceph::ErasureCodePlugin* load_plugin(const std::string& directory, const std::string& name,
                                     std::ostream* err) {
  auto& plugins = ceph::registered_plugins();
  if (auto it = plugins.find(name); it != plugins.end()) return it->second.get();

  const std::string path = directory + "/libec_" + name + ".so";
  void* library = dlopen(path.c_str(), RTLD_NOW);
  if (library == nullptr) {
    *err << "load dlopen(" << path << "): " << dlerror();
    return nullptr;
  }
  using VersionFn = const char* (*)();
  using InitFn = int (*)(char*, char*);
  auto version = reinterpret_cast<VersionFn>(dlsym(library, "__erasure_code_version"));
  auto init = reinterpret_cast<InitFn>(dlsym(library, "__erasure_code_init"));
  if (version == nullptr || init == nullptr) {
    *err << path << " lacks __erasure_code_version or __erasure_code_init";
    dlclose(library);
    return nullptr;
  }
  // Same check as the daemons: a plugin built for another Ceph must not run here.
  if (std::strcmp(version(), erails::ceph_build::kVersion) != 0) {
    *err << "expected plugin " << path << " version " << erails::ceph_build::kVersion
         << " but it claims to be " << version();
    dlclose(library);
    return nullptr;
  }
  int r = init(const_cast<char*>(name.c_str()), const_cast<char*>(directory.c_str()));
  auto it = plugins.find(name);
  if (r != 0 || it == plugins.end()) {
    *err << path << ": __erasure_code_init returned " << r << " and registered no plugin " << name;
    dlclose(library);
    return nullptr;
  }
  it->second->library = library;
  return it->second.get();
}

}  // namespace

int ensure_ceph_context() {
  static std::once_flag once;
  static int result = 0;
  std::call_once(once, [] {
    // ceph::global::g_ceph_context lives in libceph-common, which librados loads but which has
    // no development symlink to link against: find it at run time instead.
    auto* global_context =
        static_cast<void**>(dlsym(RTLD_DEFAULT, "_ZN4ceph6global14g_ceph_contextE"));
    if (global_context == nullptr) {
      result = -ENOENT;
      return;
    }
    rados_t cluster;
    result = rados_create(&cluster, nullptr);
    if (result == 0) *global_context = rados_cct(cluster);
  });
  return result;
}

int make_erasure_code(const std::string& directory, const std::string& name,
                      ceph::ErasureCodeProfile& profile, ceph::ErasureCodeInterfaceRef* instance,
                      std::ostream* err) {
  std::lock_guard<std::mutex> lock(ceph::registry_mutex);
  ceph::ErasureCodePlugin* plugin = load_plugin(directory, name, err);
  if (plugin == nullptr) return -EIO;
  int r = plugin->factory(directory, profile, instance, err);
  if (r != 0) return r;
  if ((*instance)->get_profile() != profile) {
    *err << "plugin " << name << " did not write its defaults back into the profile";
    return -EINVAL;
  }
  return 0;
}

}  // namespace ceph_abi
