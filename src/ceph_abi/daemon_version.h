// How code loaded into a Ceph daemon (not as a plugin, e.g. with LD_PRELOAD) learns the daemon's
// Ceph version: libceph-common.so.2 exports `const char* ceph_version_to_str()`, which returns the
// bare version ("16.2.15" on Debian's 16.2.15+ds-0+deb12u*; measured with `nm -D` and by calling
// it, doc/dev/device-emulator.md). Looked up by its mangled name with dlsym, since a preloaded
// library does not link libceph-common.
#pragma once

namespace erails::ceph_abi {

inline constexpr const char* kVersionFunctionSymbol = "_Z19ceph_version_to_strv";
using VersionFunction = const char* (*)();

}  // namespace erails::ceph_abi
