// `rails avoid` inside ceph-osd (doc/rails.rst, "Reading around a slow OSD"): the admin-socket
// command through which the rails mgr module tells this OSD's erails reads which colors hold a
// slow OSD. The marks themselves are Ceph-free (avoid.h).
#pragma once

#include "common/error.h"

namespace erails::rails_osd {

// Registers `rails avoid` with the admin socket of `cct` (a ceph-osd of an allowed build).
Status register_avoid_command(void* cct);

}  // namespace erails::rails_osd
