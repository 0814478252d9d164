// Ceph 16.2.15's op scheduler interface where its form differs between builds (doc/dev/ceph-abi.md,
// "Replacing the OSD's op scheduler"). Included by ceph_abi/op_scheduler.h, after the types it uses.
#pragma once

#include <cstddef>
#include <ostream>

namespace erails::ceph_osd {

// OpQueueable's vtable slots we call: uint8 get_scheduler_class() and the deleting destructor.
inline constexpr std::size_t kOpQueueableSchedulerClassSlot = 11;
inline constexpr std::size_t kOpQueueableDeletingDtorSlot = 13;

// The scheduler's vtable, slot for slot: +0x00 enqueue, +0x08 enqueue_front, +0x10 empty,
// +0x18 dequeue, +0x20 dump, +0x28 print, +0x30 update_configuration, +0x38/+0x40 destructors.
// One instance per shard; the shard calls it under its shard lock, dequeue only when !empty().
class OpScheduler {
 public:
  virtual void enqueue(OpSchedulerItem&& item) = 0;
  virtual void enqueue_front(OpSchedulerItem&& item) = 0;
  virtual bool empty() const = 0;
  virtual WorkItem dequeue() = 0;
  virtual void dump(Formatter& formatter) const = 0;
  virtual void print(std::ostream& out) const = 0;
  virtual void update_configuration() = 0;
  virtual ~OpScheduler() = default;
};

// ceph::osd::scheduler::make_scheduler(CephContext*, unsigned num_shards, bool is_rotational),
// exported by ceph-osd only. It returns std::unique_ptr<OpScheduler> through the hidden pointer
// in %rdi and gives it back in %rax: the same registers as a plain function of this form.
inline constexpr const char* kMakeSchedulerSymbol =
    "_ZN4ceph3osd9scheduler14make_schedulerEPNS_6common11CephContextEjb";

// What a replacement of make_scheduler needs of its arguments: the daemon's CephContext* and how
// many shards the OSD has.
using CreateScheduler = OpScheduler* (*)(void* cct, unsigned num_shards);

// A function of make_scheduler's form that creates the scheduler with `create`.
template <CreateScheduler create>
OpScheduler** make_scheduler_stand_in(OpScheduler** result, void* cct, unsigned num_shards,
                                      bool /*is_rotational*/) {
  *result = create(cct, num_shards);
  return result;
}

}  // namespace erails::ceph_osd
