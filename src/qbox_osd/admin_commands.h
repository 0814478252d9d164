// `qbox status` and `qbox set table=<json>`, registered with the OSD's admin socket so that both
// `ceph daemon osd.N qbox ...` and `ceph tell osd.N qbox ...` reach them (the contract with the
// mgr module is in doc/dev/qbox-in-osd.md).
#pragma once

namespace erails::qbox_osd {

// Registers both commands with the admin socket of `cct`. Failures are logged, never fatal: the
// OSD then schedules with QBox and the defaults, and answers "unrecognized command".
void register_admin_commands(void* cct);

}  // namespace erails::qbox_osd
