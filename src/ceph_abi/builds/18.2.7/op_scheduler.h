// Ceph 18.2.7's op scheduler interface where its form differs between builds (doc/dev/ceph-abi.md,
// "Ceph 18.2.7": the scheduler). Included by ceph_abi/op_scheduler.h, after the types it uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>

namespace erails::ceph_osd {

// OpQueueable's vtable slots we call: uint8 get_scheduler_class() and the deleting destructor
// (get_order_locker and get_op_type are gone since 16.2.15).
inline constexpr std::size_t kOpQueueableSchedulerClassSlot = 9;
inline constexpr std::size_t kOpQueueableDeletingDtorSlot = 11;

// op_queue_type_t, a byte: what the OSD asks its scheduler to decide whether mClock's own code
// runs (recovery and deletion costs, overriding options from the OSD's capacity).
inline constexpr std::uint8_t kOpQueueTypeWpq = 0;

// The scheduler's vtable, slot for slot: +0x00 enqueue, +0x08 enqueue_front, +0x10 empty,
// +0x18 dequeue, +0x20 dump, +0x28 print, +0x30 update_configuration, +0x38 get_type,
// +0x40 get_cost_per_io, +0x48/+0x50 destructors. One instance per shard; the shard calls it
// under its shard lock, dequeue only when !empty(); at a fast shutdown it calls dequeue until
// empty(). The two new slots answer as a scheduler that is not mClock: then the OSD runs none of
// mClock's code and never asks the cost per I/O (which only mClock has).
class OpScheduler {
 public:
  virtual void enqueue(OpSchedulerItem&& item) = 0;
  virtual void enqueue_front(OpSchedulerItem&& item) = 0;
  virtual bool empty() const = 0;
  virtual WorkItem dequeue() = 0;
  virtual void dump(Formatter& formatter) const = 0;
  virtual void print(std::ostream& out) const = 0;
  virtual void update_configuration() = 0;
  virtual std::uint8_t get_type() const { return kOpQueueTypeWpq; }
  virtual double get_cost_per_io() const { return 0.0; }
  virtual ~OpScheduler() = default;
};

// ceph::osd::scheduler::make_scheduler(CephContext*, int whoami, unsigned num_shards,
// int shard_id, bool is_rotational, std::string_view osd_objectstore, op_queue_type_t,
// unsigned cutoff_priority, MonClient*), exported by ceph-osd only. It returns
// std::unique_ptr<OpScheduler> through the hidden pointer in %rdi and gives it back in %rax; the
// string_view and the last three arguments are on the stack: the same places as a plain function
// of this form.
inline constexpr const char* kMakeSchedulerSymbol =
    "_ZN4ceph3osd9scheduler14make_schedulerEPNS_6common11CephContextEijibSt17basic_string_viewIcSt11char_traitsIcEE15op_queue_type_tjP9MonClient";

// What a replacement of make_scheduler needs of its arguments: the daemon's CephContext* and how
// many shards the OSD has.
using CreateScheduler = OpScheduler* (*)(void* cct, unsigned num_shards);

// A function of make_scheduler's form that creates the scheduler with `create`.
template <CreateScheduler create>
OpScheduler** make_scheduler_stand_in(OpScheduler** result, void* cct, int /*whoami*/,
                                      unsigned num_shards, int /*shard_id*/,
                                      bool /*is_rotational*/, std::string_view /*osd_objectstore*/,
                                      std::uint8_t /*op_queue_type*/, unsigned /*cutoff_priority*/,
                                      void* /*mon_client*/) {
  *result = create(cct, num_shards);
  return result;
}

}  // namespace erails::ceph_osd
