// Ceph 16.2.15's op scheduler interface where its form differs between builds (doc/dev/ceph-abi.md,
// "Replacing the OSD's op scheduler"). Included by ceph_abi/op_scheduler.h, after the types it uses.
#pragma once

#include <cstddef>

namespace erails::ceph_osd {

// OpQueueable's vtable slots we call: bool is_peering(), uint8 get_scheduler_class() and the
// deleting destructor.
inline constexpr std::size_t kOpQueueableIsPeeringSlot = 6;
inline constexpr std::size_t kOpQueueableSchedulerClassSlot = 11;
inline constexpr std::size_t kOpQueueableDeletingDtorSlot = 13;

// Whether an item of class background_recovery carries the bytes it writes as its cost. Not here:
// such items only start recovery, at the cost osd_recovery_cost (20 MiB by default) whatever they
// recover, and the pushes they send are immediate at their target (doc/dev/ceph-abi.md).
inline constexpr bool kRecoveryCostIsALength = false;

// The scheduler's vtable: the common slots (ceph_abi/op_scheduler.h), then the destructors at
// +0x38/+0x40.
class OpScheduler : public OpSchedulerCommonSlots {
 public:
  virtual ~OpScheduler() = default;
};

// ceph::osd::scheduler::make_scheduler(CephContext*, unsigned num_shards, bool is_rotational),
// exported by ceph-osd only. It returns std::unique_ptr<OpScheduler> through the hidden pointer
// in %rdi and gives it back in %rax: the same registers as a plain function of this form.
inline constexpr const char* kMakeSchedulerSymbol =
    "_ZN4ceph3osd9scheduler14make_schedulerEPNS_6common11CephContextEjb";

// A function of make_scheduler's form that creates the scheduler with `create`.
template <CreateScheduler create>
OpScheduler** make_scheduler_stand_in(OpScheduler** result, void* cct, unsigned num_shards,
                                      bool /*is_rotational*/) {
  *result = create(cct, num_shards);
  return result;
}

}  // namespace erails::ceph_osd
