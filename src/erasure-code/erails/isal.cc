#include "erasure-code/erails/isal.h"

#include <dlfcn.h>
#include <isa-l/erasure_code.h>

#include <type_traits>

namespace erails {
namespace {

static_assert(std::is_same_v<decltype(&::ec_init_tables), decltype(Isal::ec_init_tables)>);
static_assert(std::is_same_v<decltype(&::ec_encode_data), decltype(Isal::ec_encode_data)>);
static_assert(std::is_same_v<decltype(&::gf_mul), decltype(Isal::gf_mul)>);
static_assert(std::is_same_v<decltype(&::gf_invert_matrix), decltype(Isal::gf_invert_matrix)>);

template <typename Function>
bool resolve(void* handle, const char* name, Function* out, std::string* error) {
  *out = reinterpret_cast<Function>(dlsym(handle, name));
  if (*out == nullptr) *error = std::string("erails: " ERAILS_ISAL_SONAME " has no ") + name;
  return *out != nullptr;
}

struct Loaded {
  Isal isal{};
  std::string error;
  bool ok = false;

  Loaded() {
    // RTLD_LOCAL keeps ISA-L's names out of the process's global scope (libec_isa.so cannot bind
    // to them); RTLD_DEEPBIND makes ISA-L's calls between its own functions resolve inside it
    // first, even when a host has put another copy in the global scope. dlsym on the handle
    // searches this library only. ISA-L allocates no memory, so binding its libc calls deeply
    // cannot mix allocators with a host that replaces malloc (Ceph builds may link tcmalloc).
    void* handle = dlopen(ERAILS_ISAL_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (handle == nullptr) {
      const char* why = dlerror();
      error = std::string("erails: cannot load ISA-L (install libisal2): ") + (why ? why : "");
      return;
    }
    ok = resolve(handle, "ec_init_tables", &isal.ec_init_tables, &error) &&
         resolve(handle, "ec_encode_data", &isal.ec_encode_data, &error) &&
         resolve(handle, "gf_mul", &isal.gf_mul, &error) &&
         resolve(handle, "gf_invert_matrix", &isal.gf_invert_matrix, &error);
  }
};

}  // namespace

const Isal* Isal::get(std::string* error) {
  static const Loaded loaded;
  if (!loaded.ok) *error = loaded.error;
  return loaded.ok ? &loaded.isal : nullptr;
}

}  // namespace erails
