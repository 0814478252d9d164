// Which ceph-osd build a library loaded into a daemon runs in, and whether that build is one whose
// layouts doc/dev/ceph-abi.md measured. Shared by every library that uses more of ceph-osd than
// the erasure-code plugin ABI (libec_qbox.so, the Rails lease inside libec_erails.so): each keeps
// its own allow-list, because each rests on different measured facts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"

namespace erails::ceph_osd {

struct AllowedBuild {
  std::string build_id;                   // lower-case hex
  std::vector<std::uint8_t> first_bytes;  // of the function the library patches; may be empty
};

// Where an allow-list comes from: the entries compiled in (from the CMake cache variable
// `setting`), or, when the environment variable `variable` names a file, that file's lines
// "<build-id hex> [<first bytes hex>]" ('#' starts a comment) -- how tests show that a build off
// the list is refused. Every entry must carry at least `min_first_bytes` bytes (0: none at all).
struct AllowListSource {
  const char* setting;
  const char* variable;
  std::vector<std::pair<const char*, const char*>> compiled;  // build-id, first bytes ("" if none)
  std::size_t min_first_bytes;
};

// The list, or an error naming the entry (setting, or file:line) and the accepted form.
Expected<std::vector<AllowedBuild>> read_allow_list(const AllowListSource& source);

// The GNU build-id of the main executable, lower-case hex; empty if it has none.
std::string executable_build_id();

// The entry of `allowed` for `build_id`, or an error naming the build-id.
Expected<const AllowedBuild*> find_build(const std::string& build_id,
                                         const std::vector<AllowedBuild>& allowed);

// Whether this process is a ceph-osd: it exports make_scheduler, which ceph-mon, the tools and
// our own plugin hosts do not (nm -D, doc/dev/ceph-abi.md).
bool in_ceph_osd();

}  // namespace erails::ceph_osd
