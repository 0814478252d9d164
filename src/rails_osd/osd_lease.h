// The Rails lease inside ceph-osd (doc/rails.rst, "Turning it off"; the ABI it rests on in
// doc/dev/ceph-abi.md): registers `rails lease` with the OSD's admin socket, and a thread that
// applies the release the module gave when the lease runs out without renewal; and `rails avoid`
// (osd_avoid.h), which rides on the same allow-list and admin socket.
#pragma once

namespace erails::rails_osd {

// Sets the lease up, once per process, when the process is a ceph-osd of a build on the
// allow-list (ERAILS_RAILS_OSD_ALLOWED_BUILDS; the environment variable
// ERAILS_RAILS_OSD_ALLOW_LIST may name a file that replaces it, as for libec_qbox.so). In another
// ceph-osd it logs one line and changes nothing; in other processes (ceph-mon, tools) it does
// nothing at all. Never fails the caller.
void start_in_osd();

}  // namespace erails::rails_osd
