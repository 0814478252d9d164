// Ceph 18.2.7's op scheduler interface where its form differs between builds (doc/dev/ceph-abi.md,
// "Ceph 18.2.7": the scheduler). Included by ceph_abi/op_scheduler.h, after the types it uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace erails::ceph_osd {

// OpQueueable's vtable slots we call: bool is_peering(), uint8 get_scheduler_class() and the
// deleting destructor
// (get_order_locker and get_op_type are gone since 16.2.15).
inline constexpr std::size_t kOpQueueableIsPeeringSlot = 4;
inline constexpr std::size_t kOpQueueableSchedulerClassSlot = 9;
inline constexpr std::size_t kOpQueueableDeletingDtorSlot = 11;

// Whether an item of class background_recovery carries the bytes it writes as its cost. Taken to
// be so here, unmeasured: recovery messages such as pushes are recovery items in 18.2.7
// (doc/dev/ceph-abi.md), and nothing yet tells them from the items that start recovery.
inline constexpr bool kRecoveryCostIsALength = true;

// op_queue_type_t, a byte: what the OSD asks its scheduler to decide whether mClock's own code
// runs (recovery and deletion costs, overriding options from the OSD's capacity).
inline constexpr std::uint8_t kOpQueueTypeWpq = 0;

// The scheduler's vtable: the common slots (ceph_abi/op_scheduler.h), then +0x38 get_type,
// +0x40 get_cost_per_io, +0x48/+0x50 destructors. At a fast shutdown the shard calls dequeue until
// empty(). The two new slots answer as a scheduler that is not mClock: then the OSD runs none of
// mClock's code and never asks the cost per I/O (which only mClock has).
class OpScheduler : public OpSchedulerCommonSlots {
 public:
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
