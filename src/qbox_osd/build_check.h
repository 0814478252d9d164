// Whether this library may redirect the running ceph-osd's make_scheduler: only when the binary's
// GNU build-id and the function's first bytes are on the allow-list, i.e. the exact build whose
// layouts doc/dev/ceph-abi.md measured. Anything else leaves the daemon stock.
#pragma once

#include <string>
#include <vector>

#include "ceph_abi/osd_build.h"
#include "common/error.h"

namespace erails::qbox_osd {

using ceph_osd::AllowedBuild;  // first_bytes: of make_scheduler
using ceph_osd::executable_build_id;

// The list compiled in (CMake's ERAILS_QBOX_ALLOWED_BUILDS), or, when the environment variable
// ERAILS_QBOX_ALLOW_LIST names a file, that file's lines "<build-id hex> <first bytes hex>"
// ('#' starts a comment) -- how tests show that a build off the list is refused.
Expected<std::vector<AllowedBuild>> allowed_builds();

// Redirects the function at `target` to `replacement` with a 12-byte absolute jump, if
// `build_id` and the bytes at `target` match an entry of `allowed`. Errors say which did not.
Status redirect_if_allowed(void* target, void* replacement, const std::string& build_id,
                           const std::vector<AllowedBuild>& allowed);

}  // namespace erails::qbox_osd
