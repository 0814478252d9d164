// The op scheduler this library gives every shard of a ceph-osd (doc/dev/qbox-in-osd.md): the
// Ceph-free ShardQueue behind Ceph's OpScheduler vtable, and the state all shards of the daemon
// share (one device, one share table, one cost estimate).
#pragma once

#include <string>

#include "ceph_abi/op_scheduler.h"
#include "qbox/osd_shares.h"

namespace erails::qbox_osd {

// The daemon-wide state, created by the first make_scheduler call; nullptr before.
struct OsdState {
  qbox::OsdShares shares;
  qbox::StatusHeader header;
  OsdState(qbox::OsdSharesConfig config, qbox::Seconds now) : shares(config, now) {}
};
OsdState* osd_state();

// Seconds on the steady clock since the library was loaded.
qbox::Seconds now();

// A QBox scheduler for one of the OSD's `num_shards` shards, made where make_scheduler was called
// once its entry is redirected here (ceph_osd::make_scheduler_stand_in). Sets up the daemon-wide
// state and the `qbox` commands on the first call. `build_id` is recorded for `qbox status` by
// whoever redirected it, before the first call.
ceph_osd::OpScheduler* create_qbox_scheduler(void* cct, unsigned num_shards);
void set_build_id(const std::string& build_id);

}  // namespace erails::qbox_osd
